package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

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
	figures, err := runtimemetrics.ReadFile(p.outPath(runtimeMetricsFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		err = errors.New("the program recorded none: it ends without internal/cli.Exit")
	case err == nil && len(figures) != runs:
		err = fmt.Errorf("%d runs recorded figures, not %d", len(figures), runs)
	}
	metric := func(name, unit string, gated bool, value func(runtimemetrics.Figures) uint64) result.Metric {
		m := result.Metric{Name: name, Unit: unit, Source: source, Gated: gated}
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
	// A Go program's allocations are not exact from run to run: the order
	// in which it ranges over maps is random, and with it how its slices
	// grow (havlak6, quick workload: 1.2% apart over 5 runs, 0.8% with
	// GOGC=off; docs/noise.md). Shown, not gated: the gate judges the
	// program's own instructions, which do not move. How often the
	// collector runs depends on timing.
	return []result.Metric{
		metric("alloc_bytes", "bytes", false, func(f runtimemetrics.Figures) uint64 { return f.AllocBytes }),
		metric("alloc_objects", "objects", false, func(f runtimemetrics.Figures) uint64 { return f.AllocObjects }),
		metric("gc_cycles", "cycles", false, func(f runtimemetrics.Figures) uint64 { return f.GCCycles }),
		metric("heap_mapped_bytes", "bytes", false, func(f runtimemetrics.Figures) uint64 { return f.HeapMappedBytes }),
	}
}

// tcmallocHeader is the first line of a gperftools heap profile: objects
// and bytes in use, then allocated since the start.
var tcmallocHeader = regexp.MustCompile(`^heap profile: *(\d+): *(\d+) \[ *(\d+): *(\d+)\] @`)

// tcmallocMetrics reads the allocation counts of the heap-profiled run of a
// C or C++ program from its raw heap profile: tcmalloc's heap profiler
// records every allocation, so they are exact.
func (p *program) tcmallocMetrics() []result.Metric {
	const source = "tcmalloc heap profile, the heap-profiled run"
	objects := result.Metric{Name: "alloc_objects", Unit: "objects", Source: source, Gated: true, Threshold: countThreshold, Exact: true}
	bytes := result.Metric{Name: "alloc_bytes", Unit: "bytes", Source: source, Gated: true, Threshold: countThreshold, Exact: true}
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
// instruction counts.
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
			Valgrind: valgrind, Program: p.binary, Args: args, GoProgram: p.Profiler == "go",
			Out: p.outPath(fmt.Sprintf("cachegrind.%d.out", i)), Stdout: f,
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
	source := fmt.Sprintf("cachegrind, %d counted runs: %s", c.Repetitions, strings.Join(append([]string{filepath.Base(p.binary)}, c.Args...), " "))
	return cachegrind.Metrics(counts, p.Profiler == "go", source, countThreshold), nil
}

// printMetrics prints the low-noise figures, a line each: median and the
// spread of the runs.
func printMetrics(metrics []result.Metric) {
	for _, m := range metrics {
		if m.Unavailable != "" {
			fmt.Fprintf(os.Stderr, "perf: %s: unavailable: %s\n", m.Name, m.Unavailable)
			continue
		}
		lo, median, hi := result.MinMedianMax(m.Values)
		fmt.Fprintf(os.Stderr, "perf: %s %.0f %s (%d runs, %.0f–%.0f, spread %.3f%%)\n",
			m.Name, median, m.Unit, len(m.Values), lo, hi, 100*result.Spread(m.Values))
	}
}
