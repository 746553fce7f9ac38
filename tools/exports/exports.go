// Package exports writes the lab's results (tools/result) in the formats
// other tools read, so that a team that already uses one of them needs no
// converter of its own (docs/history.md, "Exports"):
//
//	gobench      the Go benchmark format (golang.org/x/perf/benchfmt), with
//	             configuration lines (commit, machine, toolchains, workload)
//	             and Unit lines (better=, assume=exact for exact figures),
//	             which benchstat reads
//	bmf          Bencher Metric Format JSON: benchmark → measure →
//	             {value, lower_value, upper_value}
//	gab          github-action-benchmark's customSmallerIsBetter JSON: the
//	             figures that are better lower
//	gab-bigger   its customBiggerIsBetter JSON: the figures that are better
//	             higher (a server's throughput), which the other file leaves
//	             out
//	openmetrics  the OpenMetrics text exposition of the server benchmarks'
//	             figures (throughput, latency), a gauge each
//
// A format is added in one place: its exporter's file here and its entry
// in Formats (name, the night's file, whether it describes one run, the
// exporter). `history export` and the nightly job read the registry; no
// other list of formats exists.
//
// Each exporter is a small function over the one result type: it lists a
// result's figures with result.Figures, as the history does, and never
// reads another exporter's output. bmf, gab, gab-bigger and openmetrics
// describe one run of the suite (Bencher's report, the action's data
// point, a scrape), so they refuse results of more than one commit or
// environment, or a benchmark twice; gobench takes any, each result under
// its own configuration lines.
//
// Everything in a result is untrusted: names are checked (result.CheckName)
// and made valid for each format or refused, values escaped, never
// interpreted.
package exports

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"havlak-lab/tools/result"
)

// An Input is one result to export, with its files (a Go benchmark's lines
// are in one of them).
type Input struct {
	Result  *result.Result
	Outputs result.Outputs
}

// A Set is what one export writes.
type Set struct {
	Inputs []Input
	// Figure keeps only the figures of that name ("own_instructions",
	// "throughput", a Go benchmark's "Naive-2"); "" keeps them all.
	Figure string
}

// The formats' names, for callers that write one format by name.
const (
	GoBench     = "gobench"
	BMF         = "bmf"
	GAB         = "gab"
	GABBigger   = "gab-bigger"
	OpenMetrics = "openmetrics"
)

// A Format is everything the lab knows of an export format: the
// registry below is the one place a format is added, and `history
// export` (its --format and usage) and the nightly job (its files) are
// made from it.
type Format struct {
	// Name is what `history export --format` takes.
	Name string
	// FileName is the night's file of it, under artifacts/exports/.
	FileName string
	// PerEnvironment: the format describes one run of the suite (one
	// commit, one environment), so a sharded night gets one file per
	// environment, never its results mixed.
	PerEnvironment bool
	// Write encodes the set; the set's figure, when it has one, is known
	// to name figures of it.
	Write func(Set) ([]byte, error)
}

// Formats are every format, in the order the docs give them.
var Formats = []Format{
	{Name: GoBench, FileName: "results.bench.txt", Write: goBench},
	{Name: BMF, FileName: "results.bmf.json", PerEnvironment: true, Write: bencher},
	{Name: GAB, FileName: "results.gab-smaller.json", PerEnvironment: true,
		Write: func(set Set) ([]byte, error) { return actionBenchmark(set, result.LowerIsBetter) }},
	{Name: GABBigger, FileName: "results.gab-bigger.json", PerEnvironment: true,
		Write: func(set Set) ([]byte, error) { return actionBenchmark(set, result.HigherIsBetter) }},
	{Name: OpenMetrics, FileName: "servers.openmetrics.txt", PerEnvironment: true, Write: openMetrics},
}

// Names are the formats' names, in Formats' order.
func Names() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return names
}

// Usage is the formats' names as a usage line gives a choice:
// "gobench|bmf|...".
func Usage() string { return strings.Join(Names(), "|") }

// Lookup is the format of that name, or an error naming the formats.
func Lookup(name string) (Format, error) {
	for _, f := range Formats {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("format %q: want one of %s", name, strings.Join(Names(), ", "))
}

// Write writes set in the format of that name to w.
func Write(w io.Writer, format string, set Set) error {
	f, err := Lookup(format)
	if err != nil {
		return err
	}
	if set.Figure != "" {
		figs, err := set.figures()
		if err != nil {
			return err
		}
		if len(figs) == 0 {
			return fmt.Errorf("no figure named %q in these %d results", set.Figure, len(set.Inputs))
		}
	}
	data, err := f.Write(set)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// A figure is one figure of one input, for the exporters.
type figure struct {
	in *Input
	result.Figure
}

// label names the figure for errors: "havlak6 own_instructions".
func (f figure) label() string { return f.in.Result.Benchmark.Name + " " + f.Name }

// figures returns the figures of set's inputs that have values (one that
// could not be measured is no figure of another format), in the inputs'
// order, after checking each input's name.
func (set Set) figures() ([]figure, error) {
	var all []figure
	for i := range set.Inputs {
		in := &set.Inputs[i]
		if err := result.CheckName(in.Result.Benchmark.Name); err != nil {
			return nil, fmt.Errorf("benchmark %q: %w", in.Result.Benchmark.Name, err)
		}
		figs, err := result.Figures(in.Result, in.Outputs)
		if err != nil {
			return nil, err
		}
		for _, f := range figs {
			if len(f.Values) > 0 && (set.Figure == "" || f.Name == set.Figure) {
				all = append(all, figure{in, f})
			}
		}
	}
	return all, nil
}

// sorted returns set's inputs ordered by benchmark name, workload, then
// start, so that an export does not depend on the order results were
// found in.
func (set Set) sorted() Set {
	inputs := slices.Clone(set.Inputs)
	slices.SortStableFunc(inputs, func(a, b Input) int {
		return cmp.Or(cmp.Compare(a.Result.Benchmark.Name, b.Result.Benchmark.Name),
			cmp.Compare(a.Result.Benchmark.Workload.Name, b.Result.Benchmark.Workload.Name),
			cmp.Compare(a.Result.Environment.Started, b.Result.Environment.Started))
	})
	return Set{Inputs: inputs, Figure: set.Figure}
}

// oneRun checks that set holds one run of the suite: one commit, one
// environment, and each benchmark once (on one workload). format names
// the format in its errors.
func (set Set) oneRun(format string) error {
	if len(set.Inputs) == 0 {
		return fmt.Errorf("%s: no results to export", format)
	}
	first := set.Inputs[0].Result
	workloads := map[string]string{}
	for _, in := range set.Inputs {
		r := in.Result
		var other string
		workload, seen := workloads[r.Benchmark.Name]
		switch {
		case r.Environment.Source.Commit != first.Environment.Source.Commit:
			other = fmt.Sprintf("commits %s and %s (select one with --commit)", first.Environment.Source.Commit, r.Environment.Source.Commit)
		case result.EnvironmentKey(r.Environment) != result.EnvironmentKey(first.Environment):
			other = fmt.Sprintf("environments %s and %s (select one with --env)", result.EnvironmentKey(first.Environment), result.EnvironmentKey(r.Environment))
		case seen && workload != r.Benchmark.Workload.Name:
			other = fmt.Sprintf("benchmark %s on workloads %s and %s (select one with --workload)", r.Benchmark.Name, workload, r.Benchmark.Workload.Name)
		case seen:
			other = fmt.Sprintf("benchmark %s twice (measured twice at commit %s)", r.Benchmark.Name, r.Environment.Source.Commit)
		}
		if other != "" {
			return fmt.Errorf("%s describes one run of the suite, and these results are of %s", format, other)
		}
		workloads[r.Benchmark.Name] = r.Benchmark.Workload.Name
	}
	return nil
}

// summary is a figure's median, smallest and largest value.
func summary(values []float64) (median, lo, hi float64) {
	sample := result.NewSample(values)
	lo, median, hi = sample.Min, sample.Median, sample.Max
	return median, lo, hi
}
