package result

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// The directions of a figure.
const (
	LowerIsBetter  = "lower"
	HigherIsBetter = "higher"
)

// BetterOf is the direction of a figure in unit: a rate (".../s") is
// better higher, everything else the lab measures (time, memory,
// instructions, allocations, latency) lower.
func BetterOf(unit string) string {
	if strings.HasSuffix(unit, "/s") {
		return HigherIsBetter
	}
	return LowerIsBetter
}

// A Class is how a figure is judged, as its producer knows from how it is
// measured: tools/verdict's Policy makes a figure's rule from its class.
type Class string

// The classes of figure.
const (
	// ClassCount: a count of work (instructions, allocations, cache
	// misses, system calls) that hardly moves between runs of the same
	// binary: judged against a small threshold and the runs' noise.
	ClassCount Class = "count"
	// ClassTiming: a time or a rate (real time, throughput, latency) that
	// moves by 10% and more on a shared machine: judged by the U test over
	// several runs a side.
	ClassTiming Class = "timing"
	// ClassMemory: the peak memory of a run, judged as a timing is with
	// its own threshold.
	ClassMemory Class = "memory"
	// ClassSampledCount: a Go benchmark line's allocations per operation,
	// the same run after run but for the runtime's background work: any
	// change the U test confirms.
	ClassSampledCount Class = "sampled_count"
	// ClassSampledTiming: a Go benchmark line's other figures (sec/op,
	// ...): past the threshold, the runs' noise and the U test.
	ClassSampledTiming Class = "sampled_timing"
)

// Classes are the classes of figure, the ones a metric may declare
// (Metric.Class) among them.
var Classes = []Class{ClassCount, ClassTiming, ClassMemory, ClassSampledCount, ClassSampledTiming}

// classNames lists Classes, for messages.
func classNames() string {
	names := make([]string, len(Classes))
	for i, c := range Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// A Figure is one quantity of a result, one value per run: what the
// history keeps and the exporters (tools/exports) write.
type Figure struct {
	Name, Unit, Source string
	Gated              bool
	Threshold          float64
	// Exact: the value is the same in every run of the same binary on the
	// same input (Metric.Exact); only metrics are ever exact.
	Exact  bool
	Better string // LowerIsBetter or HigherIsBetter
	Class  Class
	// Cost is the kind of cost it stands for (Metric.Cost), or "".
	Cost        string
	Unavailable string
	Values      []float64
}

// Figure is the metric as a figure of its result, of the class it
// declares (a count when it declares none).
func (m Metric) Figure() Figure {
	class := m.Class
	if class == "" {
		class = ClassCount
	}
	return Figure{Name: m.Name, Unit: m.Unit, Source: m.Source, Gated: m.Gated, Threshold: m.Threshold, Exact: m.Exact,
		Better: BetterOf(m.Unit), Class: class, Cost: m.Cost, Unavailable: m.Unavailable, Values: m.Values}
}

// MetricFigures are the figures of metrics, in their order.
func MetricFigures(metrics []Metric) []Figure {
	figs := make([]Figure, len(metrics))
	for i, m := range metrics {
		figs[i] = m.Figure()
	}
	return figs
}

// Figures lists every figure of r, whose files are out:
//
//   - its metrics, as they are (name, unit, source, gated, threshold,
//     exact, class: a count unless declared otherwise);
//   - kind "program": the successful timed runs' figures as declared.go
//     declares them (real_seconds, user_seconds, sys_seconds, cpu_seconds,
//     max_rss_kib, minor_faults), source "xtime", and each perf counter
//     (unit "count", source "perf_event_open");
//   - kind "server": each measured round's figures as declared.go
//     declares them (throughput, latency_mean ... latency_max), source the
//     load generator;
//   - kind "go_test": each benchmark line of the go_bench file, one
//     figure per benchmark name and unit as benchfmt reads them (name
//     without "Benchmark": "Naive-2"; units sec/op, B/op, allocs/op, ...),
//     one value per line, source "go test"; its allocations per operation
//     (B/op, allocs/op) gated; a go_test's count has no go_bench file, and
//     its own instructions per operation (FigureOwnInstructionsPerOp) are
//     metrics.
//
// The declared figures are gated as declared (a program's real time and
// peak memory, a server's throughput and p99 latency); of the others, only
// metrics and Go benchmark lines' allocations are ever gated. A name and
// unit given twice is an error.
func Figures(r *Result, out Outputs) ([]Figure, error) {
	figs := MetricFigures(r.Metrics)
	if runs := r.Timing.Successful(); len(runs) > 0 {
		figs = append(figs, runFigures(runs)...)
		figs = append(figs, counterFigures(runs)...)
	}
	if s := r.Server; s != nil && len(s.Rounds) > 0 {
		figs = append(figs, roundFigures(s.Rounds, s.Load.Generator)...)
	}
	if r.Benchmark.Kind == KindGoTest && r.GoBench != "" {
		lines, err := goBenchFigures(r.GoBench, out)
		if err != nil {
			return nil, err
		}
		figs = append(figs, lines...)
	}
	seen := map[[2]string]bool{}
	for _, f := range figs {
		k := [2]string{f.Name, f.Unit}
		if seen[k] {
			return nil, fmt.Errorf("%s: figure %s (%s) given twice", out.Path(FileName), f.Name, f.Unit)
		}
		seen[k] = true
	}
	return figs, nil
}

// GoBench reads the Go benchmark lines of r's go_bench file in out,
// refusing a file without any or with a syntax error.
func GoBench(r *Result, out Outputs) ([]*benchfmt.Result, benchfmt.UnitMetadataMap, error) {
	data, err := out.ReadFile(r.GoBench)
	if err != nil {
		return nil, nil, err
	}
	return ReadGoBench(data, out.Path(r.GoBench))
}

// ReadGoBench reads the Go benchmark lines of data, the file name (which
// errors carry, with the line), refusing data without any or with a
// syntax error.
func ReadGoBench(data []byte, name string) ([]*benchfmt.Result, benchfmt.UnitMetadataMap, error) {
	reader := benchfmt.NewReader(bytes.NewReader(data), name)
	var lines []*benchfmt.Result
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, nil, rec
		case *benchfmt.Result:
			lines = append(lines, rec.Clone())
		}
	}
	if err := reader.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(lines) == 0 {
		return nil, nil, fmt.Errorf("%s: no benchmark lines", name)
	}
	return lines, reader.Units(), nil
}

// counterFigures are the perf events counted in every one of runs.
func counterFigures(runs []Run) []Figure {
	counted := map[string]int{}
	for _, run := range runs {
		for event := range run.Counters {
			counted[event]++
		}
	}
	var events []string
	for event, n := range counted {
		if n == len(runs) {
			events = append(events, event)
		}
	}
	slices.Sort(events)
	figs := make([]Figure, 0, len(events))
	for _, event := range events {
		values := make([]float64, len(runs))
		for i, r := range runs {
			values[i] = float64(r.Counters[event])
		}
		figs = append(figs, Figure{Name: event, Unit: "count", Source: "perf_event_open", Better: LowerIsBetter, Class: ClassCount, Cost: CostTime, Values: values})
	}
	return figs
}

// goBenchFigures reads the Go benchmark lines of file in out.
func goBenchFigures(file string, out Outputs) ([]Figure, error) {
	lines, units, err := GoBench(&Result{GoBench: file}, out)
	if err != nil {
		return nil, err
	}
	var figs []Figure
	index := map[[2]string]int{}
	for _, rec := range lines {
		for _, v := range rec.Values {
			k := [2]string{rec.Name.String(), v.Unit}
			i, ok := index[k]
			if !ok {
				better := BetterOf(v.Unit)
				switch units.GetBetter(v.Unit) {
				case 1:
					better = HigherIsBetter
				case -1:
					better = LowerIsBetter
				}
				i = len(figs)
				index[k] = i
				class := GoBenchClass(v.Unit)
				// Allocation per operation is the same from run to run of
				// the same code, so any change the U test confirms is the
				// code's: gated. Time per operation on a shared runner is
				// shown (docs/studies.md).
				figs = append(figs, Figure{Name: k[0], Unit: v.Unit, Source: "go test", Better: better, Class: class,
					Gated: class == ClassSampledCount})
			}
			figs[i].Values = append(figs[i].Values, v.Value)
		}
	}
	return figs, nil
}

// GoBenchClass is the class of a Go benchmark line's figure in unit:
// allocations per operation (testing's B/op and allocs/op) are sampled
// counts, every other unit a sampled timing.
func GoBenchClass(unit string) Class {
	if unit == "B/op" || unit == "allocs/op" {
		return ClassSampledCount
	}
	return ClassSampledTiming
}
