package result

import (
	"slices"
	"strings"
)

// A Declared figure is one the lab measures of every benchmark of a kind
// (a program's timed runs, a server's rounds of load), declared once, in
// the tables below: how it is judged (Class, Gated), what it costs, and
// how it is shown (Charted, Headline, Column). Every consumer reads it
// here: the comparison's gate (Figure.Gated), the nightly's charts and
// change-point search, the dashboard's and the summaries' first figure,
// the report's tables. A new figure of runs or rounds is a row, and its
// producer.
type Declared struct {
	Name, Unit string
	Class      Class
	Cost       string
	// Gated: the gate judges it, whatever the benchmark declares: what a
	// program is measured for (its real time, its peak memory), or a
	// server (its throughput, its tail latency). The others are shown.
	Gated bool
	// Charted: it gets a trend chart and a change-point search over the
	// history, as every gated metric does.
	Charted bool
	// Headline: a benchmark's pages open on it and its values lead with
	// it.
	Headline bool
	// Column: how the report's table of the benchmark's kind shows it.
	Column Column
}

// A Column is how the report's tables show a declared figure: a column of
// its own, in the order of the table below, and its name in the column
// that compares each benchmark with the baseline. A gated figure has
// both, so that what fails the gate is seen and named.
type Column struct {
	// Header heads the figure's column, with the unit it is shown in
	// ("user s", "p99 ms"); "" for a figure without a column.
	Header string
	// Scale turns a value in the figure's unit into the column's (1/1024:
	// KiB to MiB; 1000: s to ms); 0 is 1.
	Scale float64
	// Digits are the decimals shown.
	Digits int
	// Label names the figure in the comparison with the baseline ("time",
	// "p99"); "" leaves it out there.
	Label string
}

// Shown is v, a value in the figure's unit, in the column's.
func (c Column) Shown(v float64) float64 {
	if c.Scale == 0 {
		return v
	}
	return v * c.Scale
}

// The names of the declared figures, one for each row of the tables
// below: the consumers that single one out (the report's real-time
// column, a flag's help) name it by these.
const (
	FigureRealSeconds = "real_seconds"
	FigureUserSeconds = "user_seconds"
	FigureSysSeconds  = "sys_seconds"
	FigureCPUSeconds  = "cpu_seconds"
	FigureMaxRSSKiB   = "max_rss_kib"
	FigureMinorFaults = "minor_faults"
	FigureThroughput  = "throughput"
	FigureLatencyMean = "latency_mean"
	FigureLatencyP50  = "latency_p50"
	FigureLatencyP90  = "latency_p90"
	FigureLatencyP95  = "latency_p95"
	FigureLatencyP99  = "latency_p99"
	FigureLatencyMax  = "latency_max"
)

// The names of the metrics the lab's producers record in result.json
// (tools/perf/cachegrind, tools/perf/perfrun), declared here beside the
// figures of runs and rounds so that a consumer (the bisection, the
// suite, the history's help) names them through this package and a new
// one is a row here and its producer.
const (
	// Cachegrind's instruction counts: every instruction of the process,
	// and those outside the Go runtime.
	MetricInstructions    = "instructions"
	MetricOwnInstructions = "own_instructions"
	// Cachegrind's cache simulation.
	MetricD1Misses        = "d1_misses"
	MetricLLMisses        = "ll_misses"
	MetricEstimatedCycles = "estimated_cycles"
	MetricD1ReadMisses    = "d1_read_misses"
	MetricD1WriteMisses   = "d1_write_misses"
	MetricLLReadMisses    = "ll_read_misses"
	MetricLLWriteMisses   = "ll_write_misses"
	MetricI1Misses        = "i1_misses"
	// A Go program's runtime figures over its timed runs.
	MetricAllocBytes      = "alloc_bytes"
	MetricAllocObjects    = "alloc_objects"
	MetricGCCycles        = "gc_cycles"
	MetricHeapMappedBytes = "heap_mapped_bytes"
	// A Go program's allocations in its counted runs, the collector off.
	MetricCountedAllocBytes   = "counted_alloc_bytes"
	MetricCountedAllocObjects = "counted_alloc_objects"
	// A program's system calls, from /proc/PID/io.
	MetricReadSyscalls  = "read_syscalls"
	MetricWriteSyscalls = "write_syscalls"
	// A server's figures per request.
	MetricOwnInstructionsPerRequest = "own_instructions_per_request"
	MetricAllocObjectsPerRequest    = "alloc_objects_per_request"
	MetricAllocBytesPerRequest      = "alloc_bytes_per_request"
	MetricSyscallsPerRequest        = "syscalls_per_request"
	MetricMutexWait                 = "mutex_wait_per_cpu_second"
	MetricOwnContentions            = "own_lock_contentions_per_request"
)

// UnitInstructions is the unit of an instruction count: Cachegrind's
// counts, a bisection's boundary, a sweep's fitted figure.
const UnitInstructions = "instructions"

// A runFigure is a declared figure of a program's timed runs, and its
// value in a run: ok is false when the run did not record it (a figure
// recorded in every run, or it is no series of runs).
type runFigure struct {
	Declared
	value func(Run) (v float64, ok bool)
}

// A roundFigure is a declared figure of a server's rounds of load, and
// its value in a round: ok is false when the round did not record it (a
// figure older records lack).
type roundFigure struct {
	Declared
	value func(LoadRound) (v float64, ok bool)
}

// always is a run's or a round's value that every one records.
func always[T any](f func(T) float64) func(T) (float64, bool) {
	return func(r T) (float64, bool) { return f(r), true }
}

// programFigures are the figures xtime measures of every timed run.
var programFigures = []runFigure{
	{Declared{Name: FigureRealSeconds, Unit: "s", Class: ClassTiming, Cost: CostTime, Gated: true, Charted: true, Headline: true,
		Column: Column{Header: "real s", Digits: 2, Label: "time"}},
		always(func(r Run) float64 { return r.RealSeconds })},
	{Declared{Name: FigureUserSeconds, Unit: "s", Class: ClassTiming, Cost: CostTime, Column: Column{Header: "user s", Digits: 2}},
		always(func(r Run) float64 { return r.UserSeconds })},
	{Declared{Name: FigureSysSeconds, Unit: "s", Class: ClassTiming, Cost: CostTime, Column: Column{Header: "sys s", Digits: 2}},
		always(func(r Run) float64 { return r.SysSeconds })},
	// CPU time beside real time, shown: when real time worsens and CPU
	// time does not, the machine was not the program's alone. The
	// comparison names it; user and sys have the columns.
	{Declared{Name: FigureCPUSeconds, Unit: "s", Class: ClassTiming, Cost: CostTime, Column: Column{Label: "CPU"}},
		always(func(r Run) float64 { return r.UserSeconds + r.SysSeconds })},
	{Declared{Name: FigureMaxRSSKiB, Unit: "KiB", Class: ClassMemory, Cost: CostMemory, Gated: true,
		Column: Column{Header: "max RSS MiB", Scale: 1.0 / 1024, Label: "RSS"}},
		always(func(r Run) float64 { return float64(r.MaxRSSKiB) })},
	// Pages touched for the first time: memory a run maps and uses.
	{Declared{Name: FigureMinorFaults, Unit: "faults", Class: ClassCount, Cost: CostMemory},
		func(r Run) (float64, bool) {
			if r.MinorFaults == nil {
				return 0, false
			}
			return float64(*r.MinorFaults), true
		}},
}

// serverFigures are the figures the load generator measures of every
// round.
var serverFigures = []roundFigure{
	{Declared{Name: FigureThroughput, Unit: "requests/s", Class: ClassTiming, Cost: CostTime, Gated: true, Charted: true, Headline: true,
		Column: Column{Header: "throughput req/s", Label: "throughput"}},
		always(func(r LoadRound) float64 { return r.Throughput })},
	{Declared{Name: FigureLatencyMean, Unit: "s", Class: ClassTiming, Cost: CostTime}, always(func(r LoadRound) float64 { return r.Latency.Mean })},
	{Declared{Name: FigureLatencyP50, Unit: "s", Class: ClassTiming, Cost: CostTime, Column: Column{Header: "p50 ms", Scale: 1e3, Digits: 3}},
		always(func(r LoadRound) float64 { return r.Latency.P50 })},
	{Declared{Name: FigureLatencyP90, Unit: "s", Class: ClassTiming, Cost: CostTime, Column: Column{Header: "p90 ms", Scale: 1e3, Digits: 3}},
		always(func(r LoadRound) float64 { return r.Latency.P90 })},
	// The tail short of p99's few slowest requests: steadier night to
	// night, so the tail latency charted and searched for change points.
	{Declared{Name: FigureLatencyP95, Unit: "s", Class: ClassTiming, Cost: CostTime, Gated: true, Charted: true,
		Column: Column{Header: "p95 ms", Scale: 1e3, Digits: 3, Label: "p95"}},
		func(r LoadRound) (float64, bool) {
			if r.Latency.P95 == nil {
				return 0, false
			}
			return *r.Latency.P95, true
		}},
	{Declared{Name: FigureLatencyP99, Unit: "s", Class: ClassTiming, Cost: CostTime, Gated: true,
		Column: Column{Header: "p99 ms", Scale: 1e3, Digits: 3, Label: "p99"}},
		always(func(r LoadRound) float64 { return r.Latency.P99 })},
	{Declared{Name: FigureLatencyMax, Unit: "s", Class: ClassTiming, Cost: CostTime, Column: Column{Header: "max ms", Scale: 1e3, Digits: 3}},
		always(func(r LoadRound) float64 { return r.Latency.Max })},
}

// FigureOwnInstructionsPerOp is a Go benchmark's own instructions per
// operation, counted by its count action under Cachegrind (package
// tools/perf/cachegrind/perop); a result has one for each benchmark
// function, named by PerBenchmark.
const FigureOwnInstructionsPerOp = "own_instructions_per_op"

// goTestFigures are the figures a go_test's count action measures of each
// of its benchmark functions: the work of one operation, outside the Go
// runtime, which moves by a few hundredths of a percent between runs
// (docs/measuring.md); a count, not exact.
var goTestFigures = []Declared{
	{Name: FigureOwnInstructionsPerOp, Unit: "instructions/op", Class: ClassCount, Cost: CostWork, Gated: true, Charted: true, Headline: true},
}

// PerBenchmark is the name of a go_test's figure (goTestFigures) of one
// benchmark function, named as its lines are without "Benchmark":
// "own_instructions_per_op/Spin".
func PerBenchmark(figure, benchmark string) string { return figure + "/" + benchmark }

// OfBenchmark splits a go_test's figure of one benchmark function
// (PerBenchmark's name) into its declared figure and the function's name;
// ok is false for any other name.
func OfBenchmark(name string) (figure, benchmark string, ok bool) {
	figure, benchmark, ok = strings.Cut(name, "/")
	if !ok || benchmark == "" || !slices.ContainsFunc(goTestFigures, func(d Declared) bool { return d.Name == figure }) {
		return "", "", false
	}
	return figure, benchmark, true
}

// Metric is the declared figure as a metric named name (the declared
// name, or PerBenchmark's), with values measured by source, gated (if it
// is) past threshold, the ceiling of its calibrated threshold.
func (d Declared) Metric(name, source string, values []float64, threshold float64) Metric {
	m := Metric{Name: name, Unit: d.Unit, Source: source, Values: values, Gated: d.Gated, Cost: d.Cost, Class: d.Class}
	if d.Gated {
		m.Threshold = threshold
	}
	return m
}

// Declarations are the declared figures of a benchmark of kind, in their
// order: a program's timed runs' (KindProgram), a server's rounds'
// (KindServer), a go_test's count's (KindGoTest); none of another kind.
func Declarations(kind string) []Declared {
	var all []Declared
	switch kind {
	case KindGoTest:
		all = append(all, goTestFigures...)
	case KindProgram:
		for _, f := range programFigures {
			all = append(all, f.Declared)
		}
	case KindServer:
		for _, f := range serverFigures {
			all = append(all, f.Declared)
		}
	}
	return all
}

// Declaration is the declared figure named name, if one is; a go_test's
// figure of one benchmark function (PerBenchmark) is its declared figure.
func Declaration(name string) (Declared, bool) {
	for _, f := range programFigures {
		if f.Name == name {
			return f.Declared, true
		}
	}
	for _, f := range serverFigures {
		if f.Name == name {
			return f.Declared, true
		}
	}
	family, _, _ := strings.Cut(name, "/")
	for _, d := range goTestFigures {
		if d.Name == family {
			return d, true
		}
	}
	return Declared{}, false
}

// Charted tells whether a figure gets a trend chart and a change-point
// search: a declared figure by its declaration, any other (a metric, a Go
// benchmark's line) when it is gated.
func Charted(name string, gated bool) bool {
	if d, ok := Declaration(name); ok {
		return d.Charted
	}
	return gated
}

// Headline is the figure among names that a benchmark's pages open on:
// the first declared a headline, else the first.
func Headline(names []string) string {
	i := slices.IndexFunc(names, func(name string) bool {
		d, ok := Declaration(name)
		return ok && d.Headline
	})
	switch {
	case i >= 0:
		return names[i]
	case len(names) > 0:
		return names[0]
	}
	return ""
}

// figure is the declared figure with its values, measured by source.
func (d Declared) figure(source string, values []float64) Figure {
	return Figure{Name: d.Name, Unit: d.Unit, Source: source, Gated: d.Gated, Better: BetterOf(d.Unit), Class: d.Class, Cost: d.Cost, Values: values}
}

// runFigures are the declared figures of runs that every run recorded.
func runFigures(runs []Run) []Figure {
	var figs []Figure
	for _, f := range programFigures {
		values := make([]float64, 0, len(runs))
		for _, run := range runs {
			if v, ok := f.value(run); ok {
				values = append(values, v)
			}
		}
		if len(values) == len(runs) {
			figs = append(figs, f.figure("xtime", values))
		}
	}
	return figs
}

// roundFigures are the declared figures of a server's rounds that every
// round recorded, measured by generator.
func roundFigures(rounds []LoadRound, generator string) []Figure {
	figs := make([]Figure, 0, len(serverFigures))
	for _, f := range serverFigures {
		values := make([]float64, 0, len(rounds))
		for _, r := range rounds {
			if v, ok := f.value(r); ok {
				values = append(values, v)
			}
		}
		if len(values) == len(rounds) {
			figs = append(figs, f.figure(generator, values))
		}
	}
	return figs
}
