package perfrun

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"havlak-lab/internal/numfmt"
	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// countThreshold is the smallest change of a count the gate reports
// (tools/verdict owns it).
const countThreshold = verdict.CountThreshold

// runtimeMetricsFile is where the Go programs' timed runs record their
// runtime figures.
const runtimeMetricsFile = "runtime-metrics.jsonl"

// goRuntimeMetrics turns the figures the timed runs of a Go program
// recorded into metrics, one value per run.
func (p *program) goRuntimeMetrics(runs int) []result.Metric {
	const source = "runtime/metrics, each timed run"
	figures, err := p.readRuntimeFigures(runtimeMetricsFile, runs)
	metric := func(name, unit, cost string, gated bool, value func(runtimemetrics.Figures) uint64) result.Metric {
		m := result.Metric{Name: name, Unit: unit, Source: source, Cost: cost, Gated: gated}
		if gated {
			m.Threshold = countThreshold
		}
		if err != nil {
			m.Gated, m.Threshold, m.Unavailable = false, 0, err.Error()
			return m
		}
		for _, f := range figures {
			m.Values = append(m.Values, float64(value(f)))
		}
		return m
	}
	// With the collector on, a Go program's allocations move from run to
	// run: how often it collects depends on timing, and each collection
	// allocates for its workers (havlak7: 368 to 374 objects over 5 runs).
	// Shown; the counted runs' allocations (countedAllocMetrics), with
	// the collector off, are the ones gated. How often the collector runs
	// depends on timing, and the heap it maps with it: shown only.
	return []result.Metric{
		metric(result.MetricAllocBytes, "bytes", result.CostMemoryManagement, false, func(f runtimemetrics.Figures) uint64 { return f.AllocBytes }),
		metric(result.MetricAllocObjects, "objects", result.CostMemoryManagement, false, func(f runtimemetrics.Figures) uint64 { return f.AllocObjects }),
		metric(result.MetricGCCycles, "cycles", result.CostMemoryManagement, false, func(f runtimemetrics.Figures) uint64 { return f.GCCycles }),
		metric(result.MetricHeapMappedBytes, "bytes", result.CostMemory, false, func(f runtimemetrics.Figures) uint64 { return f.HeapMappedBytes }),
	}
}

// readRuntimeFigures reads the runtime figures the program's runs
// recorded in the outputs' file name, one line per run.
func (p *program) readRuntimeFigures(name string, runs int) ([]runtimemetrics.Figures, error) {
	figures, err := runtimemetrics.ReadFile(p.outPath(name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		err = errors.New("the program recorded none: it ends without program.Exit or program.Record (havlak-lab/tools/perf/program)")
	case err == nil && len(figures) != runs:
		err = fmt.Errorf("%d runs recorded figures in %s, not %d", len(figures), name, runs)
	}
	return figures, err
}

// tcmallocHeader is the first line of a gperftools heap profile: objects
// and bytes in use, then allocated since the start.
var tcmallocHeader = regexp.MustCompile(`^heap profile: *(\d+): *(\d+) \[ *(\d+): *(\d+)\] @`)

// tcmallocMetrics reads the allocation counts of the heap-profiled run of a
// C or C++ program from its raw heap profile: tcmalloc's heap profiler
// records every allocation, so they are exact.
func (p *program) tcmallocMetrics() []result.Metric {
	const source = "tcmalloc heap profile, the heap-profiled run"
	objects := result.Metric{Name: result.MetricAllocObjects, Unit: "objects", Source: source, Cost: result.CostMemoryManagement, Gated: true, Threshold: countThreshold, Exact: true}
	bytes := result.Metric{Name: result.MetricAllocBytes, Unit: "bytes", Source: source, Cost: result.CostMemoryManagement, Gated: true, Threshold: countThreshold, Exact: true}
	allocated, err := readTcmallocHeader(p.outPath("heap.prof"))
	if err != nil {
		for _, m := range []*result.Metric{&objects, &bytes} {
			m.Gated, m.Threshold, m.Exact, m.Unavailable = false, 0, false, err.Error()
		}
	} else {
		objects.Values, bytes.Values = []float64{float64(allocated[0])}, []float64{float64(allocated[1])}
	}
	return []result.Metric{bytes, objects}
}

// readTcmallocHeader returns the objects and bytes allocated over a run
// from its heap profile's header.
func readTcmallocHeader(path string) ([2]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return [2]uint64{}, err
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	m := tcmallocHeader.FindStringSubmatch(line)
	if m == nil {
		return [2]uint64{}, fmt.Errorf("%s:1: not a gperftools heap profile header: %q", path, strings.TrimSpace(line))
	}
	objects, _ := strconv.ParseUint(m[3], 10, 64)
	bytes, _ := strconv.ParseUint(m[4], 10, 64)
	return [2]uint64{objects, bytes}, nil
}

// countedRuns runs the program under Cachegrind (package cachegrind), the
// spec's number of times, on the counted workload, and returns its
// instruction counts and the cache simulation's figures
// (simulatesCaches says which runs simulate the caches).
func (p *program) countedRuns() ([]result.Metric, error) {
	c := p.Counted
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		return nil, err
	}
	var expect *regexp.Regexp
	if c.Expect != "" {
		if expect, err = regexp.Compile(c.Expect); err != nil {
			return nil, fmt.Errorf("counted expect: %w", err)
		}
	}
	args := withOutputs(c.Args, p.out)
	// Only PATH: the sizes of other variables would move the counts
	// (CountEnvironment).
	env := CountEnvironment(os.Environ())
	if p.Profiler == "go" {
		env = append(env, runtimemetrics.EnvVar+"="+p.outPath(countedRuntimeMetricsFile))
	}
	var counts []cachegrind.Counts
	perRun := -1
	for i := 1; i <= c.Repetitions; i++ {
		fmt.Fprintf(os.Stderr, "perf: %s: counted run %d of %d (Cachegrind)\n", p.Benchmark.Name, i, c.Repetitions)
		output := fmt.Sprintf("counted.%d.output.txt", i)
		f, err := os.Create(p.outPath(output))
		if err != nil {
			return nil, err
		}
		ic, err := cachegrind.Run{
			Valgrind: valgrind, Program: p.binary, Args: args, GoProgram: p.Profiler == "go", Env: env,
			Out: p.outPath(countedOut(i)), Stdout: f, CacheSim: p.simulatesCaches(i),
		}.Count()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if expect != nil {
			data, _ := os.ReadFile(p.outPath(output))
			n := countMatches(data, expect)
			if n == 0 || perRun >= 0 && n != perRun {
				fmt.Fprintf(os.Stderr, "perf: %d lines of %s match '%s'; want as many as the first counted run's, at least 1:\n", n, output, c.Expect)
				os.Stderr.Write(data)
				return nil, errors.New("a counted run printed something else")
			}
			perRun = n
		}
		counts = append(counts, ic)
	}
	if err := p.keepLineCounts(); err != nil {
		return nil, err
	}
	source := fmt.Sprintf("cachegrind, %d counted runs: %s", c.Repetitions, strings.Join(append([]string{filepath.Base(p.named)}, c.Args...), " "))
	goProgram := p.Profiler == "go"
	metrics := append(cachegrind.Metrics(counts, goProgram, source, countThreshold),
		cachegrind.CacheMetrics(counts, goProgram, p.SteadyCacheMisses, source, countThreshold)...)
	if goProgram {
		metrics = append(metrics, p.countedAllocMetrics(c.Repetitions)...)
	}
	return metrics, nil
}

// countedRuntimeMetricsFile is where a Go program's counted runs record
// their runtime figures.
const countedRuntimeMetricsFile = "counted-runtime-metrics.jsonl"

// The names of a Go program's allocations in its counted runs.
const (
	metricCountedAllocBytes   = result.MetricCountedAllocBytes
	metricCountedAllocObjects = result.MetricCountedAllocObjects
)

// countedAllocMetrics are the allocations of a Go program's counted runs,
// made with the collector off and no heap profile sampling
// (cachegrind.GoEnv): then no collection's work allocates, and a program
// that allocates the same on the same input shows nearly the same counts
// run after run, read after every P's allocation cache is flushed
// (runtimemetrics.Read). Under Valgrind, whose threads run one at a time,
// the runtime starts threads as the timing makes it, each allocating about
// 6 objects: under a busy machine within 0.04% for havlak6, 1.4% for
// havlak7's 435 objects (docs/noise.md). They are gated when the
// benchmark declares them exact (exact_allocations, perf_benchmark); shown
// otherwise.
func (p *program) countedAllocMetrics(runs int) []result.Metric {
	figures, err := p.readRuntimeFigures(countedRuntimeMetricsFile, runs)
	source := "runtime/metrics, each counted run (GOGC=off, GODEBUG=memprofilerate=0)"
	figure := func(name, unit string, value func(runtimemetrics.Figures) uint64) result.Metric {
		m := result.Metric{Name: name, Unit: unit, Source: source, Cost: result.CostMemoryManagement}
		if err != nil {
			m.Unavailable = err.Error()
			return m
		}
		if p.ExactAllocations {
			m.Gated, m.Threshold = true, countThreshold
		}
		for _, f := range figures {
			m.Values = append(m.Values, float64(value(f)))
		}
		return m
	}
	return []result.Metric{
		figure(metricCountedAllocBytes, "bytes", func(f runtimemetrics.Figures) uint64 { return f.AllocBytes }),
		figure(metricCountedAllocObjects, "objects", func(f runtimemetrics.Figures) uint64 { return f.AllocObjects }),
	}
}

// simulatesCaches tells whether counted run i (from 1) also simulates the
// caches, which makes it 1.3 to 2 times slower (docs/noise.md): the first
// run always, every run under --config=perf. A C or C++ program's cache
// figures are exact, and a Go program's own move by about 0.1% from run
// to run, a tenth of the gate's threshold: one run per quick test keeps
// the default tests' time, and the perf tests record their spread.
func (p *program) simulatesCaches(i int) bool {
	return i == 1 || p.Build.Config == result.ConfigPerf
}

// printMetrics prints the low-noise figures, a line each: median and the
// spread of the runs.
func printMetrics(metrics []result.Metric) {
	for _, m := range metrics {
		if m.Unavailable != "" {
			fmt.Fprintf(os.Stderr, "perf: %s: unavailable: %s\n", m.Name, m.Unavailable)
			continue
		}
		sample := result.NewSample(m.Values)
		lo, median, hi := sample.Min, sample.Median, sample.Max
		fmt.Fprintf(os.Stderr, "perf: %s %s %s (%d runs, %s–%s, spread %.3f%%)\n",
			m.Name, numfmt.Number(median), m.Unit, len(m.Values), numfmt.Number(lo), numfmt.Number(hi), 100*result.NewSample(m.Values).Spread())
	}
}
