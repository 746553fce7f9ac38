package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeWorkspace is a built workspace named lab holding one quick test's
// runfiles: its MANIFEST names a file of the workspace, one of another
// repository and an empty file Bazel made.
func fakeWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "WORKSPACE"), []byte("workspace(name = \"lab\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runfiles := filepath.Join(ws, "bazel-bin", "benchmarks", "stage_quick_test.runfiles")
	if err := os.MkdirAll(filepath.Join(runfiles, "lab"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := "lab/benchmarks/stage_quick_test_spec.json /out/bin/benchmarks/stage_quick_test_spec.json\n" +
		"lab/go/stage/stage_/stage /out/bin/go/stage/stage_/stage\n" +
		"com_github_google_pprof/pprof_/pprof /out/bin/external/com_github_google_pprof/pprof_/pprof\n" +
		"lab/tools/__init__.py \n"
	if err := os.WriteFile(filepath.Join(runfiles, "MANIFEST"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// fakeRunner is a runner that records its arguments, directory and
// environment in dir/called, then writes a result where its mode would,
// unless told to fail without one.
func fakeRunner(t *testing.T, dir string, fail string) string {
	t.Helper()
	script := `#!/bin/sh
{ echo "args: $*"; echo "pwd: $(pwd)"; env | sort; } > "` + dir + `/called"
case "$1" in
count) [ -n "` + fail + `" ] && exit 3; echo '{}' > "$5" ;;
*) echo '{}' > "$TEST_UNDECLARED_OUTPUTS_DIR/result.json"; [ -n "` + fail + `" ] && exit 1 ;;
esac
exit 0
`
	runner := filepath.Join(dir, "runner")
	if err := os.WriteFile(runner, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return runner
}

// The base's runner counts the change's program in its own directory, on
// the inputs the change's runfiles name, with the action's PATH alone.
func TestHarnessCounts(t *testing.T) {
	ws, bin := fakeWorkspace(t), t.TempDir()
	h := Harness{Runner: fakeRunner(t, bin, ""), Worker: "/base/external/count_worker/worker.json", Log: &strings.Builder{}}
	target := Target{Test: "//benchmarks:stage_quick_test", Benchmark: "stage", Counts: "//benchmarks:stage_counts",
		Spec: "benchmarks/stage_quick_test_spec.json", Mode: "test"}
	dir := filepath.Join(t.TempDir(), "stage")
	out, err := h.Measure(target, ws, dir)
	if err != nil || out != filepath.Join(dir, "outputs.zip") {
		t.Fatalf("measured at %q, %v", out, err)
	}
	called, _ := os.ReadFile(filepath.Join(bin, "called"))
	for _, want := range []string{
		"args: count benchmarks/stage_quick_test_spec.json /base/external/count_worker/worker.json " + dir + "/inputs " + out + "\n",
		"pwd: " + dir + "\n", "PATH=/bin:/usr/bin:/usr/local/bin\n",
	} {
		if !strings.Contains(string(called), want) {
			t.Errorf("the runner was called without %q:\n%s", want, called)
		}
	}
	if strings.Contains(string(called), "HOME=") {
		t.Errorf("a count saw more than an action's environment:\n%s", called)
	}
	inputs, _ := os.ReadFile(filepath.Join(dir, "inputs"))
	if want := "benchmarks/stage_quick_test_spec.json\t/out/bin/benchmarks/stage_quick_test_spec.json\n" +
		"go/stage/stage_/stage\t/out/bin/go/stage/stage_/stage\n" +
		"../com_github_google_pprof/pprof_/pprof\t/out/bin/external/com_github_google_pprof/pprof_/pprof\n"; string(inputs) != want {
		t.Errorf("inputs:\n%s\nwant:\n%s", inputs, want)
	}

	// A count that fails has no result: an error naming the benchmark.
	h.Runner = fakeRunner(t, bin, "fail")
	if _, err := h.Measure(target, ws, filepath.Join(t.TempDir(), "stage")); err == nil || !strings.Contains(err.Error(), "on stage: exit status 3") {
		t.Errorf("a failing count: %v", err)
	}
}

// A server's or a Go benchmark's quick test runs in its runfiles as bazel
// test runs it; a failing run that wrote its result is read all the same.
func TestHarnessTests(t *testing.T) {
	ws, bin := fakeWorkspace(t), t.TempDir()
	h := Harness{Runner: fakeRunner(t, bin, "fail"), Log: &strings.Builder{}}
	target := Target{Test: "//benchmarks:stage_quick_test", Benchmark: "stage", Spec: "benchmarks/stage_quick_test_spec.json", Mode: "gotest"}
	dir := filepath.Join(t.TempDir(), "stage")
	out, err := h.Measure(target, ws, dir)
	if err != nil || out != filepath.Join(dir, "outputs") {
		t.Fatalf("measured at %q, %v", out, err)
	}
	called, _ := os.ReadFile(filepath.Join(bin, "called"))
	runfiles := filepath.Join(ws, "bazel-bin", "benchmarks", "stage_quick_test.runfiles")
	for _, want := range []string{
		"args: gotest benchmarks/stage_quick_test_spec.json\n", "pwd: " + filepath.Join(runfiles, "lab") + "\n",
		"TEST_UNDECLARED_OUTPUTS_DIR=" + out + "\n", "TEST_SRCDIR=" + runfiles + "\n", "TEST_WORKSPACE=lab\n",
	} {
		if !strings.Contains(string(called), want) {
			t.Errorf("the runner was called without %q:\n%s", want, called)
		}
	}
}
