package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/trends"
	"havlak-lab/tools/verdict"
)

// Report is everything the report shows, grouped once for every renderer.
type Report struct {
	// Workload is the workload of every result shown (Set.Workload).
	Workload      string
	Rows          []*Row
	Studies       []Study // Rows by study, in their order
	Servers       []*ServerRow
	ServerStudies []ServerStudy // Servers by study, in their order
	// LeftOut says which results were found and not shown, and why: a
	// sentence per reason (Set.LeftOutText).
	LeftOut  []string
	Trends   []trends.Series // history to chart (--trends); may be empty
	Baseline string          // where the baseline came from; empty without one
	// The gate's thresholds, as fractions.
	Threshold, RSSThreshold float64
	Problems                []string
	// ProfileDiffs are the regressions' profiles against their baselines'.
	ProfileDiffs []RegressionDiff
	// Unreadable are the results that could not be read at all.
	Unreadable []string
	// Missing are the baseline's benchmarks that this report lacks, or
	// retired on purpose (Compare).
	Missing []Missing
	// Compared is the lab's one comparison of the report with its
	// baseline (Compare), nil without a baseline.
	Compared *summary.Summary
}

// New is the report of a set of results: its rows, grouped by study, and
// its problems.
func New(set *Set) *Report {
	r := &Report{
		Workload:   set.Workload,
		Rows:       Rows(set.Results),
		Servers:    set.Servers,
		LeftOut:    set.LeftOutText(),
		Problems:   slices.Clone(set.Problems),
		Unreadable: slices.Clone(set.Unreadable),
	}
	r.Studies = studies(r.Rows)
	r.ServerStudies = serverStudies(r.Servers)
	return r
}

// A Study is the rows of one case study.
type Study struct {
	Title string
	Rows  []*Row
}

// Columns are the figures the study's table shows, a column each.
func (Study) Columns() []result.Declared { return Columns(result.KindProgram) }

// studies groups the rows by study, in their order.
func studies(rows []*Row) []Study {
	var studies []Study
	for _, group := range byStudy(rows, func(row *Row) string { return row.Study }) {
		studies = append(studies, Study{Title: group[0].Study, Rows: group})
	}
	return studies
}

// byStudy splits rows into runs of the same study.
func byStudy[R any](rows []R, study func(R) string) [][]R {
	var groups [][]R
	for i, row := range rows {
		if i == 0 || study(rows[i-1]) != study(row) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], row)
	}
	return groups
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

// Workload describes the workloads of the study's rows.
func (s Study) Workload() string {
	var benchmarks []result.Benchmark
	for _, row := range s.Rows {
		benchmarks = append(benchmarks, row.Benchmark)
	}
	return workloadText(benchmarks)
}

// workloadText describes the workloads of a table's benchmarks, as they
// describe them: "Quick workload: 3 trees of 50 loops."
func workloadText(benchmarks []result.Benchmark) string {
	var names, descriptions []string
	for _, b := range benchmarks {
		if !slices.Contains(names, b.Workload.Name) {
			names = append(names, b.Workload.Name)
		}
		if d := b.Workload.Description; d != "" && !slices.Contains(descriptions, d) {
			descriptions = append(descriptions, d)
		}
	}
	text := strings.Join(names, " and ") + " workload"
	text = strings.ToUpper(text[:1]) + text[1:]
	if len(descriptions) > 0 {
		text += ": " + strings.Join(descriptions, " or ")
	}
	return text + "."
}

// Quick reports whether the results are of the quick, reduced workload.
func (r *Report) Quick() bool { return r.Workload == result.WorkloadQuick }

// WorkloadNote says which workload the results are of; each table names
// its benchmarks' own (Study.Workload).
func (r *Report) WorkloadNote() string {
	if r.Quick() {
		return "Quick workloads: the harness at work; these timings do not compare with the standard workloads'."
	}
	return "Standard workloads."
}

// Environment is the environment of the first result, and how many of the
// others ran elsewhere or with other toolchains (Environment), or were
// measured by another version of the lab than it (Lab, verdict.LabChange):
// a result may count in both.
func (r *Report) Environment() (env result.Environment, others struct{ Lab, Environment int }) {
	var envs []result.Environment
	var sides []verdict.Side
	for _, row := range r.Rows {
		envs, sides = append(envs, row.Environment), append(sides, row.Side.Side)
	}
	for _, row := range r.Servers {
		envs, sides = append(envs, row.Environment), append(sides, row.Side.Side)
	}
	for i, e := range envs {
		if i == 0 {
			env = e
			continue
		}
		if len(result.Differences(env, e)) > 0 {
			others.Environment++
		}
		if verdict.LabChange(sides[0], sides[i]) != "" {
			others.Lab++
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
	if others.Lab > 0 {
		text += fmt.Sprintf(" %d other results were measured by another version of the lab (see each result's identity.lab_sha256).", others.Lab)
	}
	if others.Environment > 0 {
		text += fmt.Sprintf(" %d other results ran in another environment (see each result's result.json).", others.Environment)
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
		rows = append(rows, metricRows(row.Name, row.Metrics)...)
	}
	return rows
}

// metricRows are one benchmark's low-noise figures, summarised.
func metricRows(benchmark string, metrics []result.Metric) []MetricRow {
	var rows []MetricRow
	for _, m := range metrics {
		mr := MetricRow{Benchmark: benchmark, Metric: m, Unavailable: m.Unavailable, Gate: "shown"}
		sample := result.NewSample(m.Values)
		mr.Min, mr.Median, mr.Max = sample.Min, sample.Median, sample.Max
		mr.Spread = result.NewSample(m.Values).Spread()
		if m.Gated {
			mr.Gate = fmt.Sprintf("gated, %.1f%%", 100*m.Threshold)
		}
		rows = append(rows, mr)
	}
	return rows
}

// Value formats a figure for the tables: an integer count, or a count
// per request with three decimals.
func (m MetricRow) Value(v float64) string {
	if v != math.Trunc(v) {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// SpreadText is the spread in percent.
func (m MetricRow) SpreadText() string { return fmt.Sprintf("%.3f%%", 100*m.Spread) }
