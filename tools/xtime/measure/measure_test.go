package measure

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// The tests run this test binary as the command measured: with helperEnv
// set, it exits at once with the status its argument names. The command's
// own tests (package main) run the many behaviours of a real command.
const helperEnv = "MEASURE_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		status, err := strconv.Atoi(os.Args[len(os.Args)-1])
		if err != nil {
			os.Exit(100)
		}
		os.Exit(status)
	}
	os.Setenv(helperEnv, "1")
	os.Exit(m.Run())
}

func command(t *testing.T, status int) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, strconv.Itoa(status)}
}

// Run runs the command as many times as asked, and reports every run, the
// summary, the benchmark lines and the record.
func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "r.json")
	argv := command(t, 0)
	var stdout, stderr bytes.Buffer
	err := Run(Options{Argv: argv, Runs: 3, JSONPath: path, BenchName: "BenchmarkExit"}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	var prefixes []string
	benchLines := 0
	for _, l := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		if m := lineRE.FindStringSubmatch(l); m != nil {
			prefixes = append(prefixes, m[1])
			if m[6] != strings.Join(argv, " ") {
				t.Errorf("line %q: want the command line %q", l, strings.Join(argv, " "))
			}
		} else if strings.HasPrefix(l, "BenchmarkExit 1 ") {
			benchLines++
		}
	}
	if got, want := strings.Join(prefixes, "|"), "|||min: |median: |max: "; got != want || benchLines != 3 {
		t.Errorf("lines %q and %d benchmark lines, want %q and 3:\n%s", got, benchLines, want, stderr.String())
	}
	rec, err := result.ReadXTime(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Runs) != 3 || rec.Summary == nil || rec.Runs[2].ExitStatus != 0 {
		t.Errorf("record: runs %+v, summary %+v; want 3 runs and a summary", rec.Runs, rec.Summary)
	}
}

// The first failing run ends the series, its status the error's.
func TestRunFails(t *testing.T) {
	var stderr bytes.Buffer
	err := Run(Options{Argv: command(t, 5), Runs: 3}, nil, &bytes.Buffer{}, &stderr)
	var ee ExitError
	if !errors.As(err, &ee) || ee.Status != 5 || ee.Err != nil {
		t.Errorf("Run: %#v, want an ExitError of status 5 already reported", err)
	}
	if !strings.HasPrefix(stderr.String(), "Command exited with non-zero status 5\n") || strings.Count(stderr.String(), "\n") != 2 {
		t.Errorf("stderr:\n%s\nwant GNU time's note and one run's line", stderr.String())
	}
}

// A command that is not found is 127, as a shell says; one found but not
// executable 126; an unusable output file costs no run.
func TestRunCannotStart(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts   Options
		status int
	}{
		{Options{Argv: []string{filepath.Join(dir, "missing")}, Runs: 1}, 127},
		{Options{Argv: []string{script}, Runs: 1}, 126},
		{Options{Argv: command(t, 0), Runs: 1, JSONPath: dir}, 2},
	} {
		var stderr bytes.Buffer
		err := Run(tc.opts, nil, &bytes.Buffer{}, &stderr)
		var ee ExitError
		if !errors.As(err, &ee) || ee.Status != tc.status || ee.Err == nil || stderr.Len() != 0 {
			t.Errorf("%q: %v (status %d), stderr %q; want status %d and the reason in the error", tc.opts.Argv, err, ee.Status, stderr.String(), tc.status)
		}
	}
}
