package perfrun

// A go_test's count action: each of its benchmarks' own instructions per
// operation, counted under Cachegrind from runs of fixed numbers of
// iterations (package perop says why three), one benchmark function at a
// time.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/perf/cachegrind/perop"
	"havlak-lab/tools/result"
)

// goTestCountMode counts every benchmark the spec's -test.bench pattern
// selects, GoTest.CountedRepetitions times each, into the directory out:
// a metric of each benchmark's own instructions per operation
// (result.FigureOwnInstructionsPerOp), the line counts of what its
// iterations ran in the first repetition, one operation's
// (perop.PerOperation), in a file of each figure's own
// (result.FigureLineCounts, linecounts.FigureFileName) which a change of
// that figure is attributed to, the line counts of every benchmark's
// iterations added up (perop.Sum: the run's line_counts) and result.json
// of config counts. Nothing it keeps depends on the worker's paths or
// times: the runs' own Cachegrind files, whose command lines name the
// count's directory, and their outputs, with the times testing printed,
// are removed once read.
func (b *bench) goTestCountMode(out string) (*result.Result, error) {
	b.out = out
	env := result.Capture(result.Status{}, result.Build{CompilationMode: b.Build.CompilationMode, Config: result.ConfigCounts})
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		return nil, err
	}
	names, err := b.benchmarkFunctions()
	if err != nil {
		return nil, err
	}
	declared, ok := result.Declaration(result.FigureOwnInstructionsPerOp)
	if !ok {
		return nil, fmt.Errorf("%s is not declared", result.FigureOwnInstructionsPerOp)
	}
	var metrics []result.Metric
	var lines []*linecounts.File
	own := map[string]string{}
	for _, name := range names {
		values, diff, err := b.countPerOp(valgrind, name)
		if err != nil {
			return nil, err
		}
		figure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, strings.TrimPrefix(name, "Benchmark"))
		metrics = append(metrics, declared.Metric(figure, perOpSource, values, countThreshold))
		lines = append(lines, diff)
		one, err := perop.PerOperation(diff, perop.Iterations[2]-perop.Iterations[0])
		if err != nil {
			return nil, err
		}
		own[figure] = linecounts.FigureFileName(figure)
		if err := b.writeLines(own[figure], one); err != nil {
			return nil, err
		}
	}
	printMetrics(metrics)
	sum, err := perop.Sum(lines)
	if err != nil {
		return nil, err
	}
	if err := b.writeLines(linecounts.FileName, sum); err != nil {
		return nil, err
	}
	return b.writeResult(&result.Result{Environment: env, Metrics: metrics, LineCounts: linecounts.FileName, FigureLineCounts: own})
}

// writeLines writes line counts f as the file name of the outputs.
func (b *bench) writeLines(name string, f *linecounts.File) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(b.outPath(name), data, 0o644)
}

// perOpSource is how the figure is measured, for result.json.
var perOpSource = fmt.Sprintf("cachegrind, own instructions (outside the Go runtime) of runs of %d, %d and %d iterations "+
	"(-test.benchtime=Nx, GOMAXPROCS=1, the collector off), the difference per iteration", perop.Iterations[0], perop.Iterations[1], perop.Iterations[2])

// benchmarkFunctions are the benchmark functions the spec's pattern
// selects, as the test binary lists them (-test.list with the pattern's
// first part, the top-level name's), in its order; none is an error.
func (b *bench) benchmarkFunctions() ([]string, error) {
	top, _, _ := strings.Cut(b.GoTest.Bench, "/")
	cmd := exec.Command(b.binary, "-test.list="+top)
	cmd.Dir = b.runfiles
	var stdout bytes.Buffer
	if err := execute(cmd, nil, &stdout); err != nil {
		return nil, fmt.Errorf("%s -test.list=%s: %w", b.binary, top, err)
	}
	var names []string
	for _, name := range strings.Fields(stdout.String()) {
		if strings.HasPrefix(name, "Benchmark") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no benchmark function matches -test.bench=%s: nothing to count", b.GoTest.Bench)
	}
	return names, nil
}

// anchored is the pattern that selects the benchmark function name alone,
// and of its sub-benchmarks those the spec's pattern selects.
func (b *bench) anchored(name string) string {
	pattern := "^" + regexp.QuoteMeta(name) + "$"
	if _, rest, ok := strings.Cut(b.GoTest.Bench, "/"); ok {
		pattern += "/" + rest
	}
	return pattern
}

// countPerOp counts benchmark function name: its own instructions per
// operation, one value a repetition (perop.PerOp over a run at each of
// perop.Iterations), and the line counts of the first repetition's
// longest run less its shortest (perop.Difference).
func (b *bench) countPerOp(valgrind, name string) ([]float64, *linecounts.File, error) {
	var values []float64
	var diff *linecounts.File
	for rep := 1; rep <= b.GoTest.CountedRepetitions; rep++ {
		var runs [3]perop.Run
		var files [3]*linecounts.File
		for i, n := range perop.Iterations {
			f, err := b.countIterations(valgrind, name, n, fmt.Sprintf("%s.%d.%d", name, rep, n))
			if err != nil {
				return nil, nil, err
			}
			runs[i], files[i] = perop.Run{Iterations: n, Own: perop.Own(f)}, f
		}
		v, err := perop.PerOp(name, runs)
		if err != nil {
			return nil, nil, err
		}
		values = append(values, v)
		fmt.Fprintf(os.Stderr, "perf: %s: %.1f own instructions an iteration (own instructions %d, %d, %d)\n",
			name, v, runs[0].Own, runs[1].Own, runs[2].Own)
		if rep == 1 {
			if diff, err = perop.Difference(files[2], files[0]); err != nil {
				return nil, nil, err
			}
		}
	}
	return values, diff, nil
}

// countIterations runs benchmark function name for n iterations under
// Cachegrind (one P, as a server is counted: the testing package's
// goroutines then meet the same way run after run) and reads its counts
// per line; its files are named after stem, and removed once read. A run
// that did not run the benchmark n times (skipped, failed, a pattern that
// selects nothing) is an error.
func (b *bench) countIterations(valgrind, name string, n int, stem string) (*linecounts.File, error) {
	raw, output := b.outPath(stem+".cachegrind.out"), b.outPath(stem+".output.txt")
	defer os.Remove(raw)
	defer os.Remove(output)
	f, err := os.Create(output)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	args := []string{"-test.run=^$", "-test.bench=" + b.anchored(name), "-test.benchtime=" + strconv.Itoa(n) + "x", "-test.count=1"}
	run := cachegrind.Run{Valgrind: valgrind, Program: b.binary, Args: args, GoProgram: true,
		Env: append(os.Environ(), "GOMAXPROCS=1"), Dir: b.runfiles, Out: raw, Stdout: f}
	if _, err := run.Count(); err != nil {
		return nil, err
	}
	printed, err := os.ReadFile(output)
	if err != nil {
		return nil, err
	}
	ran := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `(/\S*)?(-\d+)?\s+` + strconv.Itoa(n) + `\s`)
	if !ran.Match(printed) {
		return nil, fmt.Errorf("%s did not run %d iterations under Cachegrind (skipped, failed, or no line for it); it printed:\n%s", name, n, printed)
	}
	in, err := os.Open(raw)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	lines, err := linecounts.FromCachegrind(in, raw, []string{b.runfiles})
	if err != nil {
		return nil, err
	}
	return lines, needSymbols(lines.Counts(), raw)
}
