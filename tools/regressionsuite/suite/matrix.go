package suite

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/markdown"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// An Outcome is what the gate made of one case.
type Outcome struct {
	Case Case
	// Benchmarks are the case's benchmarks as the perf check judged them,
	// in the case's order; nil when the case could not be run (Err says
	// why).
	Benchmarks []summary.Benchmark
	Err        string
	// Where are where its figures' changes went, a benchmark each
	// (Runner.where); none for a figure not counted per line.
	Where []Where
}

// judged is a regression case's one benchmark as the perf check judged
// it; nil when the case could not be run.
func (o Outcome) judged() *summary.Benchmark {
	if len(o.Benchmarks) == 0 {
		return nil
	}
	return &o.Benchmarks[0]
}

// Caught is the gated figures of the case's benchmarks that regressed.
func (o Outcome) Caught() []verdict.Verdict {
	var caught []verdict.Verdict
	for _, b := range o.Benchmarks {
		for _, f := range b.Figures {
			if f.Fails() {
				caught = append(caught, f)
			}
		}
	}
	return caught
}

// Target is the verdict of the figure that should catch the case; nil
// when the benchmark has no such gated figure.
func (o Outcome) Target() *verdict.Verdict {
	if b := o.judged(); b != nil {
		for i, f := range b.Figures {
			if f.Figure == o.Case.Figure {
				return &b.Figures[i]
			}
		}
	}
	return nil
}

// GateHeld tells whether a case that loosens its benchmark's own gate
// (Case.Loosens) was judged by the base's gate all the same, as the perf
// check, the report and the nightly gate judge (verdict.Policy.Compare):
// caught by the figure meant to catch it, whose verdict, read back from
// the perf check's summary (summary.json, tools/summary), says what the
// change tried (verdict.Verdict.Loosened). nil for a case that loosens
// nothing or did not run.
func (o Outcome) GateHeld() error {
	if o.Case.Loosens == "" || o.judged() == nil {
		return nil
	}
	data, err := summary.Marshal(&summary.Summary{Tool: "perfcheck", Benchmarks: []summary.Benchmark{*o.judged()}})
	if err != nil {
		return fmt.Errorf("the perf check's summary: %w", err)
	}
	s, err := summary.Parse(data)
	if err != nil {
		return fmt.Errorf("the perf check's summary: %w", err)
	}
	var target *verdict.Verdict
	for i, f := range s.Benchmarks[0].Figures {
		if f.Figure == o.Case.Figure {
			target = &s.Benchmarks[0].Figures[i]
		}
	}
	switch {
	case target == nil:
		return fmt.Errorf("the perf check's summary has no verdict on %s", o.Case.Figure)
	case !target.Fails():
		return fmt.Errorf("the change loosened its own gate and got through: %s", target)
	case target.Loosened == "":
		return fmt.Errorf("%s fails, but its verdict does not say that the change loosened its gate", o.Case.Figure)
	}
	return nil
}

// FalseAlarms is unchanged code measured again and again: each rerun of a
// benchmark judged against its first run by the same rule.
type FalseAlarms struct {
	Benchmark   string
	Comparisons int
	// Alarms are the comparisons that failed, each with its figures.
	Alarms []string
	// Err says why the reruns could not be measured.
	Err string
}

// A Matrix is one run of the suite.
type Matrix struct {
	// Checkout is the commit of the checkout copied, with "+" when it had
	// changes not committed; Base, the scratch copy's commit of it, to
	// which the patches were applied.
	Checkout string
	Base     string
	Started  time.Time
	Took     time.Duration
	Outcomes []Outcome
	Reruns   []FalseAlarms
}

// WriteMarkdown writes the detection matrix: every kind × language ×
// size, caught by which figure, missed, or absent (a language or sizes the
// kind has no case of) and why, each followed
// by its cases that also loosen the benchmark's own gate; then the false
// alarms of the unchanged reruns; then the neutral matrix, if neutral
// cases were run (writeNeutral).
func (m *Matrix) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "Run of %s UTC on `%s` (the checkout measured), %s in all.\n\n", m.Started.UTC().Format("2006-01-02 15:04"), m.Checkout, m.Took.Round(time.Second))
	fmt.Fprintln(w, "| kind | language | size | benchmark | verdict | the figure meant to catch it |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	var notes []string
	for _, k := range Kinds {
		for _, lang := range Languages {
			if why := k.Absent[lang]; why != "" {
				fmt.Fprintf(w, "| %s | %s | all | — | absent | %s |\n", k.Name, lang, markdown.Escape(why))
				continue
			}
			for _, u := range k.unsized() {
				fmt.Fprintf(w, "| %s | %s | %s | — | absent | %s |\n", k.Name, lang, strings.Join(u.sizes, ", "), markdown.Escape(u.why))
			}
			for _, size := range k.Sizes() {
				for _, loosens := range append([]string{""}, looseningNamesList()...) {
					// None when not run this time (a -cases filter) or no
					// such case; one per benchmark it was injected into.
					for _, o := range m.find(k.Name, lang, size, loosens) {
						kind := k.Name
						if l, ok := LooseningNamed(loosens); ok {
							kind += " + " + l.Row
						}
						cell, note := o.cells(k)
						fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", kind, lang, size, markdown.Escape(strings.Join(o.Case.Benchmarks, ", ")), cell)
						if note != "" && !contains(notes, note) {
							notes = append(notes, note)
						}
					}
				}
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nWhy the missed ones were missed:")
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
	total, alarms := 0, 0
	for _, r := range m.Reruns {
		total += r.Comparisons
		alarms += len(r.Alarms)
	}
	fmt.Fprintf(w, "\nFalse alarms: %d in %d comparisons of unchanged code (each rerun against the benchmark's first run, the perf check's rule).\n\n", alarms, total)
	fmt.Fprintln(w, "| benchmark | reruns compared | false alarms |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range m.Reruns {
		said := fmt.Sprint(len(r.Alarms))
		if r.Err != "" {
			said = "not measured: " + markdown.Escape(r.Err)
		} else if len(r.Alarms) > 0 {
			said += ": " + markdown.Escape(strings.Join(r.Alarms, "; "))
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", markdown.Escape(r.Benchmark), r.Comparisons, said)
	}
	m.writeNeutral(w)
}

// unsizedGroup is sizes a kind has no case of, for one reason.
type unsizedGroup struct {
	sizes []string
	why   string
}

// unsized groups the kind's Unsized sizes by reason, in Sizes' order: a
// matrix row each.
func (k Kind) unsized() []unsizedGroup {
	var groups []unsizedGroup
	for _, size := range Sizes {
		why := k.Unsized[size]
		if why == "" {
			continue
		}
		if i := slices.IndexFunc(groups, func(g unsizedGroup) bool { return g.why == why }); i >= 0 {
			groups[i].sizes = append(groups[i].sizes, size)
			continue
		}
		groups = append(groups, unsizedGroup{sizes: []string{size}, why: why})
	}
	return groups
}

// cells are a case's verdict and target cells, and the note a miss gets.
func (o Outcome) cells(k Kind) (string, string) {
	target := "`" + o.Case.Figure + "`"
	if t := o.Target(); t != nil {
		target += " " + t.ChangeText(2)
		if t.Noise > 0 {
			target += fmt.Sprintf(" (noise %.3f%%)", 100*t.Noise)
		}
		target += markdown.Escape(shownOnly(*t))
		if !t.Fails() && t.Rule.Gated {
			// What it would have taken, and where that came from
			// (reruns, history, layout variants, the floor).
			target += ", under its " + markdown.Escape(t.ThresholdText())
		}
	} else if o.judged() != nil {
		target += ": not among the figures this check gates for the benchmark; what should catch it: " + k.Catcher
	}
	for _, w := range o.Where {
		target += "; " + markdown.Escape(w.String())
	}
	switch caught := o.Caught(); {
	case o.Err != "":
		return "not run: " + markdown.Escape(o.Err) + " | " + target, ""
	case o.GateHeld() != nil:
		return "**GOT THROUGH**: " + markdown.Escape(o.GateHeld().Error()) + " | " + target, ""
	case len(caught) > 0:
		var by []string
		for _, f := range caught {
			by = append(by, fmt.Sprintf("`%s` %s", f.Figure, f.ChangeText(2)))
		}
		cell := "**caught** by " + strings.Join(by, ", ")
		if t := o.Target(); o.Case.Loosens != "" && t != nil {
			cell += "; the base's gate applied, the perf check's summary says: " + markdown.Escape(t.Loosened)
		}
		return cell + " | " + target, ""
	default:
		return "missed | " + target, k.Name + ": " + k.Limit + "."
	}
}

// shownOnly says why a figure meant to catch a case could not, though
// judged: it is not gated (a figure shown until its noise is measured), or
// it was not comparable (too few runs for its rule); "" otherwise.
func shownOnly(t verdict.Verdict) string {
	var why []string
	if !t.Rule.Gated {
		why = append(why, "shown, not gated")
	}
	if t.Outcome == verdict.NotComparable && t.Reason != "" {
		why = append(why, "not comparable: "+t.Reason)
	}
	if len(why) == 0 {
		return ""
	}
	return " (" + strings.Join(why, "; ") + ")"
}

// find returns the outcomes of the cases of one kind, language, size and
// loosening, in the order they ran: one per benchmark injected.
func (m *Matrix) find(kind, language, size, loosens string) []Outcome {
	var found []Outcome
	for _, o := range m.Outcomes {
		if o.Case.Kind == kind && o.Case.Language == language && o.Case.Size == size && o.Case.Loosens == loosens {
			found = append(found, o)
		}
	}
	return found
}

// Summary is the outcome in a line, for the progress log.
func (o Outcome) Summary() string {
	if o.Err != "" {
		return "not run: " + o.Err
	}
	if o.Case.IsNeutral() {
		return o.neutralSummary()
	}
	var by []string
	for _, f := range o.Caught() {
		by = append(by, f.Figure+" "+f.ChangeText(2))
	}
	target := o.Case.Figure + " not gated here"
	if t := o.Target(); t != nil {
		target = o.Case.Figure + " " + t.ChangeText(2) + shownOnly(*t)
	}
	if err := o.GateHeld(); err != nil {
		return "GOT THROUGH: " + err.Error() + " (" + target + ")"
	}
	if len(by) == 0 {
		return "missed (" + target + ")"
	}
	if t := o.Target(); o.Case.Loosens != "" && t != nil {
		target += "; " + t.Loosened
	}
	return "caught by " + strings.Join(by, ", ") + " (" + target + ")"
}

// Failure is an error when the suite itself failed: a case that could not
// be run, a case that loosened its own gate and was not held to the
// base's (Outcome.GateHeld), reruns that could not be measured, or a
// false alarm, of unchanged code or of a neutral change.
func (m *Matrix) Failure() error {
	var problems []string
	for _, o := range m.Outcomes {
		if o.Err != "" {
			problems = append(problems, o.Case.Name+": "+o.Err)
		}
		if err := o.GateHeld(); err != nil {
			problems = append(problems, o.Case.Name+": "+err.Error())
		}
		for _, a := range o.Alarms() {
			problems = append(problems, o.Case.Name+": false alarm: "+a.String())
		}
	}
	for _, r := range m.Reruns {
		if r.Err != "" {
			problems = append(problems, r.Benchmark+" reruns: "+r.Err)
		}
		for _, a := range r.Alarms {
			problems = append(problems, r.Benchmark+": false alarm: "+a)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}
