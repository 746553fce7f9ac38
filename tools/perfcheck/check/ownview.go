package check

import (
	"fmt"
	"slices"
	"strings"

	"havlak-lab/internal/markdown"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// An OwnView is what a change that edits the gate says of itself: the
// summary its own perf check wrote when the base's ran it beside its own
// (perfcheck --own-view: the change's runner measuring both sides, the
// change's policy judging), or why there is none. It decides nothing: a
// reader sees what the edit would change, the base's verdict stands.
type OwnView struct {
	// Summary is the change's own check's; nil when it could not be had.
	Summary *summary.Summary
	// Reason says why there is no Summary: the change's perf check did
	// not build, failed, or wrote what the base cannot read.
	Reason string
}

// The own view's parts in the comment are bounded: its summary is the
// change's, and could name a figure a megabyte long.
const (
	// ownViewItems is how many figures its verdict names, and how many
	// disagreements it lists.
	ownViewItems = 8
	// ownViewText is the most characters of one name or reason shown.
	ownViewText = 200
)

// writeOwnView writes, under the line that names the gate edits, what the
// change's own tools would say (OwnView) and where they disagree with the
// base's verdict s, figure by figure. Everything from the change's
// summary is escaped and clipped.
func writeOwnView(w *strings.Builder, s *summary.Summary, own *OwnView) {
	if own == nil {
		return
	}
	if own.Summary == nil {
		fmt.Fprintf(w, "Its own tools would say: nothing, their check failed (%s) — deciding nothing.\n\n", text(own.Reason))
		return
	}
	fmt.Fprintf(w, "Its own tools would say: %s — deciding nothing.\n", ownVerdict(own.Summary))
	if lines := disagreements(s, own.Summary); len(lines) > 0 {
		w.WriteString("\nWhere they disagree with the base's tools:\n\n")
		if len(lines) > ownViewItems {
			lines = append(lines[:ownViewItems], fmt.Sprintf("- … and %d more", len(lines)-ownViewItems))
		}
		w.WriteString(strings.Join(lines, "\n") + "\n")
	}
	w.WriteString("\n")
}

// text is a string of the change's, escaped and clipped for the comment.
func text(s string) string {
	if r := []rune(s); len(r) > ownViewText {
		s = string(r[:ownViewText]) + "…"
	}
	return markdown.Escape(s)
}

// ownVerdict is the own check's verdict in a few words: "no regression",
// or how many benchmarks failed and their failing figures.
func ownVerdict(own *summary.Summary) string {
	failing := own.Regressed()
	if len(failing) == 0 && len(own.Unreadable) == 0 {
		return "no regression"
	}
	var figures []string
	for _, b := range failing {
		if b.Outcome == verdict.Missing && len(b.Failing()) == 0 {
			figures = append(figures, text(b.Name)+" missing")
		}
		for _, v := range b.Failing() {
			figures = append(figures, text(b.Name)+" "+text(v.Figure)+" "+text(v.ChangeText(2)))
		}
	}
	if len(figures) > ownViewItems {
		figures = append(figures[:ownViewItems], fmt.Sprintf("and %d more", len(figures)-ownViewItems))
	}
	says := fmt.Sprintf("%d regressed", len(failing))
	if len(figures) > 0 {
		says += " (" + strings.Join(figures, ", ") + ")"
	}
	if len(own.Unreadable) > 0 {
		says += fmt.Sprintf(", %d results unreadable", len(own.Unreadable))
	}
	return says
}

// A judgment is what one side's tools said of a benchmark's gated figure
// (or, with no figure, of the benchmark as a whole): the verdict's label,
// which two sides must share to agree, and its change.
type judgment struct {
	label, change string
}

func (j judgment) String() string {
	if j.label == "" {
		return "not judged"
	}
	return strings.TrimSpace(j.label + " " + j.change)
}

// judgments are a summary's judgments by benchmark and figure, and the
// keys in the summary's order.
func judgments(s *summary.Summary) (map[[2]string]judgment, [][2]string) {
	all := map[[2]string]judgment{}
	var keys [][2]string
	add := func(key [2]string, j judgment) {
		if _, dup := all[key]; !dup {
			keys = append(keys, key)
		}
		all[key] = j
	}
	for _, b := range s.Benchmarks {
		switch {
		case b.Outcome == verdict.Missing && len(b.Figures) == 0:
			add([2]string{b.Name, ""}, judgment{label: "MISSING"})
		case b.Outcome == verdict.NotComparable && len(b.Figures) == 0:
			add([2]string{b.Name, ""}, judgment{label: "not compared"})
		}
		for _, v := range b.Figures {
			if !v.Rule.Gated && v.Outcome != verdict.Inconsistent {
				continue
			}
			j := judgment{label: v.Label()}
			if j.label == "~" {
				j.label = "unchanged"
			}
			if v.Fails() && b.Accepts(v.Figure) && v.Outcome != verdict.Inconsistent {
				j.label += ", accepted"
			}
			if v.Outcome == verdict.Regressed || v.Outcome == verdict.Improved || v.Outcome == verdict.Unchanged {
				j.change = v.ChangeText(2)
			}
			add([2]string{b.Name, v.Figure}, j)
		}
	}
	return all, keys
}

// disagreements are the gated figures the base's tools (s) and the
// change's own (own) judged differently, one Markdown line each: the
// base's verdict against the change's tools'. Their changes may differ a
// little, each view measured by its own runner: only the verdicts must
// agree.
func disagreements(s, own *summary.Summary) []string {
	base, baseKeys := judgments(s)
	theirs, ownKeys := judgments(own)
	var lines []string
	seen := map[[2]string]bool{}
	for _, key := range slices.Concat(baseKeys, ownKeys) {
		b, o := base[key], theirs[key]
		if seen[key] || b.label == o.label {
			continue
		}
		seen[key] = true
		what := text(key[0])
		if key[1] != "" {
			what += " " + text(key[1])
		}
		lines = append(lines, fmt.Sprintf("- %s: the base's tools: %s; its own: %s", what, text(b.String()), text(o.String())))
	}
	return lines
}
