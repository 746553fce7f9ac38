package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/result"
	"havlak-lab/tools/trends"
)

// Report is everything the report shows.
type Report struct {
	Rows     []*Row
	Servers  []*ServerRow    // server benchmarks (kind "server")
	Trends   []trends.Series // history to chart (--trends); may be empty
	Baseline string          // where the baseline came from; empty without one
	// The gate's thresholds, as fractions.
	Threshold, RSSThreshold float64
	Problems                []string
	// ProfileDiffs are the regressions' profiles against their baselines'.
	ProfileDiffs []RegressionDiff
}

// A Study is the rows of one case study.
type Study struct {
	Title string
	Rows  []*Row
}

// ID is a name for the study's elements in the page.
func (s Study) ID() string {
	var id strings.Builder
	for _, c := range strings.ToLower(s.Title) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			id.WriteRune(c)
		case id.Len() > 0 && !strings.HasSuffix(id.String(), "-"):
			id.WriteByte('-')
		}
	}
	return "-" + strings.TrimSuffix(id.String(), "-")
}

// SpeedUpHeader names what the study's speed-ups are over: its
// benchmarks' references.
func (s Study) SpeedUpHeader() string {
	var refs []string
	for _, row := range s.Rows {
		if row.Reference != "" && !slices.Contains(refs, row.Reference) {
			refs = append(refs, row.Reference)
		}
	}
	if len(refs) == 0 {
		return "speed-up"
	}
	return "speed-up over " + strings.Join(refs, " / ")
}

// PairHeader names the study's pair-ratio column after the languages of
// its first pair ("Go / C++"), or is "" when the study has no pairs.
func (s Study) PairHeader() string {
	for i, row := range s.Rows {
		if row.PairRatio == 0 {
			continue
		}
		for _, other := range s.Rows[i+1:] {
			if other.Name == row.Counterpart {
				return row.Language + " / " + other.Language
			}
		}
	}
	return ""
}

// Studies groups the rows by study, in their order.
func (r *Report) Studies() []Study {
	var studies []Study
	for _, row := range r.Rows {
		if n := len(studies); n == 0 || studies[n-1].Title != row.Study {
			studies = append(studies, Study{Title: row.Study})
		}
		studies[len(studies)-1].Rows = append(studies[len(studies)-1].Rows, row)
	}
	return studies
}

// Quick reports whether the results are of the quick, reduced workload.
func (r *Report) Quick() bool {
	for _, row := range r.Rows {
		if row.Quick() {
			return true
		}
	}
	for _, row := range r.Servers {
		if row.Quick() {
			return true
		}
	}
	return false
}

// WorkloadNote says which workloads the results are of, as their
// benchmarks describe them.
func (r *Report) WorkloadNote() string {
	var described []string
	for _, s := range r.Studies() {
		var descriptions []string
		for _, row := range s.Rows {
			if d := row.Workload.Description; d != "" && !slices.Contains(descriptions, d) {
				descriptions = append(descriptions, d)
			}
		}
		if len(descriptions) > 0 {
			described = append(described, s.Title+", "+strings.Join(descriptions, " or "))
		}
	}
	for _, s := range r.ServerStudies() {
		var descriptions []string
		for _, row := range s.Rows {
			if d := row.Workload.Description; d != "" && !slices.Contains(descriptions, d) {
				descriptions = append(descriptions, d)
			}
		}
		if len(descriptions) > 0 {
			described = append(described, s.Title+", "+strings.Join(descriptions, " or "))
		}
	}
	if r.Quick() {
		return "Quick workloads (" + strings.Join(described, "; ") + "): " +
			"the harness at work; these timings do not compare with the standard workloads'."
	}
	return "Standard workloads: " + strings.Join(described, "; ") + "."
}

// Environment is the environment of the first result, and how many
// results ran elsewhere or with other toolchains.
func (r *Report) Environment() (env result.Environment, others int) {
	envs := []result.Environment{}
	for _, row := range r.Rows {
		envs = append(envs, row.Environment)
	}
	for _, row := range r.Servers {
		envs = append(envs, row.Environment)
	}
	for i, e := range envs {
		if i == 0 {
			env = e
		} else if len(result.Differences(env, e)) > 0 {
			others++
		}
	}
	return env, others
}

// EnvironmentText describes the environment the results ran in.
func (r *Report) EnvironmentText() string {
	if len(r.Rows) == 0 && len(r.Servers) == 0 {
		return ""
	}
	env, others := r.Environment()
	m, t, src := env.Machine, env.Toolchains, env.Source
	memory := "memory unknown"
	if m.MemoryBytes > 0 {
		memory = fmt.Sprintf("%.1f GiB", float64(m.MemoryBytes)/(1<<30))
	}
	text := fmt.Sprintf("Measured on %s: %s, %d cores, %s, %s/%s, kernel %s; %s; %s; Bazel %s, compilation mode %s",
		m.Hostname, m.CPUModel, m.Cores, memory, m.OS, m.Arch, m.Kernel,
		t.Go, t.GCC, orUnknown(t.Bazel), env.Build.CompilationMode)
	commit := orUnknown(src.Commit)
	if src.Dirty {
		commit += " with uncommitted changes"
	}
	text += "; commit " + commit + "."
	if others > 0 {
		text += fmt.Sprintf(" %d other results ran in another environment (see each result's result.json).", others)
	}
	return text
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
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
	case !c.Made && len(c.Metrics) == 0:
		return c.Note
	}
	var parts []string
	if c.Made {
		parts = append(parts, "time "+c.Real.String()+", CPU "+c.CPU.String()+", RSS "+c.MaxRSS.String())
	}
	for _, m := range c.Metrics {
		if m.Gated {
			parts = append(parts, fmt.Sprintf("%s %+.2f%%", m.Name, 100*m.Delta))
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

// WriteTable writes the results in Markdown, a table per study, as the
// nightly build's annotation shows them.
func (r *Report) WriteTable(w io.Writer) {
	for i, s := range r.Studies() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n", s.Title)
		fmt.Fprintf(w, "| benchmark | language | real s, median (min–max) | user s | sys s | max RSS MiB | %s |", s.SpeedUpHeader())
		columns := "|---|---|---:|---:|---:|---:|---:|"
		pairs := s.PairHeader()
		if pairs != "" {
			fmt.Fprintf(w, " %s |", pairs)
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
			if pairs != "" {
				fmt.Fprintf(w, " %s |", ratio(row.PairRatio))
			}
			if r.Baseline != "" {
				fmt.Fprintf(w, " %s |", row.CompareText())
			}
			fmt.Fprintln(w)
		}
	}
	r.writeServerTables(w, len(r.Rows) > 0)
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
	if len(r.Rows) > 0 {
		fmt.Fprintf(w, "Times are seconds over the timed runs (%s); a speed-up is the median real time of the benchmark's reference (named in the column) over its own; a ratio of two languages (Go / C++) is the first's median real time over its counterpart's in the second.\n",
			runCounts(r.Rows))
	}
	if len(r.Servers) > 0 {
		fmt.Fprintln(w, "\nServers: throughput (successful requests per second) and latency percentiles are the medians of the measured rounds; × reference is the throughput over the declared reference's.")
	}
	if r.Baseline != "" {
		fmt.Fprintf(w, "\nBaseline: %s. A benchmark regresses when benchstat's Mann-Whitney U test gives p < %.2f and its median real time is more than %.0f%% worse, or its max RSS more than %.0f%% (see docs/regressions.md); CPU time is shown, not gated.\n",
			r.Baseline, Alpha, 100*r.Threshold, 100*r.RSSThreshold)
	}

	r.writeMetrics(w)
	r.writeProfileDiffs(w)

	fmt.Fprintln(w, "\n## Environment")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- %s\n", r.EnvironmentText())
	if started := r.Started(); started != "" {
		fmt.Fprintf(w, "- first run started %s\n", started)
	}

	if len(r.Rows) > 0 {
		fmt.Fprintln(w, "\n## Where the time goes")
	}
	for _, row := range r.Rows {
		fmt.Fprintf(w, "\n### %s (%s)\n\n", row.Name, row.Language)
		if row.CPU == nil {
			fmt.Fprintln(w, "No CPU profile.")
			continue
		}
		writeTopFunctions(w, row.CPU)
	}

	r.writeServerProfiles(w)

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

// A MetricRow is one low-noise figure of one benchmark, summarised.
type MetricRow struct {
	Benchmark         string
	Metric            result.Metric
	Median, Min, Max  float64
	Spread            float64
	Unavailable, Gate string
}

// MetricRows lists the study's low-noise figures, benchmark by benchmark.
func (s Study) MetricRows() []MetricRow {
	var rows []MetricRow
	for _, row := range s.Rows {
		for _, m := range row.Metrics {
			mr := MetricRow{Benchmark: row.Name, Metric: m, Unavailable: m.Unavailable, Gate: "shown"}
			mr.Min, mr.Median, mr.Max = result.MinMedianMax(m.Values)
			mr.Spread = result.Spread(m.Values)
			if m.Gated {
				mr.Gate = fmt.Sprintf("gated, %.1f%%", 100*m.Threshold)
			}
			rows = append(rows, mr)
		}
	}
	return rows
}

// Value formats a figure for the tables: an integer count.
func (m MetricRow) Value(v float64) string { return fmt.Sprintf("%.0f", v) }

// SpreadText is the spread in percent.
func (m MetricRow) SpreadText() string { return fmt.Sprintf("%.3f%%", 100*m.Spread) }

// writeMetrics writes each study's low-noise figures.
func (r *Report) writeMetrics(w io.Writer) {
	header := false
	for _, s := range r.Studies() {
		rows := s.MetricRows()
		if len(rows) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\n## Low-noise figures")
			fmt.Fprintln(w, "\nCounts that hardly move between runs of the same binary; the gate judges the gated ones (a change worse than their threshold and their runs' spread).")
			header = true
		}
		fmt.Fprintf(w, "\n**%s**\n\n| benchmark | figure | median | min–max | spread | runs | gate | source |\n|---|---|---:|---:|---:|---:|---|---|\n", s.Title)
		for _, m := range rows {
			if m.Unavailable != "" {
				fmt.Fprintf(w, "| %s | %s | unavailable: %s |  |  |  |  |  |\n", m.Benchmark, m.Metric.Name, m.Unavailable)
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s %s | %s–%s | %s | %d | %s | %s |\n", m.Benchmark, m.Metric.Name,
				m.Value(m.Median), m.Metric.Unit, m.Value(m.Min), m.Value(m.Max), m.SpreadText(), len(m.Metric.Values), m.Gate, m.Metric.Source)
		}
	}
}

// writeTopFunctions writes a Markdown table of the profile's five top
// functions by flat and by cumulative time, side by side.
func writeTopFunctions(w io.Writer, p *profile.Profile) {
	flat, cum := TopFunctions(p, 5)
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
