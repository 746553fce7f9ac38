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
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The report's default thresholds for timings (docs/regressions.md):
// verdict's. CPU time (user + sys) is shown beside real time, not gated:
// when real time worsens and CPU time does not, the runner was not alone.
const (
	DefaultThreshold    = verdict.TimingThreshold
	DefaultRSSThreshold = verdict.MemoryThreshold
)

// A Comparison is a program against its baseline, as the report's tables
// show it: the lab's one comparison of it (Benchmark, summary.Compare),
// with its timings picked out for their columns.
type Comparison struct {
	// Benchmark is its comparison, as summary.json has it: every figure
	// judged, the acceptances, the environment's changes, the outcome.
	Benchmark summary.Benchmark
	// Real is the verdict on its real time (real_seconds); Made tells
	// that its timings were judged: both sides had enough runs.
	Real verdict.Verdict
	Made bool
	// Metrics are the others: the low-noise figures and their growth.
	Metrics []verdict.Verdict
	// Regressed: it fails the comparison (summary.Benchmark.Fails).
	Regressed bool
	// Note explains a comparison that could not be made, or qualifies one.
	Note string
	// Baseline is the result compared with, for its profiles.
	Baseline *Result
}

// Figures are every figure judged.
func (c *Comparison) Figures() []verdict.Verdict { return c.Benchmark.Figures }

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
	// and environment (history.Recent): its figures' medians and its
	// sweeps, which calibrate its thresholds; nil without a history.
	Recent func(base summary.Side) (medians map[result.FigureKey][]float64, sweeps map[string][]result.Sweep, err error)
}

// options are the one comparison's options for this gate: the lab's
// policy with the gate's thresholds of timings and memory, where it sets
// them.
func (g Gate) options(retire []string) summary.Options {
	p := verdict.Lab
	p.AllowEnvironmentChange = g.AllowEnvChange
	if g.Threshold > 0 {
		p.Timing = g.Threshold
	}
	if g.RSSThreshold > 0 {
		p.Memory = g.RSSThreshold
	}
	what := "this report has no result of it"
	return summary.Options{Policy: p, Accepted: g.Accepted, Retire: retire, Recent: g.Recent, Lacking: what}
}

// sides are the report's programs and servers, as sides of the lab's
// comparison.
func sides(results []*Result, servers []*ServerRow) []summary.Side {
	var all []summary.Side
	for _, r := range results {
		all = append(all, r.Side)
	}
	for _, s := range servers {
		all = append(all, s.Side)
	}
	return all
}

// Compare judges the report against the baseline by the lab's one
// comparison of benchmarks (summary.Compare): each program and each
// server against its namesake; the baseline's benchmarks the report lacks
// become its Missing, unless retire names them (on purpose: an error when
// one is not in the baseline, or still measured). The comparison is kept
// as the report's Compared, and each row's as its Compared. It returns
// the program rows that fail (a gated figure regressed, and is not
// accepted), and those whose environment differs from their baseline's
// (left uncompared unless the gate allows it).
func Compare(r *Report, baseline *Set, gate Gate, retire []string) (regressed, moved []*Row, err error) {
	opts := gate.options(retire)
	if len(r.Unreadable) > 0 {
		opts.Lacking += fmt.Sprintf("; %d results could not be read", len(r.Unreadable))
	}
	s, err := summary.Compare("report", r.Baseline, sides(baseline.Results, baseline.Servers), sides(resultsOf(r.Rows), r.Servers), opts)
	if err != nil {
		return nil, nil, err
	}
	r.Compared = s
	judged := map[string]summary.Benchmark{}
	for _, b := range s.Benchmarks {
		if b.Outcome == verdict.Missing {
			r.Missing = append(r.Missing, Missing{Name: b.Name, Why: b.Note, Retired: b.Retired})
		}
		judged[b.Name] = b
	}
	old := map[string]*Result{}
	for _, b := range baseline.Results {
		old[b.Name] = b
	}
	for _, row := range r.Rows {
		row.Compared = programComparison(judged[row.Name], old[row.Name], row.Metrics)
		if len(row.Compared.Benchmark.EnvironmentChanges) > 0 {
			moved = append(moved, row)
		}
		if row.Compared.Regressed {
			regressed = append(regressed, row)
		}
	}
	for _, row := range r.Servers {
		row.Compared = serverComparison(judged[row.Name], row.Metrics)
	}
	return regressed, moved, nil
}

// resultsOf are the rows' results.
func resultsOf(rows []*Row) []*Result {
	results := make([]*Result, len(rows))
	for i, row := range rows {
		results[i] = row.Result
	}
	return results
}

// A Missing is a benchmark of the baseline that the report has no result
// of, by the lab's one rule (verdict.GoneBenchmarks).
type Missing = verdict.Gone

// programComparison is a program's comparison b as the tables show it.
func programComparison(b summary.Benchmark, base *Result, metrics []result.Metric) *Comparison {
	c := &Comparison{Benchmark: b, Baseline: base, Regressed: b.Fails(), Note: b.Note, Real: figure(b.Figures, result.FigureRealSeconds)}
	if base == nil {
		return c
	}
	for _, v := range b.Figures {
		if withMetrics(v, metrics) {
			c.Metrics = append(c.Metrics, v)
		}
	}
	var timings string
	switch {
	case c.Real.Figure == "":
		timings = "no timings to compare"
	case b.EnvironmentChanged() && c.Real.Outcome == verdict.NotComparable:
		// The comparison's note says why.
	case c.Real.Outcome == verdict.NotComparable || c.Real.Outcome == verdict.Missing:
		timings = "timings of " + c.Real.Reason
	default:
		c.Made = true
	}
	if timings != "" {
		c.Note = strings.Join(slices.DeleteFunc([]string{timings, b.Note}, func(s string) bool { return s == "" }), "; ")
	}
	return c
}

// A ServerComparison is a server benchmark against its baseline: the lab's
// one comparison of it (Benchmark, summary.Compare), among its figures its
// timings over the rounds and its counted figures per request.
type ServerComparison struct {
	Benchmark summary.Benchmark
	// Metrics are the counted figures per request.
	Metrics   []verdict.Verdict
	Regressed bool
	Note      string
}

// Figures are the figures judged.
func (c *ServerComparison) Figures() []verdict.Verdict { return c.Benchmark.Figures }

// serverComparison is a server's comparison b as the tables show it.
func serverComparison(b summary.Benchmark, metrics []result.Metric) *ServerComparison {
	c := &ServerComparison{Benchmark: b, Regressed: b.Fails(), Note: b.Note}
	for _, v := range b.Figures {
		if withMetrics(v, metrics) {
			c.Metrics = append(c.Metrics, v)
		}
	}
	return c
}

// Text describes a server row against its baseline.
func (c *ServerComparison) Text() string {
	if c == nil {
		return ""
	}
	text := labelled(result.KindServer, c.Benchmark.Figures)
	if text == "" {
		return c.Note
	}
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

// labelled is the text of the verdicts among judged on the declared
// figures of kind that the tables name (result.Column's Label), in the
// table's order: "time ~ (+1.2%, p=0.310), CPU ..., RSS ...". A figure
// the baseline lacks is not judged, and not named.
func labelled(kind string, judged []verdict.Verdict) string {
	var parts []string
	for _, d := range result.Declarations(kind) {
		if v := figure(judged, d.Name); d.Column.Label != "" && v.Figure != "" {
			parts = append(parts, d.Column.Label+" "+timingText(v))
		}
	}
	return strings.Join(parts, ", ")
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
		parts = append(parts, labelled(result.KindProgram, c.Benchmark.Figures))
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
	for _, a := range c.Benchmark.Accepted {
		parts = append(parts, "accepted "+a.Figure+": "+a.Reason)
	}
	text := strings.Join(parts, ", ")
	switch {
	case c.Benchmark.Outcome == verdict.Inconsistent:
		text = "INCONSISTENT: " + text
	case c.Regressed:
		text = "REGRESSED: " + text
	}
	if c.Note != "" {
		text += " (" + c.Note + ")"
	}
	return text
}
