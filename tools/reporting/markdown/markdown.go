// Package markdown renders the report's model in Markdown: report.md (the
// tables, the machine, where the time goes), table.md (the tables alone,
// for CI annotations) and profile-diffs.md (a line per profile diff of a
// regression, for the nightly job's annotation).
package markdown

import (
	"fmt"
	"io"
	"strings"

	md "havlak-lab/internal/markdown"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/reporting/profiles"
	"havlak-lab/tools/verdict"
)

// DiffsFile is the name of the file WriteDiffSummary writes.
const DiffsFile = "profile-diffs.md"

// WriteTable writes table.md: the results, a table per study, each
// captioned with its workload, as the nightly build's annotation shows
// them.
func WriteTable(w io.Writer, r *model.Report) {
	for i, s := range r.Studies {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n%s\n\n", md.Escape(s.Title), md.Escape(s.Workload()))
		fmt.Fprint(w, "| benchmark | language |")
		columns := "|---|---|"
		for i, d := range s.Columns() {
			header := d.Column.Header
			if i == 0 {
				// Said once, of every figure's cell.
				header += ", median (min–max)"
			}
			fmt.Fprintf(w, " %s |", md.Escape(header))
			columns += "---:|"
		}
		fmt.Fprintf(w, " %s |", md.Escape(s.SpeedUpHeader()))
		columns += "---:|"
		pairs := s.PairHeader()
		if pairs != "" {
			fmt.Fprintf(w, " %s |", md.Escape(pairs))
			columns += "---:|"
		}
		if r.Baseline != "" {
			fmt.Fprintf(w, " vs baseline |")
			columns += "---|"
		}
		fmt.Fprintf(w, "\n%s\n", columns)
		for _, row := range s.Rows {
			fmt.Fprintf(w, "| %s | %s |", md.Escape(row.Name), md.Escape(row.Language))
			for _, c := range row.Cells() {
				fmt.Fprintf(w, " %s |", c.Range())
			}
			fmt.Fprintf(w, " %s |", model.Ratio(row.SpeedUp))
			if pairs != "" {
				fmt.Fprintf(w, " %s |", model.Ratio(row.PairRatio))
			}
			if r.Baseline != "" {
				fmt.Fprintf(w, " %s |", compareCell(row.CompareText()))
			}
			fmt.Fprintln(w)
		}
	}
	writeServerTables(w, r, len(r.Rows) > 0)
	writeMissing(w, r)
}

// compareCell is a comparison's text for a table: escaped, with a
// regression's mark in bold.
func compareCell(text string) string {
	if rest, ok := strings.CutPrefix(text, "REGRESSED: "); ok {
		return "**REGRESSED**: " + md.Escape(rest)
	}
	return md.Escape(text)
}

// writeMissing lists the baseline's benchmarks the report has no result
// of: each fails the comparison, unless retired on purpose.
func writeMissing(w io.Writer, r *model.Report) {
	if len(r.Missing) == 0 {
		return
	}
	fmt.Fprintln(w, "\n**Missing**: benchmarks of the baseline without a result here")
	fmt.Fprintln(w)
	for _, m := range r.Missing {
		what := "**MISSING**"
		if m.Retired {
			what = "retired on purpose (--retire)"
		}
		fmt.Fprintf(w, "- %s %s: %s\n", md.Escape(m.Name), what, md.Escape(m.Why))
	}
}

// WriteReport writes report.md: what it shows and leaves out, the table,
// the machine, and the top functions of each stage's CPU profile.
func WriteReport(w io.Writer, r *model.Report) {
	fmt.Fprintln(w, "# havlak-lab results")
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.WorkloadNote())
	for _, left := range r.LeftOut {
		fmt.Fprintf(w, "\n%s\n", md.Escape(left))
	}
	fmt.Fprintln(w)
	WriteTable(w, r)
	fmt.Fprintln(w)
	if len(r.Rows) > 0 {
		fmt.Fprintf(w, "Times are seconds over the timed runs (%s); a speed-up is the median real time of the benchmark's reference (named in the column) over its own; a ratio of two languages (Go / C++) is the first's median real time over its counterpart's in the second.\n",
			runCounts(r.Rows))
	}
	if len(r.Servers) > 0 {
		fmt.Fprintln(w, "\nServers: throughput (successful requests per second) and latency percentiles are the medians of the measured rounds; × reference is the throughput over the declared reference's.")
	}
	if r.Baseline != "" {
		fmt.Fprintf(w, "\nBaseline: %s. A benchmark regresses when benchstat's Mann-Whitney U test gives p < %.2f and its median real time is more than %.0f%% worse, or its max RSS more than %.0f%% (see docs/regressions.md); CPU time is shown, not gated.\n",
			md.Escape(r.Baseline), verdict.Alpha, 100*r.Threshold, 100*r.RSSThreshold)
	}

	writeMetrics(w, r)
	writeGrowth(w, r)
	writeProfileDiffs(w, r)

	fmt.Fprintln(w, "\n## Environment")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- %s\n", md.Escape(r.EnvironmentText()))
	if started := r.Started(); started != "" {
		fmt.Fprintf(w, "- first run started %s\n", started)
	}

	if len(r.Rows) > 0 {
		fmt.Fprintln(w, "\n## Where the time goes")
	}
	for _, row := range r.Rows {
		fmt.Fprintf(w, "\n### %s (%s)\n\n", md.Escape(row.Name), md.Escape(row.Language))
		if row.CPUTop == nil {
			fmt.Fprintln(w, "No CPU profile.")
			continue
		}
		writeTopFunctions(w, row.CPUTop)
	}

	writeServerProfiles(w, r)

	if len(r.Problems) > 0 {
		fmt.Fprintln(w, "\n## Problems")
		fmt.Fprintln(w)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "- %s\n", md.Escape(p))
		}
	}
}

// runCounts says how many timed runs the rows have: "5 runs each", or
// the range when they differ.
func runCounts(rows []*model.Row) string {
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

// writeMetrics writes each study's low-noise figures.
func writeMetrics(w io.Writer, r *model.Report) {
	header := false
	type study struct {
		title string
		rows  []model.MetricRow
	}
	var studies []study
	for _, s := range r.Studies {
		studies = append(studies, study{s.Title, s.MetricRows()})
	}
	for _, s := range r.ServerStudies {
		studies = append(studies, study{s.Title, s.MetricRows()})
	}
	for _, s := range studies {
		rows := s.rows
		if len(rows) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\n## Low-noise figures")
			fmt.Fprintln(w, "\nCounts that hardly move between runs of the same binary; the gate judges the gated ones (a change worse than their threshold and their runs' spread).")
			header = true
		}
		fmt.Fprintf(w, "\n**%s**\n\n| benchmark | figure | cost | median | min–max | spread | runs | gate | source |\n|---|---|---|---:|---:|---:|---:|---|---|\n", md.Escape(s.title))
		for _, m := range rows {
			if m.Unavailable != "" {
				fmt.Fprintf(w, "| %s | %s | %s | unavailable: %s |  |  |  |  |  |\n", md.Escape(m.Benchmark), md.Escape(m.Metric.Name), md.Escape(m.Metric.Cost), md.Escape(m.Unavailable))
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s %s | %s–%s | %s | %d | %s | %s |\n", md.Escape(m.Benchmark), md.Escape(m.Metric.Name), md.Escape(m.Metric.Cost),
				m.Value(m.Median), md.Escape(m.Metric.Unit), m.Value(m.Min), m.Value(m.Max), m.SpreadText(), len(m.Metric.Values), m.Gate, md.Escape(m.Metric.Source))
		}
	}
}

// writeTopFunctions writes a Markdown table of a CPU profile's top
// functions by flat and by cumulative time, side by side.
func writeTopFunctions(w io.Writer, top *profiles.Top) {
	flat, cum := top.Flat, top.Cum
	fmt.Fprintln(w, "| flat | function | cum | function |")
	fmt.Fprintln(w, "|---:|---|---:|---|")
	for i := 0; i < max(len(flat), len(cum)); i++ {
		cell := func(s []profiles.FuncStat) (string, string) {
			if i >= len(s) {
				return "", ""
			}
			return fmt.Sprintf("%.1f%%", 100*s[i].Fraction), md.Code(s[i].Name)
		}
		f1, f2 := cell(flat)
		c1, c2 := cell(cum)
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", f1, f2, c1, c2)
	}
}

// writeServerTables writes a table per server study, captioned with its
// workload: throughput and latency percentiles (medians of the rounds),
// errors, contention.
func writeServerTables(w io.Writer, r *model.Report, after bool) {
	for i, s := range r.ServerStudies {
		if after || i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n%s\n\n", md.Escape(s.Title), md.Escape(s.Workload()))
		header, columns := "| benchmark | stage |", "|---|---:|"
		for _, d := range s.Columns() {
			header, columns = header+" "+md.Escape(d.Column.Header)+" |", columns+"---:|"
			if d.Headline {
				// The reference's ratio is of the headline (the
				// throughput): beside it.
				header, columns = header+" × reference |", columns+"---:|"
			}
		}
		header, columns = header+" errors / requests | rounds | mutex contention | clean exit |", columns+"---:|---|---|---|"
		if r.Baseline != "" {
			header, columns = header+" vs baseline |", columns+"---|"
		}
		fmt.Fprintf(w, "%s\n%s\n", header, columns)
		for _, row := range s.Rows {
			fmt.Fprintf(w, "| %s | %d |", md.Escape(row.Name), row.Stage)
			for _, c := range row.Cells() {
				fmt.Fprintf(w, " %s |", c.Value())
				if c.Headline {
					fmt.Fprintf(w, " %s |", model.Ratio(row.SpeedUp))
				}
			}
			m := row.Median
			fmt.Fprintf(w, " %d / %d | %s | %s | %v |", m.Errors, m.Requests, row.RoundsText(), row.MutexContention.Short(), row.Server.Exit.Clean)
			if r.Baseline != "" {
				fmt.Fprintf(w, " %s |", compareCell(row.Compared.Text()))
			}
			fmt.Fprintln(w)
		}
	}
}

// writeServerProfiles writes, per server benchmark, the CPU profile's top
// functions and the mutex and block contention (whose texts are Markdown
// already, their function names code spans).
func writeServerProfiles(w io.Writer, r *model.Report) {
	for _, s := range r.ServerStudies {
		fmt.Fprintf(w, "\n## %s: profiles under load\n", md.Escape(s.Title))
		fmt.Fprintln(w, "\nThroughput and latencies are the medians of the measured rounds, which ran with no profile being taken; the profiles are of a further round under the same load. Latency is the load generator's (client side, on the same machine). Contention leaves out the profiler's own waiting.")
		for _, row := range s.Rows {
			fmt.Fprintf(w, "\n### %s (stage %d)\n\n", md.Escape(row.Name), row.Stage)
			rates := row.Server.Rates
			fmt.Fprintf(w, "- mutex contention (fraction 1/%d): %s\n", rates.MutexProfileFraction, row.MutexContention.Text())
			fmt.Fprintf(w, "- blocking (rate %d ns): %s\n", rates.BlockProfileRate, row.BlockContention.Text())
			if row.CPUTop == nil {
				fmt.Fprintln(w, "\nNo CPU profile.")
				continue
			}
			fmt.Fprintln(w)
			writeTopFunctions(w, row.CPUTop)
		}
	}
}

// writeProfileDiffs writes report.md's section of the regressions'
// profile diffs.
func writeProfileDiffs(w io.Writer, r *model.Report) {
	if len(r.ProfileDiffs) == 0 {
		return
	}
	fmt.Fprintln(w, "\n## What changed in the profiles of the regressions")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "pprof -diff_base: each function's weight in the new profile minus the baseline's; the %d largest changes of flat weight (the function itself running), with their cumulative change (on the stack), as a share of the baseline's total.\n", model.DiffFunctions)
	for _, d := range r.ProfileDiffs {
		fmt.Fprintf(w, "\n### %s: %s\n\n", md.Escape(d.Benchmark), d.Profile)
		d.WriteMarkdown(w, model.DiffFunctions)
		if d.Graph != "" {
			fmt.Fprintf(w, "\n[pprof's diff graph](%s) (red grew, green shrank)\n", d.Graph)
		}
	}
}

// WriteDiffSummary writes DiffsFile: a line per diff.
func WriteDiffSummary(w io.Writer, r *model.Report) {
	for _, d := range r.ProfileDiffs {
		fmt.Fprintf(w, "- %s: %s\n", md.Escape(d.Benchmark), d.Summary(model.DiffSummaryFunctions))
	}
}
