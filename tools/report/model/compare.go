// The comparison of a benchmark with its baseline: each figure is judged by
// tools/verdict, the lab's one owner of that decision; this file only
// says which rule each figure of a report gets, and the renderers read its
// results (Row.Compared, Row.CompareText).

package model

import (
	"fmt"
	"slices"
	"strings"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// The report's default thresholds for timings (docs/regressions.md):
// verdict's. CPU time (user + sys) is shown beside real time, not gated:
// when real time worsens and CPU time does not, the runner was not alone.
const (
	DefaultThreshold    = verdict.TimingThreshold
	DefaultRSSThreshold = verdict.MemoryThreshold
)

// A Comparison is a benchmark against its baseline.
type Comparison struct {
	// Real, CPU and MaxRSS are the timings judged (verdict.TimingRule);
	// Made tells that they were: both sides had enough runs.
	Real, CPU, MaxRSS verdict.Verdict
	Made              bool
	// Metrics are the low-noise figures both results have, judged
	// (verdict.CountRule at the larger of their thresholds).
	Metrics []verdict.Verdict
	// Regressed: a gated figure regressed.
	Regressed bool
	// EnvironmentChanges name what differs from the baseline's
	// environment.
	EnvironmentChanges []string
	// Note explains a comparison that could not be made, or qualifies one.
	Note string
	// Baseline is the result compared with, for its profiles.
	Baseline *Result
}

// Figures are every figure judged, timings first.
func (c *Comparison) Figures() []verdict.Verdict {
	var all []verdict.Verdict
	if c.Made {
		all = append(all, c.Real, c.CPU, c.MaxRSS)
	}
	return append(all, c.Metrics...)
}

// compareMetrics judges the figures both results have values of.
func compareMetrics(old, new []result.Metric) []verdict.Verdict {
	var judged []verdict.Verdict
	for _, n := range new {
		i := slices.IndexFunc(old, func(o result.Metric) bool { return o.Name == n.Name })
		if i < 0 || len(old[i].Values) == 0 || len(n.Values) == 0 {
			continue
		}
		o := old[i]
		rule := verdict.CountRule(max(o.Threshold, n.Threshold), o.Gated && n.Gated)
		judged = append(judged, verdict.Judge(n.Name, n.Unit, o.Values, n.Values, rule))
	}
	return judged
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
// same name. It returns the rows that regressed (a gated figure's verdict
// fails), and those whose environment differs from their baseline's (left
// uncompared unless the gate allows it).
func Compare(rows []*Row, baseline []*Result, gate Gate) (regressed, moved []*Row) {
	old := map[string]*Row{}
	for _, row := range Rows(baseline) {
		old[row.Name] = row
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
				row.Compared = &Comparison{EnvironmentChanges: diffs,
					Note: "not compared: another environment than the baseline's: " + strings.Join(diffs, ", ")}
				continue
			}
		}
		c := &Comparison{Metrics: compareMetrics(base.Metrics, row.Metrics), Baseline: base.Result, EnvironmentChanges: diffs}
		var notes []string
		c.Real = verdict.Judge("real_seconds", "s", base.Real.Values, row.Real.Values, verdict.TimingRule(gate.Threshold, true))
		c.CPU = verdict.Judge("cpu_seconds", "s", base.CPUTime.Values, row.CPUTime.Values, verdict.TimingRule(gate.Threshold, false))
		c.MaxRSS = verdict.Judge("max_rss", "MiB", base.MaxRSS.Values, row.MaxRSS.Values, verdict.TimingRule(gate.RSSThreshold, true))
		if c.Real.Outcome == verdict.NotComparable {
			notes = append(notes, "timings of "+c.Real.Reason)
		} else {
			c.Made = true
		}
		c.Regressed = slices.ContainsFunc(c.Figures(), verdict.Verdict.Fails)
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

// timingText is a timing's change with the U test's p: "~" when the test
// does not find the samples different.
func timingText(v verdict.Verdict) string {
	if v.P >= verdict.Alpha {
		return fmt.Sprintf("~ (%s, p=%.3f)", v.ChangeText(1), v.P)
	}
	return fmt.Sprintf("%s (p=%.3f)", v.ChangeText(1), v.P)
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
		parts = append(parts, "time "+timingText(c.Real)+", CPU "+timingText(c.CPU)+", RSS "+timingText(c.MaxRSS))
	}
	for _, m := range c.Metrics {
		if m.Rule.Gated {
			parts = append(parts, m.Figure+" "+m.ChangeText(2))
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
