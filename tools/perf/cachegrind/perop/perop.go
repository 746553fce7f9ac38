// Package perop makes a Go benchmark's own instructions per operation from
// Cachegrind's counts of its runs at fixed numbers of iterations (a
// go_test binary run with -test.benchtime=Nx): the exact figure of a
// testing.B that the count action of a go_benchmark records
// (tools/perf/perfrun) and the gate judges.
//
// Valgrind 3.19 (Debian's) has no client requests that start and stop
// Cachegrind's counting, so a run counts everything: the test binary's
// start, the testing package's setup, the benchmark's own setup before its
// loop, the pass of one iteration that testing makes before the N asked
// for, and the end. None of these depends on N. The difference of two runs
// of N1 and N2 iterations is then the work of N2-N1 iterations alone: the
// rest cancels. A third run checks that it does: its cost past the second
// must be the same per iteration as the second's past the first, or the
// benchmark does per iteration something that grows or shrinks with N (a
// map it fills, a cache it warms) and its cost per operation is no one
// number: that is an error with a name (NonLinearError), never a figure.
//
// Own instructions leave out the Go runtime's, whose scheduler and
// allocator do work that depends on timing: the functions that
// cachegrind.GoRuntime names, and every line of the runtime's sources
// (Runtime), whose assembly routines (gogo, gcWriteBarrier) Cachegrind
// names without their package. The runtime's random number generator
// (internal/chacha8rand), which the scheduler draws from as threads meet,
// is left out with it, and so is the C library, through which a binary
// linked with cgo creates as many threads as timing has it (its malloc
// and pthread_create moved a test binary's count by 2,000 instructions).
package perop

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// Iterations are the counted runs' numbers of iterations (-test.benchtime
// 100x, 200x and 400x), of as many digits each, so that the runs'
// arguments (and the stack laid out after them) have the same length. A
// run under Cachegrind costs mostly Valgrind's start and the binary's
// (some 15 million instructions of the runtime's), so more iterations of
// a short operation cost little, and they shrink the setup's noise: a test
// binary's own instructions outside the loop moved by up to 2,000 from
// run to run, 1.7% of 20 iterations of 6,000 instructions, 0.3% of 100.
var Iterations = [3]int{100, 200, 400}

// Tolerance is how far the cost per iteration of the second interval may
// be from the first's, relative to the whole range's, for the cost to be
// linear in N. A short operation's runs differ by a few hundred of the
// testing package's own instructions (the digits of the ns/op it prints,
// a hash seed's path through its maps), up to 2,000 instructions, 0.3% of
// 100 iterations of 6,000; a map filled as the loop goes moved its cost
// per iteration by 77%.
const Tolerance = 0.02

// A Run is one counted run: its number of iterations and its own
// instructions (Own).
type Run struct {
	Iterations int
	Own        uint64
}

// A NonLinearError says that a benchmark's cost is not linear in its
// iterations: its second interval cost PerOp[1] per iteration, its first
// PerOp[0], further apart than Tolerance allows.
type NonLinearError struct {
	Benchmark string
	Runs      [3]Run
	PerOp     [2]float64
}

func (e *NonLinearError) Error() string {
	r := e.Runs
	return fmt.Sprintf("%s is not linear in its iterations: %.1f own instructions an iteration from %d to %d, %.1f from %d to %d "+
		"(more than %g%% apart): its loop does work that grows or shrinks with b.N (fill a map, warm a cache, "+
		"or set up inside the loop?), or an iteration costs too little to tell from the run's noise",
		e.Benchmark, e.PerOp[0], r[0].Iterations, r[1].Iterations, e.PerOp[1], r[1].Iterations, r[2].Iterations, Tolerance*100)
}

// PerOp is the benchmark's own instructions per operation, from its runs
// at three numbers of iterations, in increasing order, each 2 or more (a
// run of one iteration is testing's first pass alone): the difference of
// the last and the first over the iterations between them, once the
// second has shown the cost linear (a *NonLinearError if not). A run that
// counted fewer instructions for more iterations is an error too.
func PerOp(benchmark string, runs [3]Run) (float64, error) {
	for i, r := range runs {
		switch {
		case r.Iterations < 2:
			return 0, fmt.Errorf("%s: a run of %d iterations: want 2 or more (testing runs one iteration before the N asked for)", benchmark, r.Iterations)
		case i > 0 && r.Iterations <= runs[i-1].Iterations:
			return 0, fmt.Errorf("%s: runs of %d and then %d iterations: want more each time", benchmark, runs[i-1].Iterations, r.Iterations)
		case i > 0 && r.Own < runs[i-1].Own:
			return 0, fmt.Errorf("%s: %d own instructions in %d iterations, %d in %d: fewer for more",
				benchmark, runs[i-1].Own, runs[i-1].Iterations, r.Own, r.Iterations)
		}
	}
	slope := func(a, b Run) float64 { return float64(b.Own-a.Own) / float64(b.Iterations-a.Iterations) }
	first, second, whole := slope(runs[0], runs[1]), slope(runs[1], runs[2]), slope(runs[0], runs[2])
	if math.Abs(second-first) > Tolerance*whole {
		return 0, &NonLinearError{Benchmark: benchmark, Runs: runs, PerOp: [2]float64{first, second}}
	}
	return whole, nil
}

// Runtime tells whether a line's counts are the Go runtime's: its
// function is one (cachegrind.GoRuntime), its file is among the runtime's
// sources, or it has no line information (the C library, the dynamic
// loader and the vDSO, as Debian installs them): a binary linked with cgo
// creates its threads through the C library as timing has it. Go code,
// the benchmark's, always has line information.
func Runtime(r linecounts.Record) bool {
	if cachegrind.GoRuntime(r.Function) || r.File == noLineInformation {
		return true
	}
	for _, dir := range []string{"runtime/", "internal/runtime/", "internal/chacha8rand/"} {
		if strings.HasPrefix(r.File, linecounts.Goroot+dir) {
			return true
		}
	}
	return false
}

// noLineInformation is linecounts' file of code without line information.
const noLineInformation = linecounts.Toolchain + "???"

// Own is the instructions of f's lines outside the Go runtime (Runtime).
func Own(f *linecounts.File) uint64 {
	var own uint64
	for _, r := range f.Records {
		if !Runtime(r) {
			own += r.Events[cachegrind.Ir]
		}
	}
	return own
}

// Difference is the lines' counts of a longer run less a shorter one's:
// per line, what the iterations between them executed, which a reader
// follows to the lines that made a change of the figure (package
// attribution), as a program's line counts are. It keeps the lines
// outside the runtime that counted more in the longer run, by how much
// more; a line that counted fewer (the digits of a time the testing
// package printed) is the runs' noise and is left out, so the file's
// total may exceed the figure's difference by that noise. Both files must
// have the same events.
func Difference(longer, shorter *linecounts.File) (*linecounts.File, error) {
	if longer.Cache != shorter.Cache {
		return nil, errors.New("line counts of different events: one simulated the caches, the other did not")
	}
	before := make(map[[2]string]map[uint64]cachegrind.Events, len(shorter.Records))
	for _, r := range shorter.Records {
		k := [2]string{r.File, r.Function}
		if before[k] == nil {
			before[k] = map[uint64]cachegrind.Events{}
		}
		before[k][r.Line] = r.Events
	}
	d := &linecounts.File{Cache: longer.Cache}
	for _, r := range longer.Records {
		if Runtime(r) {
			continue
		}
		was := before[[2]string{r.File, r.Function}][r.Line]
		var more cachegrind.Events
		for i, v := range r.Events {
			if v > was[i] {
				more[i] = v - was[i]
			}
		}
		if more[cachegrind.Ir] > 0 {
			r.Events = more
			d.Records = append(d.Records, r)
		}
	}
	return d, nil
}

// PerOperation is a Difference of runs iterations apart as counts of one
// iteration: every count divided by iterations, to the nearest, and the
// lines that then count no instruction left out (a line run less often
// than every second iteration, or the runs' noise). What one benchmark
// function's file then says of a line is what an operation costs there,
// on the scale of its own instructions per operation: a reader of a change
// of that figure (package attribution) weighs lines in its unit.
func PerOperation(diff *linecounts.File, iterations int) (*linecounts.File, error) {
	if iterations < 1 {
		return nil, fmt.Errorf("line counts of %d iterations: want 1 or more", iterations)
	}
	n := uint64(iterations)
	out := &linecounts.File{Cache: diff.Cache}
	for _, r := range diff.Records {
		for i, v := range r.Events {
			r.Events[i] = v/n + (v%n*2)/n // v/n to the nearest, without overflow
		}
		if r.Events[cachegrind.Ir] > 0 {
			out.Records = append(out.Records, r)
		}
	}
	return out, nil
}

// Sum is the line counts of several benchmarks' differences in one file
// (a result has one): each line's counts added over them. The files must
// have the same events.
func Sum(files []*linecounts.File) (*linecounts.File, error) {
	sum := &linecounts.File{}
	type key struct {
		file, function string
		line           uint64
	}
	at := map[key]int{}
	for i, f := range files {
		if i == 0 {
			sum.Cache = f.Cache
		} else if f.Cache != sum.Cache {
			return nil, errors.New("line counts of different events: one simulated the caches, the other did not")
		}
		for _, r := range f.Records {
			k := key{r.File, r.Function, r.Line}
			if j, ok := at[k]; ok {
				sum.Records[j].Events.Add(r.Events)
				continue
			}
			at[k] = len(sum.Records)
			sum.Records = append(sum.Records, r)
		}
	}
	slices.SortFunc(sum.Records, func(a, b linecounts.Record) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.Function, b.Function))
	})
	return sum, nil
}
