package perop

import (
	"errors"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// runs are a benchmark's counts at Iterations: setup, plus a first pass of
// one iteration, plus n iterations of perIteration, plus noise[i].
func runs(setup, perIteration uint64, noise [3]int64) [3]Run {
	var r [3]Run
	for i, n := range Iterations {
		r[i] = Run{Iterations: n, Own: uint64(int64(setup+perIteration*uint64(1+n)) + noise[i])}
	}
	return r
}

func TestPerOpCancelsTheSetup(t *testing.T) {
	// Whatever the setup, the difference is the iterations' cost.
	for _, setup := range []uint64{0, 228_256, 1 << 40} {
		got, err := PerOp("Spin", runs(setup, 6011, [3]int64{}))
		if err != nil || got != 6011 {
			t.Errorf("setup %d: %v, %v; want 6011", setup, got, err)
		}
	}
	// The noise of a short benchmark's runs (a few hundred of the testing
	// package's instructions) moves it a little and is no error.
	got, err := PerOp("Spin", runs(228_256, 6011, [3]int64{0, 190, -120}))
	if err != nil || got < 6008 || got > 6011 {
		t.Errorf("with noise: %v, %v; want about 6011", got, err)
	}
}

func TestPerOpRefusesACostThatIsNotLinear(t *testing.T) {
	// A map filled as the loop goes, measured: 322 instructions an
	// iteration from 20 to 40, 570 from 40 to 80.
	r := [3]Run{{20, 107_136}, {40, 113_591}, {80, 136_414}}
	_, err := PerOp("Map", r)
	var nonLinear *NonLinearError
	if !errors.As(err, &nonLinear) || nonLinear.Benchmark != "Map" || !strings.Contains(err.Error(), "Map is not linear") {
		t.Fatalf("%v: want a NonLinearError naming Map", err)
	}
	if nonLinear.PerOp[0] != 322.75 || nonLinear.PerOp[1] != 570.575 {
		t.Errorf("%v: want 322.75 and 570.575 an iteration", nonLinear.PerOp)
	}
	// Just inside the tolerance, and just outside it.
	edge := func(second uint64) [3]Run { return [3]Run{{20, 0}, {40, 20_000}, {80, 20_000 + 40*second}} }
	if _, err := PerOp("Edge", edge(1015)); err != nil {
		t.Errorf("1.5%% apart: %v", err)
	}
	if _, err := PerOp("Edge", edge(1025)); !errors.As(err, &nonLinear) {
		t.Errorf("2.5%% apart: %v, want not linear", err)
	}
}

func TestPerOpRefusesRunsItCannotDifference(t *testing.T) {
	for name, r := range map[string][3]Run{
		"a run of one iteration, testing's first pass alone": {{1, 100}, {40, 200}, {80, 300}},
		"iterations out of order":                            {{40, 100}, {20, 200}, {80, 300}},
		"the same iterations twice":                          {{20, 100}, {20, 100}, {80, 300}},
		"fewer instructions for more iterations":             {{20, 300}, {40, 200}, {80, 400}},
	} {
		if got, err := PerOp("Bad", r); err == nil {
			t.Errorf("%s: %v, want an error", name, got)
		}
	}
}

func record(file, function string, line, ir uint64) linecounts.Record {
	var e cachegrind.Events
	e[cachegrind.Ir] = ir
	return linecounts.Record{File: file, Line: line, Function: function, Events: e}
}

func TestOwnLeavesTheRuntimeOut(t *testing.T) {
	f := &linecounts.File{Records: []linecounts.Record{
		record("go/spin/spin.go", "spin.Spin", 5, 6000),
		record("goroot:fmt/format.go", "fmt.(*fmt).padString", 10, 30),
		// The runtime's assembly, which Cachegrind names without its
		// package, and its random numbers.
		record("goroot:internal/chacha8rand/chacha8_amd64.s", "internal/chacha8rand.block", 1, 900),
		record("goroot:runtime/asm_amd64.s", "gogo", 400, 100_000),
		record("goroot:runtime/proc.go", "runtime.schedule", 3000, 5000),
		record("toolchain:???", "runtime.memmove", 0, 7),
	}}
	if got := Own(f); got != 6030 {
		t.Errorf("own: %d, want 6030 (spin.Spin and fmt)", got)
	}
}

func TestDifferenceKeepsWhatTheIterationsRan(t *testing.T) {
	shorter := &linecounts.File{Records: []linecounts.Record{
		record("go/spin/spin.go", "spin.Spin", 5, 120_000),
		record("go/spin/spin_test.go", "spin.setup", 9, 500),
		record("goroot:runtime/asm_amd64.s", "gogo", 400, 100_000),
		record("goroot:strconv/ftoa.go", "strconv.fmtF", 20, 41),
	}}
	longer := &linecounts.File{Records: []linecounts.Record{
		record("go/spin/spin.go", "spin.Spin", 5, 480_000),
		record("go/spin/spin_test.go", "spin.setup", 9, 500),
		record("goroot:runtime/asm_amd64.s", "gogo", 400, 300_000),
		record("goroot:strconv/ftoa.go", "strconv.fmtF", 20, 35),
	}}
	d, err := Difference(longer, shorter)
	if err != nil {
		t.Fatal(err)
	}
	// The setup cancels, the runtime is left out, a line that counted
	// fewer is noise.
	if len(d.Records) != 1 || d.Records[0].Function != "spin.Spin" || d.Records[0].Events[cachegrind.Ir] != 360_000 {
		t.Fatalf("%+v: want spin.Spin's 360000 alone", d.Records)
	}
	if _, err := d.Marshal(); err != nil {
		t.Errorf("the difference is not a file of the format: %v", err)
	}
	if _, err := Difference(longer, &linecounts.File{Cache: true}); err == nil {
		t.Error("files of different events: no error")
	}
}

func TestSumAddsTheBenchmarksLines(t *testing.T) {
	a := &linecounts.File{Records: []linecounts.Record{record("go/spin/spin.go", "spin.Spin", 5, 100), record("go/spin/spin.go", "spin.Spin", 7, 1)}}
	b := &linecounts.File{Records: []linecounts.Record{record("go/spin/a.go", "spin.A", 1, 3), record("go/spin/spin.go", "spin.Spin", 5, 20)}}
	sum, err := Sum([]*linecounts.File{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{3, 120, 1}
	if len(sum.Records) != len(want) {
		t.Fatalf("%+v: want %d records", sum.Records, len(want))
	}
	for i, r := range sum.Records {
		if r.Events[cachegrind.Ir] != want[i] {
			t.Errorf("record %d %+v: want %d", i, r, want[i])
		}
	}
	if _, err := sum.Marshal(); err != nil {
		t.Errorf("the sum is not a file of the format: %v", err)
	}
	if a.Records[0].Events[cachegrind.Ir] != 100 {
		t.Error("Sum changed its input")
	}
}
