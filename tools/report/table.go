package main

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"

	"havlak-lab/tools/result"
)

// A Stat summarises one measure over a benchmark's runs.
type Stat struct {
	Median, Min, Max float64
	Values           []float64
}

func newStat(values []float64) Stat {
	if len(values) == 0 {
		return Stat{}
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return Stat{Median: median, Min: sorted[0], Max: sorted[n-1], Values: sorted}
}

// A Row is one benchmark in the report's table.
type Row struct {
	*Result
	Real, User, Sys Stat
	CPUTime         Stat // user + sys, run by run
	MaxRSS          Stat // MiB

	// SpeedUp is the median real time of the benchmark's declared
	// reference over this one's; 0 without one.
	SpeedUp float64
	// PairRatio is, for a benchmark with a counterpart in another language
	// (havlak6 and havlak6cc), the median real time of the pair's first
	// benchmark in the report's order over the second's, shown on both
	// rows; 0 without a counterpart.
	PairRatio float64

	Compared *Comparison // against the baseline; nil without one
}

// Rows summarises results; speed-ups and pair ratios come from the
// benchmarks the results declare as their reference and counterpart.
func Rows(results []*Result) []*Row {
	rows := make([]*Row, 0, len(results))
	byName := map[string]*Row{}
	for _, r := range results {
		row := &Row{Result: r}
		var real, user, sys, cpu, rss []float64
		for _, run := range r.Runs {
			real = append(real, run.RealSeconds)
			cpu = append(cpu, run.UserSeconds+run.SysSeconds)
			user = append(user, run.UserSeconds)
			sys = append(sys, run.SysSeconds)
			rss = append(rss, float64(run.MaxRSSKiB)/1024)
		}
		row.Real, row.User, row.Sys, row.CPUTime, row.MaxRSS = newStat(real), newStat(user), newStat(sys), newStat(cpu), newStat(rss)
		rows = append(rows, row)
		byName[r.Name] = row
	}
	position := map[*Row]int{}
	for i, row := range rows {
		position[row] = i
	}
	for _, row := range rows {
		if base := byName[row.Reference]; base != nil && row.Real.Median > 0 {
			row.SpeedUp = base.Real.Median / row.Real.Median
		}
		other := byName[row.Counterpart]
		if other == nil || other.Study != row.Study {
			continue
		}
		first, second := row, other
		if position[other] < position[row] {
			first, second = other, row
		}
		if second.Real.Median > 0 {
			row.PairRatio = first.Real.Median / second.Real.Median
		}
	}
	return rows
}

// The regression gate. A benchmark fails it when benchmath's Mann-Whitney
// U test finds its real time or its maximum RSS significantly different
// from the baseline's at Alpha (5 runs against 5 can show it: the smallest
// p is 0.008), and the median is worse by more than a threshold: 15% for
// real time, 10% for memory. docs/regressions.md has the measurements
// behind them: between two idle sessions the sub-second stages' medians
// moved by up to 9%, the longer ones' by 2 to 4%, and max RSS by 1 to 2%.
// CPU time (user + sys) is shown beside real time, not gated: when real
// time worsens and CPU time does not, the runner was not alone.
const (
	DefaultThreshold    = 0.15
	DefaultRSSThreshold = 0.10
	Alpha               = 0.05
	MinRuns             = 5
)

// A Comparison is a benchmark against its baseline.
type Comparison struct {
	Real, CPU, MaxRSS Change
	// Regressed: a change past the threshold that the U test confirms.
	Regressed bool
	// Made: the measures were compared.
	Made bool
	// Note explains a comparison that could not be made, or qualifies one.
	Note string
}

// A Change is one measure against its baseline.
type Change struct {
	Delta       float64 // relative change of the median, +0.10 = 10% worse
	P           float64 // Mann-Whitney U test's p-value
	Significant bool
}

func (c Change) String() string {
	if !c.Significant {
		return fmt.Sprintf("~ (%+.1f%%, p=%.3f)", 100*c.Delta, c.P)
	}
	return fmt.Sprintf("%+.1f%% (p=%.3f)", 100*c.Delta, c.P)
}

// A Gate is the regression gate's settings.
type Gate struct {
	// Threshold and RSSThreshold: the worsening of the median real time
	// and max RSS, as fractions, past which a significant change fails.
	Threshold, RSSThreshold float64
	// AllowEnvChange compares results whose environments differ.
	AllowEnvChange bool
}

// Compare fills in each row's comparison with the baseline result of the
// same name. It returns the rows whose real time or maximum RSS regressed
// beyond the gate's thresholds, and those whose environment differs from
// their baseline's (left uncompared unless the gate allows it).
func Compare(rows []*Row, baseline []*Result, gate Gate) (regressed, moved []*Row) {
	old := map[string]*Row{}
	for _, row := range Rows(baseline) {
		old[row.Name] = row
	}
	thresholds := &benchmath.Thresholds{CompareAlpha: Alpha}
	change := func(oldStat, newStat Stat) Change {
		cmp := benchmath.AssumeNothing.Compare(
			benchmath.NewSample(append([]float64(nil), oldStat.Values...), thresholds),
			benchmath.NewSample(append([]float64(nil), newStat.Values...), thresholds))
		c := Change{P: cmp.P, Significant: cmp.P < cmp.Alpha}
		if oldStat.Median > 0 {
			c.Delta = newStat.Median/oldStat.Median - 1
		}
		return c
	}
	for _, row := range rows {
		base := old[row.Name]
		var diffs []string
		if base != nil {
			for _, d := range result.Differences(base.Environment, row.Environment) {
				diffs = append(diffs, d.String())
			}
		}
		if len(diffs) > 0 {
			moved = append(moved, row)
		}
		switch {
		case base == nil:
			row.Compared = &Comparison{Note: "not in the baseline"}
		case len(base.Runs) < MinRuns || len(row.Runs) < MinRuns:
			row.Compared = &Comparison{Note: fmt.Sprintf("%d and %d runs: too few to compare (%d each needed)",
				len(base.Runs), len(row.Runs), MinRuns)}
		case len(diffs) > 0 && !gate.AllowEnvChange:
			row.Compared = &Comparison{Note: "not compared: another environment than the baseline's: " + strings.Join(diffs, ", ")}
		default:
			c := &Comparison{
				Made:   true,
				Real:   change(base.Real, row.Real),
				CPU:    change(base.CPUTime, row.CPUTime),
				MaxRSS: change(base.MaxRSS, row.MaxRSS),
			}
			c.Regressed = c.Real.Significant && c.Real.Delta > gate.Threshold ||
				c.MaxRSS.Significant && c.MaxRSS.Delta > gate.RSSThreshold
			if len(diffs) > 0 {
				c.Note = "environment changed: " + strings.Join(diffs, ", ")
			}
			row.Compared = c
			if c.Regressed {
				regressed = append(regressed, row)
			}
		}
	}
	return regressed, moved
}
