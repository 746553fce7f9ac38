// The comparison of a benchmark with its baseline, the regression gate:
// everything that judges a figure against its baseline is in this file,
// and the renderers read its results (Row.Compared, Row.CompareText).

package model

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchmath"

	"havlak-lab/tools/result"
)

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
	// Made: the timings were compared.
	Made bool
	// Metrics compares the low-noise figures both results have.
	Metrics []MetricChange
	// Regressed: a timing past its threshold that the U test confirms,
	// or a gated figure worse than its threshold and its noise.
	Regressed bool
	// Note explains a comparison that could not be made, or qualifies one.
	Note string
	// Baseline is the result compared with, for its profiles.
	Baseline *Result
}

// A MetricChange is one low-noise figure against its baseline. It
// regresses when its median is worse by more than both its threshold and
// its noise: the larger spread (range over median) of the two sides' runs.
type MetricChange struct {
	Name, Unit       string
	Old, New         float64 // medians
	OldRuns, NewRuns int
	Delta            float64 // relative change of the median, +0.01 = 1% worse
	Noise, Threshold float64
	Gated, Regressed bool
}

func (m MetricChange) String() string {
	verdict := "~"
	switch {
	case m.Regressed:
		verdict = "REGRESSED"
	case !m.Gated:
		verdict = "not gated"
	}
	return fmt.Sprintf("%s %+.2f%% (%s: %.0f → %.0f %s, median of %d and %d runs; threshold %.1f%%, noise %.3f%%)",
		m.Name, 100*m.Delta, verdict, m.Old, m.New, m.Unit, m.OldRuns, m.NewRuns, 100*m.Threshold, 100*m.Noise)
}

// compareMetrics compares the figures both results have values of.
func compareMetrics(old, new []result.Metric) []MetricChange {
	var changes []MetricChange
	for _, n := range new {
		for _, o := range old {
			if o.Name != n.Name || len(o.Values) == 0 || len(n.Values) == 0 {
				continue
			}
			_, om, _ := result.MinMedianMax(o.Values)
			_, nm, _ := result.MinMedianMax(n.Values)
			c := MetricChange{
				Name: n.Name, Unit: n.Unit, Old: om, New: nm, OldRuns: len(o.Values), NewRuns: len(n.Values),
				Noise:     max(result.Spread(o.Values), result.Spread(n.Values)),
				Threshold: max(o.Threshold, n.Threshold),
				Gated:     o.Gated && n.Gated,
			}
			if om > 0 {
				c.Delta = nm/om - 1
			}
			c.Regressed = c.Gated && c.Delta > c.Threshold && c.Delta > c.Noise
			changes = append(changes, c)
		}
	}
	return changes
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
// same name. It returns the rows that regressed (real time or maximum RSS
// beyond the gate's thresholds, or a gated low-noise figure beyond its
// threshold and noise), and those whose environment differs from their
// baseline's (left uncompared unless the gate allows it).
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
		if base == nil {
			row.Compared = &Comparison{Note: "not in the baseline"}
			continue
		}
		var diffs []string
		for _, d := range result.Differences(base.Environment, row.Environment) {
			diffs = append(diffs, d.String())
		}
		if len(diffs) > 0 {
			moved = append(moved, row)
			if !gate.AllowEnvChange {
				row.Compared = &Comparison{Note: "not compared: another environment than the baseline's: " + strings.Join(diffs, ", ")}
				continue
			}
		}
		c := &Comparison{Metrics: compareMetrics(base.Metrics, row.Metrics), Baseline: base.Result}
		var notes []string
		if len(base.Runs) < MinRuns || len(row.Runs) < MinRuns {
			notes = append(notes, fmt.Sprintf("timings of %d and %d runs: too few to compare (%d each needed)",
				len(base.Runs), len(row.Runs), MinRuns))
		} else {
			c.Made = true
			c.Real = change(base.Real, row.Real)
			c.CPU = change(base.CPUTime, row.CPUTime)
			c.MaxRSS = change(base.MaxRSS, row.MaxRSS)
			c.Regressed = c.Real.Significant && c.Real.Delta > gate.Threshold ||
				c.MaxRSS.Significant && c.MaxRSS.Delta > gate.RSSThreshold
		}
		for _, m := range c.Metrics {
			c.Regressed = c.Regressed || m.Regressed
		}
		if len(diffs) > 0 {
			notes = append(notes, "environment changed: "+strings.Join(diffs, ", "))
		}
		c.Note = strings.Join(notes, "; ")
		row.Compared = c
		if c.Regressed {
			regressed = append(regressed, row)
		}
	}
	return regressed, moved
}

// CompareText describes a row against its baseline.
func (row *Row) CompareText() string {
	c := row.Compared
	switch {
	case c == nil:
		return ""
	case !c.Made && len(c.Metrics) == 0:
		return c.Note
	}
	var parts []string
	if c.Made {
		parts = append(parts, "time "+c.Real.String()+", CPU "+c.CPU.String()+", RSS "+c.MaxRSS.String())
	}
	for _, m := range c.Metrics {
		if m.Gated {
			parts = append(parts, fmt.Sprintf("%s %+.2f%%", m.Name, 100*m.Delta))
		}
	}
	text := strings.Join(parts, ", ")
	if c.Regressed {
		text = "**REGRESSED**: " + text
	}
	if c.Note != "" {
		text += " (" + c.Note + ")"
	}
	return text
}

// The report's exit statuses besides 0: StatusRegressed (a regression, or
// the report could not be made), 2 (bad usage, no results; internal/cli),
// and StatusEnvironmentChanged.
const (
	StatusRegressed          = 1
	StatusEnvironmentChanged = 3
)

// ExitStatus is the report's exit status after Compare returned regressed
// and moved: a regression wins over an environment change, which counts
// only when the gate does not allow it.
func ExitStatus(regressed, moved []*Row, gate Gate) int {
	switch {
	case len(regressed) > 0:
		return StatusRegressed
	case len(moved) > 0 && !gate.AllowEnvChange:
		return StatusEnvironmentChanged
	}
	return 0
}
