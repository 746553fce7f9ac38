package summary

import (
	"fmt"
	"io"
	"strings"

	"havlak-lab/internal/markdown"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// diffSummaryFunctions is how many changed functions a profile diff's line
// names.
const diffSummaryFunctions = 3

// WriteMarkdown writes the comparison for an annotation: a table of the
// benchmarks worst first as the comparison's table orders them
// (Table.Benchmarks), each row saying what happened to each of its
// figures (FiguresMarkdown) and its name linking to the dashboard's
// compare page of pair, when it has one; then a line per profile diff.
func (s *Summary) WriteMarkdown(w io.Writer, pair Pair) {
	if len(s.Benchmarks) == 0 {
		fmt.Fprintln(w, "No benchmarks.")
	}
	rows := s.Table().Benchmarks
	if len(rows) > 0 {
		fmt.Fprintln(w, "| benchmark | language | median (min–max) | verdict | against the baseline |")
		fmt.Fprintln(w, "|---|---|---:|---|---|")
	}
	for _, b := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", pair.Link(b.Name), markdown.Escape(b.Language), b.valuesText(), b.Label(), b.FiguresMarkdown(false))
	}
	if len(s.Unreadable) > 0 {
		fmt.Fprintln(w, "\n**Unreadable results** (each fails the comparison):")
		fmt.Fprintln(w)
		for _, u := range s.Unreadable {
			fmt.Fprintf(w, "- %s\n", markdown.Escape(u))
		}
	}
	if groups := s.EnvironmentGroups(); len(groups) > 0 {
		fmt.Fprintf(w, "\n**%s** since the baseline (what differs: the benchmarks that ran in it):\n", movedTitle(groups))
		fmt.Fprintln(w)
		for _, g := range groups {
			var moved, allowed []string
			for _, b := range g.Benchmarks {
				if b.EnvironmentChanged() {
					moved = append(moved, markdown.Escape(b.Name))
				} else {
					allowed = append(allowed, markdown.Escape(b.Name))
				}
			}
			var parts []string
			restart := "their timings restart here"
			if g.Moved().Lab {
				restart = "every figure restarts here"
			}
			if len(moved) > 0 {
				parts = append(parts, "not compared, "+restart+": "+strings.Join(moved, ", "))
			}
			if len(allowed) > 0 {
				parts = append(parts, "compared across it, as allowed: "+strings.Join(allowed, ", "))
			}
			fmt.Fprintf(w, "- %s: %s\n", markdown.Escape(strings.Join(g.Changes, "; ")), strings.Join(parts, "; "))
		}
	}
	if len(s.ProfileDiffs) > 0 {
		fmt.Fprintln(w, "\n**What changed in the profiles** (pprof -diff_base against the baseline):")
		fmt.Fprintln(w)
		for _, d := range s.ProfileDiffs {
			fmt.Fprintf(w, "- %s: %s\n", markdown.Escape(d.Benchmark), d.Summary(diffSummaryFunctions))
		}
	}
}

// movedTitle names what moved in groups, for the title of their list:
// the lab's version, the environment, or both.
func movedTitle(groups []EnvironmentGroup) string {
	var moved result.Moved
	for _, g := range groups {
		m := g.Moved()
		moved.Lab, moved.Environment = moved.Lab || m.Lab, moved.Environment || m.Environment
	}
	switch {
	case moved.Lab && moved.Environment:
		return "The lab's version and the environment changed"
	case moved.Lab:
		return "The lab's version changed"
	}
	return "Environment changed"
}

// Label is the benchmark's verdict in a few words, for tables:
// "**REGRESSED**", "**MISSING**", "**INCONSISTENT**", "regressed, accepted", "improved",
// "unchanged", "not compared: another version of the lab" (or "another
// environment", or both: result.Moved.Short), "not compared", "retired".
func (b Benchmark) Label() string {
	switch {
	case b.Retired:
		return "retired"
	case b.Outcome == verdict.Missing:
		return "**MISSING**"
	case b.Outcome == verdict.Inconsistent:
		return "**INCONSISTENT**"
	case b.Fails():
		return "**REGRESSED**"
	case b.Outcome == verdict.Regressed:
		return "regressed, accepted"
	case b.EnvironmentChanged():
		return "not compared: " + b.Moved().Short()
	case b.Outcome == verdict.NotComparable:
		return "not compared"
	case b.Outcome == verdict.Improved:
		return "improved"
	}
	return "unchanged"
}

// valuesText is the first of the figures measured (real time, for a
// program): its median and range.
func (b Benchmark) valuesText() string {
	if len(b.Values) == 0 {
		return ""
	}
	v := b.Values[0]
	return fmt.Sprintf("%s (%s–%s) %s %s", numfmt.Number(v.Sample.Median), numfmt.Number(v.Sample.Min),
		numfmt.Number(v.Sample.Max), markdown.Escape(v.Unit), markdown.Escape(v.Figure))
}
