package summary

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"havlak-lab/tools/verdict"
)

// diffSummaryFunctions is how many changed functions a profile diff's line
// names.
const diffSummaryFunctions = 3

// WriteMarkdown writes the comparison for an annotation: a table with the
// regressions first, then what could not be compared, the improvements
// and the rest; then a line per profile diff.
func (s *Summary) WriteMarkdown(w io.Writer) {
	if len(s.Benchmarks) == 0 {
		fmt.Fprintln(w, "No benchmarks.")
	}
	rows := slices.Clone(s.Benchmarks)
	slices.SortStableFunc(rows, func(a, b Benchmark) int { return cmp.Compare(a.order(), b.order()) })
	if len(rows) > 0 {
		fmt.Fprintln(w, "| benchmark | language | median (min–max) | verdict | against the baseline |")
		fmt.Fprintln(w, "|---|---|---:|---|---|")
	}
	for _, b := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", Escape(b.Name), Escape(b.Language), b.valuesText(), b.label(), b.figuresText())
	}
	if len(s.ProfileDiffs) > 0 {
		fmt.Fprintln(w, "\n**What changed in the profiles** (pprof -diff_base against the baseline):")
		fmt.Fprintln(w)
		for _, d := range s.ProfileDiffs {
			fmt.Fprintf(w, "- %s: %s\n", Escape(d.Benchmark), d.Summary(diffSummaryFunctions))
		}
	}
}

// order sorts benchmarks for the table: failing first.
func (b Benchmark) order() int {
	switch {
	case b.Fails():
		return 0
	case b.Outcome == verdict.NotComparable:
		return 1
	case b.Outcome == verdict.Improved:
		return 2
	}
	return 3
}

func (b Benchmark) label() string {
	switch {
	case b.Fails():
		return "**REGRESSED**"
	case b.EnvironmentChanged():
		return "not compared: another environment"
	case b.Outcome == verdict.NotComparable:
		return "not compared"
	case b.Outcome == verdict.Improved:
		return "improved"
	}
	return "unchanged"
}

// figuresText is the gated figures' changes, and the note.
func (b Benchmark) figuresText() string {
	var parts []string
	for _, f := range b.Figures {
		if !f.Rule.Gated || f.Outcome == verdict.NotComparable {
			continue
		}
		text := Escape(f.Figure) + " " + f.ChangeText(2)
		if f.Outcome != verdict.Unchanged {
			text += " (" + f.Label() + ")"
		}
		parts = append(parts, text)
	}
	if b.Note != "" {
		parts = append(parts, Escape(b.Note))
	}
	return strings.Join(parts, "; ")
}

// valuesText is the first of the figures measured (real time, for a
// program): its median and range.
func (b Benchmark) valuesText() string {
	if len(b.Values) == 0 {
		return ""
	}
	v := b.Values[0]
	return fmt.Sprintf("%s (%s–%s) %s %s", verdict.Number(v.Sample.Median), verdict.Number(v.Sample.Min),
		verdict.Number(v.Sample.Max), Escape(v.Unit), Escape(v.Figure))
}

// Escape makes text from results inert in Markdown (and the HTML that
// Markdown passes through): table cells, emphasis, links and tags.
func Escape(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < ' ' || r == 0x7f:
			// Control characters: dropped.
		case strings.ContainsRune("\\`*_{}[]()<>#+!|~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
