package export

import (
	"havlak-lab/tools/report/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// Summary is the report's comparison as summary.json has it: each
// benchmark's verdict and figures, the baseline's benchmarks it lacks, the
// profile diffs, what could not be read.
func Summary(r *model.Report) *summary.Summary {
	s := &summary.Summary{Tool: "report", Baseline: r.Baseline, Problems: r.Problems, Unreadable: r.Unreadable}
	for _, row := range r.Rows {
		b := benchmark(row.Benchmark.Name, row.Study, row.Language, row.Workload.Name)
		if row.Real.Runs > 0 {
			b.Values = append(b.Values, summary.Value{Figure: "real_seconds", Unit: "s", Sample: row.Real})
		}
		for _, m := range row.Metrics {
			if len(m.Values) > 0 {
				b.Values = append(b.Values, summary.Value{Figure: m.Name, Unit: m.Unit, Sample: result.NewSample(m.Values)})
			}
		}
		if c := row.Compared; c != nil {
			judged(&b, c.Figures(), c.EnvironmentChanges, c.AllowedEnvironmentChange, c.Note)
			b.Accepted = append(b.Accepted, c.Accepted...)
		}
		s.Benchmarks = append(s.Benchmarks, b)
	}
	for _, row := range r.Servers {
		b := benchmark(row.Benchmark.Name, row.Study, row.Language, row.Workload.Name)
		// Its throughput first: what the tables show of a server.
		for _, f := range row.Figures {
			if f.Name == "throughput" && len(f.Values) > 0 {
				b.Values = []summary.Value{{Figure: f.Name, Unit: f.Unit, Sample: result.NewSample(f.Values)}}
			}
		}
		if c := row.Compared; c != nil {
			judged(&b, c.Figures(), c.EnvironmentChanges, c.AllowedEnvironmentChange, c.Note)
		}
		s.Benchmarks = append(s.Benchmarks, b)
	}
	for _, m := range r.Missing {
		s.Benchmarks = append(s.Benchmarks, summary.Benchmark{Name: m.Name, Outcome: verdict.Missing, Retired: m.Retired, Note: m.Why})
	}
	for _, d := range r.ProfileDiffs {
		s.ProfileDiffs = append(s.ProfileDiffs, summary.ProfileDiff{Benchmark: d.Benchmark, Diff: d.Diff, Graph: d.Graph})
	}
	return s
}

// benchmark is a benchmark of the summary before any comparison.
func benchmark(name, study, language, workload string) summary.Benchmark {
	return summary.Benchmark{Name: name, Study: study, Language: language, Workload: workload,
		Outcome: verdict.NotComparable, Note: "no baseline"}
}

// judged adds a comparison to b: its figures, and the environment's
// changes, which were allowed to change every figure when allowed is set
// (otherwise only the figures they cannot change were compared).
func judged(b *summary.Benchmark, figures []verdict.Verdict, changes []string, allowed bool, note string) {
	b.Figures = figures
	b.Outcome = verdict.Worst(figures)
	b.EnvironmentChanges = changes
	b.AllowedEnvironmentChange = len(changes) > 0 && allowed
	b.Note = note
}
