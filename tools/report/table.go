package main

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"
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

	// SpeedUp is the median real time of the study's first benchmark over
	// this one's, the first being stage 1 of the same language in the
	// Havlak study (havlak1, havlak1cc); 0 without one.
	SpeedUp float64
	// Counterpart is the same stage in the other language (havlak6 and
	// havlak6cc), and GoOverCC the Go stage's median real time over the
	// C++ one's; empty and 0 without one.
	Counterpart string
	GoOverCC    float64

	Compared *Comparison // against the baseline; nil without one
}

// Rows summarises results; the stage-1 and counterpart ratios come from
// the other results.
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
	firstOfStudy := map[string]*Row{}
	for _, row := range rows {
		if firstOfStudy[row.Study()] == nil {
			firstOfStudy[row.Study()] = row
		}
	}
	for _, row := range rows {
		base := firstOfStudy[row.Study()]
		if row.Study() == havlakStudy {
			base = byName["havlak1"]
			if row.Kind == "cc" {
				base = byName["havlak1cc"]
			}
		}
		if base != nil && row.Real.Median > 0 {
			row.SpeedUp = base.Real.Median / row.Real.Median
		}
		if row.Study() != havlakStudy {
			continue
		}
		goName, ccName := row.Name, row.Name+"cc"
		if row.Kind == "cc" {
			goName, ccName = strings.TrimSuffix(row.Name, "cc"), row.Name
			row.Counterpart = goName
		} else {
			row.Counterpart = ccName
		}
		goRow, ccRow := byName[goName], byName[ccName]
		if goRow == nil || ccRow == nil || goRow.Kind != "go" || ccRow.Kind != "cc" {
			row.Counterpart = ""
			continue
		}
		if ccRow.Real.Median > 0 {
			row.GoOverCC = goRow.Real.Median / ccRow.Real.Median
		}
	}
	return rows
}

// havlakStudy is the study of the article's table: speed-ups over stage
// 1 of each language, and Go against C++.
const havlakStudy = "Havlak loop finding"

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
	// Note explains a comparison that could not be made.
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

// Compare fills in each row's comparison with the baseline result of the
// same name, and returns the rows whose real time regressed beyond
// threshold or whose maximum RSS regressed beyond rssThreshold.
func Compare(rows []*Row, baseline []*Result, threshold, rssThreshold float64) (regressed []*Row) {
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
		switch {
		case base == nil:
			row.Compared = &Comparison{Note: "not in the baseline"}
		case len(base.Runs) < MinRuns || len(row.Runs) < MinRuns:
			row.Compared = &Comparison{Note: fmt.Sprintf("%d and %d runs: too few to compare (%d each needed)",
				len(base.Runs), len(row.Runs), MinRuns)}
		default:
			c := &Comparison{
				Real:   change(base.Real, row.Real),
				CPU:    change(base.CPUTime, row.CPUTime),
				MaxRSS: change(base.MaxRSS, row.MaxRSS),
			}
			c.Regressed = c.Real.Significant && c.Real.Delta > threshold ||
				c.MaxRSS.Significant && c.MaxRSS.Delta > rssThreshold
			row.Compared = c
			if c.Regressed {
				regressed = append(regressed, row)
			}
		}
	}
	return regressed
}
