package export

import (
	"havlak-lab/tools/report/model"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// Summary is the report's comparison as summary.json has it: each
// benchmark's verdict and figures, the profile diffs, the problems.
func Summary(r *model.Report) *summary.Summary {
	s := &summary.Summary{Tool: "report", Baseline: r.Baseline, Problems: r.Problems}
	for _, row := range r.Rows {
		b := summary.Benchmark{
			Name: row.Name, Study: row.Study, Language: row.Language, Workload: row.Workload.Name,
			Outcome: verdict.NotComparable, Note: "no baseline",
		}
		if len(row.Real.Values) > 0 {
			b.Values = append(b.Values, summary.Value{Figure: "real_seconds", Unit: "s", Sample: verdict.NewSample(row.Real.Values)})
		}
		for _, m := range row.Metrics {
			if len(m.Values) > 0 {
				b.Values = append(b.Values, summary.Value{Figure: m.Name, Unit: m.Unit, Sample: verdict.NewSample(m.Values)})
			}
		}
		if c := row.Compared; c != nil {
			b.Figures = c.Figures()
			b.Outcome = verdict.Worst(b.Figures)
			b.EnvironmentChanges = c.EnvironmentChanges
			b.AllowedEnvironmentChange = len(c.EnvironmentChanges) > 0 && c.Baseline != nil
			b.Note = c.Note
		}
		s.Benchmarks = append(s.Benchmarks, b)
	}
	for _, row := range r.Servers {
		s.Benchmarks = append(s.Benchmarks, summary.Benchmark{
			Name: row.Name, Study: row.Study, Language: row.Language, Workload: row.Workload.Name,
			Outcome: verdict.NotComparable, Note: "servers are not compared with a baseline yet",
			Values: []summary.Value{{Figure: "throughput", Unit: "req/s", Sample: verdict.NewSample([]float64{row.Median.Throughput})}},
		})
	}
	for _, d := range r.ProfileDiffs {
		s.ProfileDiffs = append(s.ProfileDiffs, summary.ProfileDiff{Benchmark: d.Benchmark, Diff: d.Diff, Graph: d.Graph})
	}
	return s
}
