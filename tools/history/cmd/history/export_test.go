package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report's fixtures: a real quick night and a real server result, of
// two commits.
const (
	fixtureNight   = "../../../report/testdata/results"
	fixtureServers = "../../../report/testdata/servers"
)

func TestExport(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "h.db")
	if out, errs, status := runHistory(t, "init", "--personal", db); status != 0 {
		t.Fatalf("init: %d %s%s", status, out, errs)
	}
	if out, errs, status := runHistory(t, "ingest", db, fixtureNight, fixtureServers); status != 0 || !strings.Contains(out, "8 added") {
		t.Fatalf("ingest: %d %s%s", status, out, errs)
	}

	// Every format, of the night's commit, to a file.
	for format, want := range map[string]string{
		"gobench":     "BenchmarkHavlak6cc 1 ",
		"bmf":         `"real_seconds": {`,
		"gab":         `"name": "havlak6 real_seconds"`,
		"gab-bigger":  "[]",
		"openmetrics": "# EOF\n",
	} {
		file := filepath.Join(dir, format+".out")
		out, errs, status := runHistory(t, "export", db, "--format", format, "--commit", "495bf23", "-o", file)
		data, err := os.ReadFile(file)
		if status != 0 || err != nil || !strings.Contains(string(data), want) || !strings.Contains(out, "7 results in "+format+" format") {
			t.Errorf("export --format %s: status %d, %s%s%v\n%s", format, status, out, errs, err, data)
		}
	}
	// The server's throughput is better higher: the bigger-is-better file.
	out, errs, status := runHistory(t, "export", db, "--format", "gab-bigger", "--benchmark", "router_mutex")
	if status != 0 || !strings.Contains(out, `"name": "router_mutex throughput"`) {
		t.Errorf("gab-bigger of router_mutex: %d %s%s", status, out, errs)
	}
	// One figure, across both commits, to stdout.
	out, errs, status = runHistory(t, "export", db, "--format", "gobench", "--figure", "real_seconds")
	if status != 0 || strings.Contains(out, "user_seconds") || strings.Count(out, "BenchmarkHavlak6 1 ") != 5 {
		t.Errorf("gobench --figure real_seconds: %d %s%s", status, out, errs)
	}

	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"--format", "csv"}, 2, `--format "csv": want one of gobench, bmf, gab, gab-bigger, openmetrics`},
		{[]string{}, 2, `--format ""`},
		{[]string{"--format", "bmf"}, 1, "select one with --commit"},
		{[]string{"--format", "bmf", "--commit", "nope;"}, 2, "--commit"},
		{[]string{"--format", "gobench", "--limit", "3"}, 1, "narrow the selection with --benchmark"},
		{[]string{"--format", "gobench", "--benchmark", "havlak9"}, 1, "no results for --benchmark \"havlak9\""},
		{[]string{"--format", "gobench", "-o", filepath.Join(dir, "no", "such", "dir", "x")}, 1, "-o "},
	} {
		out, errs, status := runHistory(t, append([]string{"export", db}, c.args...)...)
		if status != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("export %v: status %d, %s%s; want %d and %q", c.args, status, out, errs, c.status, c.want)
		}
	}
}
