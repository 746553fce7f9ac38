package suite

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// A case whose build fails leaves no result of its own; the one an earlier
// case left in the test logs is not read as this case's (it was: the
// change of a case that did not build was judged as the last case's).
func TestMeasureNeverReadsAnEarlierCasesResult(t *testing.T) {
	scratch := t.TempDir()
	bazel := filepath.Join(scratch, "tools", "bazel")
	if err := os.MkdirAll(filepath.Dir(bazel), 0o755); err != nil {
		t.Fatal(err)
	}
	// A build that fails and writes nothing, as bazel test does.
	if err := os.WriteFile(bazel, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	earlier := filepath.Join(scratch, "bazel-testlogs", "benchmarks", "havlak7cc"+perfspec.QuickSuffix, "test.outputs", result.ZipName)
	if err := os.MkdirAll(filepath.Dir(earlier), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, []byte("the last case's result"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Scratch: scratch, Log: io.Discard}
	got := r.measure([]string{"havlak7cc"}, 1)["havlak7cc"]
	if len(got) != 1 || got[0].err == nil || !strings.Contains(got[0].err.Error(), "left no result") {
		t.Fatalf("a case that did not build measured %+v, want the error that its test left no result", got)
	}
	if _, err := os.Stat(earlier); !os.IsNotExist(err) {
		t.Errorf("the earlier case's result is still in the test logs: %v", err)
	}
}
