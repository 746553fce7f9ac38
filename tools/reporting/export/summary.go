package export

import (
	"slices"

	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/summary"
)

// Summary is the report's comparison as summary.json has it: the lab's
// one comparison of its benchmarks with the baseline's (model.Compare),
// or without a baseline their values alone, with the profile diffs and
// what could not be read.
func Summary(r *model.Report) *summary.Summary {
	var s summary.Summary
	if r.Compared != nil {
		s = *r.Compared
		s.Benchmarks = slices.Clone(s.Benchmarks)
	} else {
		var sides []summary.Side
		for _, row := range r.Rows {
			sides = append(sides, row.Side)
		}
		for _, row := range r.Servers {
			sides = append(sides, row.Side)
		}
		s = *summary.Uncompared("report", sides, summary.Options{})
	}
	s.Baseline, s.Problems, s.Unreadable = r.Baseline, r.Problems, r.Unreadable
	for _, d := range r.ProfileDiffs {
		s.ProfileDiffs = append(s.ProfileDiffs, summary.ProfileDiff{Benchmark: d.Benchmark, Diff: d.Diff, Graph: d.Graph})
	}
	return &s
}
