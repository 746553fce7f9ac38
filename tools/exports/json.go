package exports

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"havlak-lab/tools/result"
)

// Bencher's limits on the names of a benchmark and of a measure.
const (
	maxBencherBenchmark = 1024
	maxBencherMeasure   = 64
)

// names returns the benchmark and the measure f is in the JSON formats: a
// program's or server's figure is measure NAME of benchmark BENCHMARK
// ("havlak6", "own_instructions"); a Go benchmark's line is benchmark
// RESULT/LINE and its unit the measure ("explodepath/Naive/path=one-2",
// "sec/op").
func names(f figure) (benchmark, measure string) {
	r := f.in.Result
	if r.Benchmark.Kind == result.KindGoTest && r.Metric(f.Name) == nil {
		return r.Benchmark.Name + "/" + f.Name, f.Unit
	}
	return r.Benchmark.Name, f.Name
}

// A bencherMetric is a measure's value in Bencher Metric Format.
type bencherMetric struct {
	Value      float64 `json:"value"`
	LowerValue float64 `json:"lower_value"`
	UpperValue float64 `json:"upper_value"`
}

// bencher writes set in Bencher Metric Format: for each benchmark, each
// measure's median over its runs (value) and its smallest and largest
// (lower_value, upper_value). One set is one Bencher report: one commit,
// environment (testbed) and workload.
func bencher(set Set) ([]byte, error) {
	if err := set.oneRun(BMF); err != nil {
		return nil, err
	}
	figs, err := set.figures()
	if err != nil {
		return nil, err
	}
	report := map[string]map[string]bencherMetric{}
	for _, f := range figs {
		benchmark, measure := names(f)
		switch {
		case len(benchmark) > maxBencherBenchmark:
			return nil, fmt.Errorf("%s: benchmark name of %d bytes: Bencher takes at most %d", f.label(), len(benchmark), maxBencherBenchmark)
		case len(measure) > maxBencherMeasure || measure == "":
			return nil, fmt.Errorf("%s: measure %q: Bencher wants 1 to %d bytes", f.label(), measure, maxBencherMeasure)
		}
		if report[benchmark] == nil {
			report[benchmark] = map[string]bencherMetric{}
		}
		if _, twice := report[benchmark][measure]; twice {
			return nil, fmt.Errorf("%s: benchmark %s has measure %s twice", f.label(), benchmark, measure)
		}
		median, lo, hi := summary(f.Values)
		report[benchmark][measure] = bencherMetric{Value: median, LowerValue: lo, UpperValue: hi}
	}
	return marshal(report)
}

// An actionEntry is one figure in github-action-benchmark's custom JSON.
type actionEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// actionBenchmark writes the figures of set that are better in direction
// better (result.LowerIsBetter: the action's customSmallerIsBetter tool;
// HigherIsBetter: customBiggerIsBetter) as the action's custom JSON: each
// named "BENCHMARK MEASURE" (names), its median as value, half its range
// as range ("± 0.0021") and its runs, range, source and commit as extra.
// The action reads one direction per file, so a figure of the other
// direction goes in the other file, never here with its sense reversed.
func actionBenchmark(set Set, better string) ([]byte, error) {
	format := map[string]string{result.LowerIsBetter: GAB, result.HigherIsBetter: GABBigger}[better]
	if err := set.oneRun(format); err != nil {
		return nil, err
	}
	figs, err := set.sorted().figures()
	if err != nil {
		return nil, err
	}
	entries := []actionEntry{}
	seen := map[string]bool{}
	for _, f := range figs {
		if f.Better != better {
			continue
		}
		benchmark, measure := names(f)
		name := benchmark + " " + measure
		if seen[name] {
			return nil, fmt.Errorf("%s: %s twice", f.label(), name)
		}
		seen[name] = true
		median, lo, hi := summary(f.Values)
		commit := f.in.Result.Environment.Source.Commit
		if commit == "" {
			commit = "unknown"
		}
		entries = append(entries, actionEntry{
			Name:  name,
			Unit:  f.Unit,
			Value: median,
			Range: "± " + strconv.FormatFloat((hi-lo)/2, 'g', 6, 64),
			Extra: fmt.Sprintf("median of %s (%s to %s); %s; commit %s", runs(len(f.Values)), number(lo), number(hi),
				strings.TrimSpace(f.Source), commit),
		})
	}
	return marshal(entries)
}

// runs says how many runs n is: "1 run", "5 runs".
func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return strconv.Itoa(n) + " runs"
}

func marshal(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	return append(data, '\n'), err
}

// number formats v for people, exactly.
func number(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
