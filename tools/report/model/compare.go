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
	// Judged are its figures judged against the baseline's by the lab's
	// one comparison (verdict.Policy.Compare), timings and counts alike,
	// then the growth of its swept figures.
	Judged []verdict.Verdict
	// Real, CPU and MaxRSS are the timings among them (real_seconds,
	// cpu_seconds, max_rss_kib), for the tables; Made tells that they
	// were judged: both sides had enough runs.
	Real, CPU, MaxRSS verdict.Verdict
	Made              bool
	// Metrics are the others: the low-noise figures and their growth.
	Metrics []verdict.Verdict
	// Regressed: a gated figure regressed.
	Regressed bool
	// EnvironmentChanges name what differs from the baseline's
	// environment: the figures it can change were not compared, unless
	// AllowedEnvironmentChange (the gate's AllowEnvChange).
	EnvironmentChanges       []string
	AllowedEnvironmentChange bool
	// SameIdentity: the baseline measured the same binary and run.
	SameIdentity bool
	// Accepted are the regressions of its figures that the gate accepts.
	Accepted []verdict.Acceptance
	// Note explains a comparison that could not be made, or qualifies one.
	Note string
	// Baseline is the result compared with, for its profiles.
	Baseline *Result
}

// accepts tells whether a regression of figure is accepted.
func (c *Comparison) accepts(figure string) bool {
	return slices.ContainsFunc(c.Accepted, func(a verdict.Acceptance) bool { return a.Figure == figure })
}

// Figures are every figure judged.
func (c *Comparison) Figures() []verdict.Verdict { return c.Judged }

// isTiming tells whether a verdict is of a timing or memory figure: judged
// by the U test over runs, shown in the tables' own columns.
func isTiming(v verdict.Verdict) bool {
	return v.Class == result.ClassTiming || v.Class == result.ClassMemory
}

// withMetrics tells whether a verdict is shown with the result's metrics:
// one of its metrics, whatever its class (a server's contention is a
// timing, and has no column of its own), or any figure not a timing.
func withMetrics(v verdict.Verdict, metrics []result.Metric) bool {
	return !isTiming(v) || slices.ContainsFunc(metrics, func(m result.Metric) bool { return m.Name == v.Figure })
}

// figure is the verdict on figure name among judged, or a verdict of no
// figure ("") when there is none.
func figure(judged []verdict.Verdict, name string) verdict.Verdict {
	if i := slices.IndexFunc(judged, func(v verdict.Verdict) bool { return v.Figure == name }); i >= 0 {
		return judged[i]
	}
	return verdict.Verdict{}
}

// side is a result as one side of the comparison.
func side(r *Result) verdict.Side {
	return verdict.Side{Figures: r.Figures, Sweeps: r.Sweeps, Identity: r.Identity, Environment: &r.Environment, Source: r.Source}
}

// A Gate is the regression gate's settings.
type Gate struct {
	// Threshold and RSSThreshold: the worsening of the median real time
	// and max RSS, as fractions, past which a significant change fails.
	Threshold, RSSThreshold float64
	// AllowEnvChange compares results whose environments differ.
	AllowEnvChange bool
	// Accepted are regressions declared intended by the commits between
	// the baseline and the results (Perf-Accepted: trailers): benchmark,
	// figure and reason. They do not fail.
	Accepted []verdict.Acceptance
	// Recent gives the history's recent results of a baseline's identity
	// and environment (history.Recent): its figures' medians, which
	// calibrate its thresholds with its runs, and by figure swept its
	// sweeps, which calibrate its growths' with its own sweep's fit; nil
	// without a history.
	Recent func(*Result) (medians map[result.FigureKey][]float64, sweeps map[string][]result.Sweep, err error)
}

// baseSide is the baseline's result as the base of a comparison, with
// its recent history when the gate has one.
func (g Gate) baseSide(r *Result) (verdict.Side, error) {
	s := side(r)
	if g.Recent != nil && r.Identity != nil {
		var err error
		if s.History, s.HistorySweeps, err = g.Recent(r); err != nil {
			return s, fmt.Errorf("the history of %s's baseline: %w", r.Name, err)
		}
	}
	return s, nil
}

// policy is the lab's policy with the gate's thresholds of timings and
// memory, where it sets them.
func (g Gate) policy() verdict.Policy {
	p := verdict.Lab
	p.AllowEnvironmentChange = g.AllowEnvChange
	if g.Threshold > 0 {
		p.Timing = g.Threshold
	}
	if g.RSSThreshold > 0 {
		p.Memory = g.RSSThreshold
	}
	return p
}

// Compare judges the report against the baseline: each program and each
// server against its namesake, and the baseline's benchmarks the report
// lacks become its Missing, unless retire names them (on purpose: an
// error when one is not in the baseline, or still measured). It returns
// the program rows that regressed (a gated figure's verdict fails), and
// those whose environment differs from their baseline's (left uncompared
// unless the gate allows it).
func Compare(r *Report, baseline *Set, gate Gate, retire []string) (regressed, moved []*Row, err error) {
	if r.Missing, err = missing(r, baseline, retire); err != nil {
		return nil, nil, err
	}
	compareServers(r.Servers, baseline.Servers, gate)
	return compareRows(r.Rows, baseline.Results, gate)
}

// A Missing is a benchmark of the baseline that the report has no result
// of, by the lab's one rule (verdict.GoneBenchmarks).
type Missing = verdict.Gone

func missing(r *Report, baseline *Set, retire []string) ([]Missing, error) {
	tonight, before := map[string]bool{}, map[string]string{}
	for _, row := range r.Rows {
		tonight[row.Name] = true
	}
	for _, row := range r.Servers {
		tonight[row.Name] = true
	}
	for _, b := range baseline.Results {
		before[b.Name] = b.Source
	}
	for _, b := range baseline.Servers {
		before[b.Name] = b.Source
	}
	if err := verdict.CheckRetire(before, tonight, retire); err != nil {
		return nil, err
	}
	what := "this report has no result of it"
	if len(r.Unreadable) > 0 {
		what += fmt.Sprintf("; %d results could not be read", len(r.Unreadable))
	}
	return verdict.GoneBenchmarks(before, tonight, retire, what), nil
}

// compareRows fills in each program row's comparison with the baseline
// result of the same name.
func compareRows(rows []*Row, baseline []*Result, gate Gate) (regressed, moved []*Row, err error) {
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
		diffs := environmentChanges(base.Environment, row.Environment)
		if len(diffs) > 0 {
			moved = append(moved, row)
		}
		baseSide, err := gate.baseSide(base.Result)
		if err != nil {
			return nil, nil, err
		}
		judged := gate.policy().Compare(baseSide, side(row.Result))
		c := &Comparison{Judged: judged, Baseline: base.Result, EnvironmentChanges: diffs, AllowedEnvironmentChange: gate.AllowEnvChange,
			Real: figure(judged, "real_seconds"), CPU: figure(judged, "cpu_seconds"), MaxRSS: figure(judged, "max_rss_kib")}
		for _, v := range judged {
			if withMetrics(v, row.Result.Metrics) {
				c.Metrics = append(c.Metrics, v)
			}
		}
		var notes []string
		switch {
		case c.Real.Figure == "":
			notes = append(notes, "no timings to compare")
		case len(diffs) > 0 && !gate.AllowEnvChange && c.Real.Outcome == verdict.NotComparable:
			// The environment's note below says why.
		case c.Real.Outcome == verdict.NotComparable || c.Real.Outcome == verdict.Missing:
			notes = append(notes, "timings of "+c.Real.Reason)
		default:
			c.Made = true
		}
		if base.Identity != nil && row.Identity != nil && *base.Identity == *row.Identity {
			c.SameIdentity = true
			if slices.ContainsFunc(judged, func(v verdict.Verdict) bool { return v.Outcome == verdict.Inconsistent }) {
				notes = append(notes, "the same binary and run as the baseline, yet an exact count differs: an inconsistent measurement")
			} else {
				notes = append(notes, "the same binary and run as the baseline: its changes are the noise floor")
			}
		}
		for _, a := range gate.Accepted {
			if a.Benchmark == row.Name && slices.ContainsFunc(c.Figures(), func(v verdict.Verdict) bool { return v.Figure == a.Figure && v.Fails() }) {
				c.Accepted = append(c.Accepted, a)
			}
		}
		c.Regressed = slices.ContainsFunc(c.Figures(), func(v verdict.Verdict) bool { return v.Fails() && !c.accepts(v.Figure) })
		switch {
		case len(diffs) > 0 && gate.AllowEnvChange:
			notes = append(notes, "environment changed: "+strings.Join(diffs, ", "))
		case len(diffs) > 0:
			notes = append(notes, "another environment than the baseline's ("+strings.Join(diffs, ", ")+
				"): only the figures it cannot change were compared")
		}
		c.Note = strings.Join(notes, "; ")
		row.Compared = c
		if c.Regressed {
			regressed = append(regressed, row)
		}
	}
	return regressed, moved, nil
}

// environmentChanges names the fields of two environments that differ.
func environmentChanges(old, new result.Environment) []string {
	var diffs []string
	for _, d := range result.Differences(old, new) {
		diffs = append(diffs, d.String())
	}
	return diffs
}

// A ServerComparison is a server benchmark against its baseline: its
// figures judged by the lab's one comparison, among them its throughput
// and p99 latency over the rounds (timings) and its counted figures per
// request.
type ServerComparison struct {
	Judged          []verdict.Verdict
	Throughput, P99 verdict.Verdict
	// Metrics are the counted figures per request.
	Metrics                  []verdict.Verdict
	Regressed                bool
	EnvironmentChanges       []string
	AllowedEnvironmentChange bool
	Note                     string
}

// Figures are the figures judged.
func (c *ServerComparison) Figures() []verdict.Verdict { return c.Judged }

// compareServers judges each server row against its namesake.
func compareServers(rows, baseline []*ServerRow, gate Gate) {
	old := map[string]*ServerRow{}
	for _, row := range baseline {
		old[row.Name] = row
	}
	for _, row := range rows {
		base := old[row.Name]
		if base == nil {
			row.Compared = &ServerComparison{Note: "not in the baseline"}
			continue
		}
		c := &ServerComparison{EnvironmentChanges: environmentChanges(base.Environment, row.Environment), AllowedEnvironmentChange: gate.AllowEnvChange}
		row.Compared = c
		if len(c.EnvironmentChanges) > 0 && !gate.AllowEnvChange {
			c.Note = "another environment than the baseline's (" + strings.Join(c.EnvironmentChanges, ", ") +
				"): only the figures it cannot change were compared"
		}
		c.Judged = gate.policy().Compare(
			verdict.Side{Figures: base.Figures, Environment: &base.Environment, Source: base.Source},
			verdict.Side{Figures: row.Figures, Environment: &row.Environment, Source: row.Source})
		c.Throughput, c.P99 = figure(c.Judged, "throughput"), figure(c.Judged, "latency_p99")
		for _, v := range c.Judged {
			if withMetrics(v, row.Metrics) {
				c.Metrics = append(c.Metrics, v)
			}
		}
		c.Regressed = slices.ContainsFunc(c.Judged, verdict.Verdict.Fails)
	}
}

// Text describes a server row against its baseline.
func (c *ServerComparison) Text() string {
	if c == nil {
		return ""
	}
	if c.Throughput.Figure == "" {
		return c.Note
	}
	text := "throughput " + timingText(c.Throughput) + ", p99 " + timingText(c.P99)
	for _, m := range c.Metrics {
		// A figure shown, not gated (a server's contention, until its
		// noise is measured), is named when worse too: "(worse, ...)".
		if m.Fails() || m.Outcome == verdict.Regressed {
			text += fmt.Sprintf(", %s %s (%s%s)", m.Figure, m.ChangeText(2), m.Label(), m.CostNote())
		}
	}
	if c.Regressed {
		text = "REGRESSED: " + text
	}
	return text
}

// timingText is a timing's change with the U test's p: "~" when the test
// does not find the samples different.
func timingText(v verdict.Verdict) string {
	switch {
	case v.Outcome == verdict.NotComparable:
		return "not compared (" + v.Reason + ")"
	case v.P == 0 && v.Warning != "":
		return fmt.Sprintf("%s (%s)", v.ChangeText(1), v.Warning)
	}
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
		switch {
		case m.Outcome == verdict.Missing:
			parts = append(parts, m.Figure+" MISSING")
		case m.Outcome == verdict.Inconsistent:
			parts = append(parts, m.Figure+" INCONSISTENT")
		case m.Rule.Gated && m.Fails():
			parts = append(parts, fmt.Sprintf("%s %s (%s%s)", m.Figure, m.ChangeText(2), m.Label(), m.CostNote()))
		case m.Rule.Gated:
			parts = append(parts, m.Figure+" "+m.ChangeText(2))
		}
	}
	for _, a := range c.Accepted {
		parts = append(parts, "accepted "+a.Figure+": "+a.Reason)
	}
	text := strings.Join(parts, ", ")
	switch {
	case slices.ContainsFunc(c.Judged, func(v verdict.Verdict) bool { return v.Outcome == verdict.Inconsistent }):
		text = "INCONSISTENT: " + text
	case c.Regressed:
		text = "REGRESSED: " + text
	}
	if c.Note != "" {
		text += " (" + c.Note + ")"
	}
	return text
}
