package model

import (
	"fmt"
	"path"

	"github.com/google/pprof/profile"

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
		for _, kind := range []struct {
			name      string
			base, new *profile.Profile
		}{{"cpu", base.CPU, row.CPU}, {"heap", base.Heap, row.Heap}} {
			if kind.base == nil || kind.new == nil {
				continue
			}
			d, err := profilediff.Compute(kind.name, kind.base, kind.new)
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the %s profile diff: %v", row.Name, kind.name, err))
				continue
			}
			rd := RegressionDiff{Benchmark: row.Name, Diff: d}
			if rd.SVG, err = profilediff.SVG(kind.name, kind.base, kind.new); err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the %s profile diff's graph: %v", row.Name, kind.name, err))
			} else {
				rd.Graph = path.Join("stages", row.Name, kind.name+".diff.svg")
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
