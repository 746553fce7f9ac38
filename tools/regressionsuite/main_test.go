package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/regressionsuite/suite"
)

var (
	workspaceFile = flag.String("workspace", "", "the checkout's WORKSPACE file (a runfiles path: bazel test gives it)")
	reruns        = flag.String("reruns", "8", "reruns of each benchmark for false alarms")
)

// TestMatrix runs the whole suite on a copy of the checkout: every case is
// run, unchanged code raises no alarm, and the extra work is caught at
// every size in both languages by the instruction counts, also where the
// change loosens its benchmark's own gate, judged by the base's. What the other
// kinds came to is the matrix, in the test's outputs (matrix.md), not an
// assertion: it is what the suite measures. Nested Bazel builds and
// tests, case after case (minutes): --config=perf only.
func TestMatrix(t *testing.T) {
	if *workspaceFile == "" {
		t.Skip("-workspace: bazel test //tools/regressionsuite:matrix_test passes it")
	}
	runfiles := filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"))
	real, err := filepath.EvalSymlinks(filepath.Join(runfiles, *workspaceFile))
	if err != nil {
		t.Fatal(err)
	}
	// Bazel run by a test takes its output root from $TEST_TMPDIR and
	// stops after 15 s idle: the nested builds are the user's, so that
	// their output bases serve the next run.
	os.Unsetenv("TEST_TMPDIR")
	out := filepath.Join(os.Getenv("TEST_UNDECLARED_OUTPUTS_DIR"), "matrix.md")
	err = run([]string{"--repo", filepath.Dir(real),
		"--reruns", *reruns, "--out", out}, os.Stderr)
	if err != nil {
		t.Errorf("the suite failed: %v", err)
	}
	matrix, readErr := os.ReadFile(out)
	if readErr != nil {
		t.Fatalf("no matrix: %v", readErr)
	}
	t.Logf("the matrix:\n%s", matrix)
	for _, lang := range suite.Languages {
		extraWork, _ := suite.KindNamed("extra-work")
		for _, size := range extraWork.Sizes() {
			row := "| extra-work | " + lang + " | " + size + " | "
			if i := strings.Index(string(matrix), row); i < 0 || !strings.Contains(strings.SplitN(string(matrix[i:]), "\n", 2)[0], "**caught** by `") {
				t.Errorf("extra work in %s at %s: not caught", lang, size)
			}
		}
	}
	for _, l := range suite.Loosenings {
		row := "| extra-work + " + l.Row + " | "
		if i := strings.Index(string(matrix), row); i < 0 || !strings.Contains(strings.SplitN(string(matrix[i:]), "\n", 2)[0], "the base's gate applied") {
			t.Errorf("extra work with %s: not caught by the base's gate", l.Row)
		}
	}
}
