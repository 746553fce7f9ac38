package model

import (
	"fmt"
	"path"

	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/profilediff"
)

// A RegressionDiff is one profile of a regressed benchmark against its
// baseline's: what pprof -diff_base shows.
type RegressionDiff struct {
	Benchmark string
	*profilediff.Diff
	// Graph is pprof's diff graph's path in the report, "" when it could
	// not be drawn; SVG is the graph.
	Graph string
	SVG   []byte
}

// DiffRegressions diffs the CPU and heap profiles of every regressed row
// with its baseline's into the report's ProfileDiffs. What cannot be
// diffed becomes a problem.
func (r *Report) DiffRegressions(rows []*Row) {
	for _, row := range rows {
		if row.Compared == nil || row.Compared.Baseline == nil {
			continue
		}
		base := row.Compared.Baseline
		for _, kind := range []string{"cpu", "heap"} {
			// Read again, one regression at a time: the report keeps no
			// profile.
			before, err := base.Profile(kind)
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the %s profile diff: the baseline's profile: %v", row.Name, kind, err))
				continue
			}
			tonight, err := row.Profile(kind)
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the %s profile diff: %v", row.Name, kind, err))
				continue
			}
			if before == nil || tonight == nil {
				continue
			}
			d, err := profilediff.Compute(kind, before, tonight)
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the %s profile diff: %v", row.Name, kind, err))
				continue
			}
			rd := RegressionDiff{Benchmark: row.Name, Diff: d}
			if rd.SVG, err = profilediff.SVG(kind, before, tonight); err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the %s profile diff's graph: %v", row.Name, kind, err))
			} else {
				rd.Graph = path.Join(nightdir.Stage(row.Name), kind+".diff.svg")
			}
			r.ProfileDiffs = append(r.ProfileDiffs, rd)
		}
	}
}

// How many changed functions a regression's tables show; the
// annotation's summary names fewer.
const (
	DiffFunctions        = 10
	DiffSummaryFunctions = 3
)

// Rows are the functions the tables show.
func (d RegressionDiff) Rows() []profilediff.Func { return d.Top(DiffFunctions) }
