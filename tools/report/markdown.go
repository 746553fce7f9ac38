package main

import (
	"fmt"
	"io"
	"strings"
)

// Report is everything the report shows.
type Report struct {
	Rows     []*Row
	Baseline string // where the baseline came from; empty without one
	// The gate's thresholds, as fractions.
	Threshold, RSSThreshold float64
	Problems                []string
}

// A Study is the rows of one case study.
type Study struct {
	Title string
	Rows  []*Row
}

// Havlak tells whether the study is the article's: its table has the
// Go / C++ column and its charts the pairs.
func (s Study) Havlak() bool { return s.Title == havlakStudy }

// ID is a name for the study's elements in the page.
func (s Study) ID() string {
	if s.Havlak() {
		return ""
	}
	return "-" + strings.ToLower(strings.ReplaceAll(s.Title, " ", "-"))
}

// Studies groups the rows by study, in their order.
func (r *Report) Studies() []Study {
	var studies []Study
	for _, row := range r.Rows {
		if n := len(studies); n == 0 || studies[n-1].Title != row.Study() {
			studies = append(studies, Study{Title: row.Study()})
		}
		studies[len(studies)-1].Rows = append(studies[len(studies)-1].Rows, row)
	}
	return studies
}

// Quick reports whether the results are of the quick, reduced workload.
func (r *Report) Quick() bool {
	for _, row := range r.Rows {
		if row.Quick {
			return true
		}
	}
	return false
}

// WorkloadNote says which workloads the results are of.
func (r *Report) WorkloadNote() string {
	if r.Quick() {
		return "Quick workloads (Havlak: 3 trees of 50 loops; word count: a 1 MB text; mandelbrot: 256×256): " +
			"the harness at work; these timings do not compare with the standard workloads'."
	}
	return "Standard workloads: Havlak, 252013 blocks and 76000 loops, 1 + 50 loop-finding passes; " +
		"word count, a 30 MB text; mandelbrot, 1024×1024 pixels."
}

// Host is the machine of the first result that recorded one.
func (r *Report) Host() Host {
	for _, row := range r.Rows {
		if row.Host.Hostname != "" {
			return row.Host
		}
	}
	return Host{}
}

// Started is when the first recorded run started.
func (r *Report) Started() string {
	first := ""
	for _, row := range r.Rows {
		for _, run := range row.Runs {
			if first == "" || run.Start < first {
				first = run.Start
			}
		}
	}
	return first
}

func seconds(s Stat) string {
	if len(s.Values) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", s.Median, s.Min, s.Max)
}

func mebibytes(s Stat) string {
	if len(s.Values) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", s.Median, s.Min, s.Max)
}

func ratio(x float64) string {
	if x == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", x)
}

// CompareText describes a row against its baseline.
func (row *Row) CompareText() string {
	c := row.Compared
	switch {
	case c == nil:
		return ""
	case c.Note != "":
		return c.Note
	}
	text := "time " + c.Real.String() + ", CPU " + c.CPU.String() + ", RSS " + c.MaxRSS.String()
	if c.Regressed {
		text = "**REGRESSED**: " + text
	}
	return text
}

// WriteTable writes the results in Markdown, a table per study, as the
// nightly build's annotation shows them.
func (r *Report) WriteTable(w io.Writer) {
	for i, s := range r.Studies() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n", s.Title)
		first := "speed-up over stage 1"
		if !s.Havlak() {
			first = "speed-up over " + s.Rows[0].Name
		}
		fmt.Fprintf(w, "| benchmark | language | real s, median (min–max) | user s | sys s | max RSS MiB | %s |", first)
		columns := "|---|---|---:|---:|---:|---:|---:|"
		if s.Havlak() {
			fmt.Fprintf(w, " Go / C++ |")
			columns += "---:|"
		}
		if r.Baseline != "" {
			fmt.Fprintf(w, " vs baseline |")
			columns += "---|"
		}
		fmt.Fprintf(w, "\n%s\n", columns)
		for _, row := range s.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |",
				row.Name, row.Language, seconds(row.Real), seconds(row.User), seconds(row.Sys),
				mebibytes(row.MaxRSS), ratio(row.SpeedUp))
			if s.Havlak() {
				fmt.Fprintf(w, " %s |", ratio(row.GoOverCC))
			}
			if r.Baseline != "" {
				fmt.Fprintf(w, " %s |", row.CompareText())
			}
			fmt.Fprintln(w)
		}
	}
}

// WriteMarkdown writes report.md: the table, the machine, and the top
// functions of each stage's CPU profile.
func (r *Report) WriteMarkdown(w io.Writer) {
	fmt.Fprintln(w, "# havlak-lab results")
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.WorkloadNote())
	fmt.Fprintln(w)
	r.WriteTable(w)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Times are seconds over the timed runs (%s); a speed-up is the named benchmark's median real time over this one's (for the Havlak stages, stage 1 of the same language: havlak1, or havlak1cc for C++); Go / C++ is the Go stage's median real time over its C++ counterpart's.\n",
		runCounts(r.Rows))
	if r.Baseline != "" {
		fmt.Fprintf(w, "\nBaseline: %s. A benchmark regresses when benchstat's Mann-Whitney U test gives p < %.2f and its median real time is more than %.0f%% worse, or its max RSS more than %.0f%% (see docs/regressions.md); CPU time is shown, not gated.\n",
			r.Baseline, Alpha, 100*r.Threshold, 100*r.RSSThreshold)
	}

	h := r.Host()
	fmt.Fprintln(w, "\n## Machine")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- host %s: %s, %d cores, %s/%s, kernel %s\n", h.Hostname, h.CPUModel, h.Cores, h.OS, h.Arch, h.Kernel)
	fmt.Fprintf(w, "- %s (xtime); %s\n", h.GoVersion, h.GCCVersion)
	if started := r.Started(); started != "" {
		fmt.Fprintf(w, "- first run started %s\n", started)
	}

	fmt.Fprintln(w, "\n## Where the time goes")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "\n### %s (%s)\n\n", row.Name, row.Language)
		if row.CPU == nil {
			fmt.Fprintln(w, "No CPU profile.")
			continue
		}
		flat, cum := TopFunctions(row.CPU, 5)
		fmt.Fprintln(w, "| flat | function | cum | function |")
		fmt.Fprintln(w, "|---:|---|---:|---|")
		for i := 0; i < max(len(flat), len(cum)); i++ {
			cell := func(s []FuncStat) (string, string) {
				if i >= len(s) {
					return "", ""
				}
				return fmt.Sprintf("%.1f%%", 100*s[i].Fraction), "`" + strings.ReplaceAll(s[i].Name, "|", `\|`) + "`"
			}
			f1, f2 := cell(flat)
			c1, c2 := cell(cum)
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", f1, f2, c1, c2)
		}
	}

	if len(r.Problems) > 0 {
		fmt.Fprintln(w, "\n## Problems")
		fmt.Fprintln(w)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "- %s\n", p)
		}
	}
}

// runCounts says how many timed runs the rows have: "5 runs each", or
// the range when they differ.
func runCounts(rows []*Row) string {
	least, most := -1, 0
	for _, row := range rows {
		n := len(row.Runs)
		if least < 0 || n < least {
			least = n
		}
		most = max(most, n)
	}
	if least == most {
		return fmt.Sprintf("%d each", most)
	}
	return fmt.Sprintf("%d to %d each", least, most)
}
