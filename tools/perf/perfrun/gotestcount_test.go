package perfrun

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// spinBench is //tools/perf/testing/spinbench's go_test, which the BUILD
// file passes; a plain go test builds it.
var spinBench = flag.String("spinbench", "", "the spinbench test binary (tools/perf/testing/spinbench)")

// A testing.B's own instructions per operation are counted, one value a
// repetition, with the lines its iterations ran; a pattern that selects
// no benchmark is refused.
func TestGoBenchmarkCountedPerOperation(t *testing.T) {
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		t.Fatal(err)
	}
	exe := *spinBench
	if dir := os.Getenv("TEST_SRCDIR"); dir != "" && exe != "" && !filepath.IsAbs(exe) {
		exe = filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), exe) // a $(rootpath)
	}
	if exe == "" {
		exe = filepath.Join(t.TempDir(), "spinbench.test")
		build := exec.Command("go", "test", "-c", "-o", exe, "havlak-lab/tools/perf/testing/spinbench")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", build.Args, err, out)
		}
	}
	// The module's root, where a plain go test builds it: the runs' line
	// counts name its files by their workspace paths.
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	b := &bench{Spec: &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "spin", Kind: result.KindGoTest}},
		GoTest: &perfspec.GoTest{Bench: "Spin", Count: 1, CountedRepetitions: 1}}, binary: exe, runfiles: root, out: out}
	names, err := b.benchmarkFunctions()
	if err != nil || len(names) != 1 || names[0] != "BenchmarkSpin" {
		t.Fatalf("%v, %v: want BenchmarkSpin", names, err)
	}
	values, lines, err := b.countPerOp(valgrind, "BenchmarkSpin")
	if err != nil {
		t.Fatal(err)
	}
	// Spin's 1000 turns are some 6,000 instructions.
	if len(values) != 1 || values[0] < 4000 || values[0] > 9000 {
		t.Errorf("%v own instructions an operation: want one value of about 6000", values)
	}
	var spin uint64
	for _, r := range lines.Records {
		if strings.HasSuffix(r.File, "spinbench/spin.go") { // Spin's lines, inlined or not
			spin += r.Events[cachegrind.Ir]
		}
	}
	// 60 iterations of Spin, between the runs of 20 and 80.
	if float64(spin) < 0.9*60*values[0] {
		t.Errorf("the lines of spin.go counted %d of the difference's instructions, want most of 60 × %.0f", spin, values[0])
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("the runs' files are left among the outputs: %v", left)
	}
	b.GoTest.Bench = "NoSuchBenchmark"
	if names, err := b.benchmarkFunctions(); err == nil {
		t.Errorf("a pattern that selects nothing: %v, no error", names)
	}
}
