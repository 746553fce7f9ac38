package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"havlak-lab/internal/markdown"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/verdict"
)

// Figures are a benchmark's shown figures (the gated ones, and any
// inconsistent one, which fails gated or not) sorted for a reader:
// Failing are those that fail, or would but for an acceptance, worst
// first (Worse: by outcome in verdict's order, the inconsistent, the
// missing, the regressed, then the most worse), the accepted last;
// Changed, the others that moved (passed within the rule, improved, or
// could not be compared); Unchanged, those that did not move to the
// hundredth of a percent.
type Figures struct {
	Failing, Changed, Unchanged []verdict.Verdict
}

// unmoved is a change too small to show at two decimals of a percent.
const unmoved = 0.00005

// SortFigures sorts b's shown figures (Figures).
func (b Benchmark) SortFigures() Figures {
	var f Figures
	for _, v := range b.Figures {
		switch {
		case !v.Rule.Gated && v.Outcome != verdict.Inconsistent:
		case v.Fails():
			f.Failing = append(f.Failing, v)
		case v.Outcome == verdict.Unchanged && v.Growth == nil && math.Abs(float64(v.Change)) < unmoved:
			f.Unchanged = append(f.Unchanged, v)
		default:
			f.Changed = append(f.Changed, v)
		}
	}
	// Worst first by the lab's one order (Worse): an accepted one after
	// those that fail.
	slices.SortStableFunc(f.Failing, func(x, y verdict.Verdict) int { return Worse(b.FigureSeverity(x), b.FigureSeverity(y)) })
	return f
}

// FiguresMarkdown is the cell of a table that says what happened to each
// of b's shown figures, each with its own verdict: the failing ones first
// with their label (**INCONSISTENT**, **MISSING**, **REGRESSED**, then
// "regressed, accepted:" and the reason), then the others that changed,
// one a line; the unchanged ones folded away in a <details> block that
// counts them; then the acceptances of figures that did not regress, and
// the benchmark's note. With evidence, a judged figure's change carries
// the medians and the noise it was judged on. Everything from a result is
// escaped (internal/markdown).
func (b Benchmark) FiguresMarkdown(evidence bool) string {
	f := b.SortFigures()
	var lines []string
	for _, v := range slices.Concat(f.Failing, f.Changed) {
		lines = append(lines, b.figureMarkdown(v, evidence))
	}
	for _, a := range b.Accepted {
		if !slices.ContainsFunc(f.Failing, func(v verdict.Verdict) bool { return v.Figure == a.Figure }) {
			lines = append(lines, "accepted "+markdown.Escape(a.Figure)+": "+markdown.Escape(a.Reason))
		}
	}
	if b.Note != "" {
		lines = append(lines, markdown.Escape(b.Note))
	}
	text := strings.Join(lines, "<br>")
	if len(f.Unchanged) > 0 {
		var quiet []string
		for _, v := range f.Unchanged {
			quiet = append(quiet, markdown.Escape(v.Figure)+" "+v.ChangeText(2))
		}
		if text != "" {
			text += " "
		}
		text += fmt.Sprintf("<details><summary>%d unchanged</summary>%s</details>", len(f.Unchanged), strings.Join(quiet, ", "))
	}
	return text
}

// figureMarkdown is one figure with its own verdict.
func (b Benchmark) figureMarkdown(v verdict.Verdict, evidence bool) string {
	name := markdown.Escape(v.Figure)
	accepted := ""
	if i := slices.IndexFunc(b.Accepted, func(a verdict.Acceptance) bool { return a.Figure == v.Figure }); i >= 0 {
		accepted = markdown.Escape(b.Accepted[i].Reason)
	}
	switch v.Outcome {
	case verdict.Inconsistent:
		return "**INCONSISTENT** " + name + ": " + markdown.Escape(v.Reason)
	case verdict.Missing:
		if accepted != "" && v.Fails() {
			return name + " missing, accepted: " + accepted + " (" + markdown.Escape(v.Reason) + ")"
		}
		return "**MISSING** " + name + ": " + markdown.Escape(v.Reason)
	case verdict.NotComparable:
		return name + " not comparable: " + markdown.Escape(v.Reason)
	}
	var notes []string
	if evidence && v.Growth == nil {
		notes = append(notes, fmt.Sprintf("%s → %s, noise %.4f%%, %s", numfmt.Number(v.Old.Median), numfmt.Number(v.New.Median), 100*v.Noise,
			markdown.Escape(v.ThresholdText())))
	}
	if v.Cost != "" && v.Outcome == verdict.Regressed {
		notes = append(notes, "cost: "+markdown.Escape(v.Cost))
	}
	if v.Loosened != "" {
		notes = append(notes, "**"+markdown.Escape(v.Loosened)+"**")
	}
	text := name + " " + v.ChangeText(2)
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, ", ") + ")"
	}
	switch {
	case accepted != "" && v.Fails():
		return text + " regressed, accepted: " + accepted
	case v.Outcome == verdict.Regressed:
		return "**" + v.Label() + "** " + text
	case v.Outcome == verdict.Improved:
		return text + " better"
	}
	return text + " passed"
}
