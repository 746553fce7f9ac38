package program_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/program"
)

// exitWith, set in the environment, makes the test binary a program that
// allocates and ends through Exit with that error ("" for none).
const exitWith = "PROGRAM_TEST_EXIT_WITH"

var sink [][]byte

func TestMain(m *testing.M) {
	if why, ok := os.LookupEnv(exitWith); ok {
		for range 1000 {
			sink = append(sink, make([]byte, 1024))
		}
		var err error
		if why != "" {
			err = errors.New(why)
		}
		program.Exit(err)
	}
	os.Exit(m.Run())
}

// run runs the test binary as a program ending through Exit with why,
// the runner asking for its figures in metrics (none when "").
func run(t *testing.T, why, metrics string) (status int, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), exitWith+"="+why)
	if metrics != "" {
		cmd.Env = append(cmd.Env, runtimemetrics.EnvVar+"="+metrics)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), errOut.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, errOut.String()
}

// A program that ends through Exit gives the runner its figures, one run
// a line, whether it failed or not, and says why it failed.
func TestExitRecordsTheRun(t *testing.T) {
	metrics := filepath.Join(t.TempDir(), "metrics.jsonl")
	if status, stderr := run(t, "", metrics); status != 0 || stderr != "" {
		t.Fatalf("a good run: exit status %d, stderr %q; want 0 and nothing", status, stderr)
	}
	status, stderr := run(t, "no input", metrics)
	if status != 1 || !strings.HasSuffix(stderr, ": no input\n") {
		t.Errorf("a failed run: exit status %d, stderr %q; want 1 and the error after the program's name", status, stderr)
	}
	runs, err := runtimemetrics.ReadFile(metrics)
	if err != nil || len(runs) != 2 {
		t.Fatalf("the runs recorded: %d, %v; want 2", len(runs), err)
	}
	for i, r := range runs {
		if r.AllocBytes < 1000*1024 || r.AllocObjects < 1000 {
			t.Errorf("run %d recorded %d bytes in %d objects: want the 1,000 KiB it allocated at least", i, r.AllocBytes, r.AllocObjects)
		}
	}
}

// Outside the runner Exit records nothing and Record does nothing.
func TestNothingAskedNothingRecorded(t *testing.T) {
	t.Setenv(runtimemetrics.EnvVar, "")
	dir := t.TempDir()
	t.Chdir(dir)
	if status, _ := run(t, "", ""); status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
	if err := program.Record(); err != nil {
		t.Errorf("Record with nothing asked: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written with nothing asked: %v", entries)
	}
}
