// Package model is the report's model: the results it shows, read once
// from their outputs (tools/result), summarised into rows, grouped by
// study, and compared with a baseline's. The renderers (the Markdown
// files, the page) read it and compute nothing of their own.
package model

import (
	"sort"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// A Result is one benchmark's result as the report shows it: its
// declaration, environment and successful runs (tools/result), with the
// top functions of its CPU profile.
type Result struct {
	result.Benchmark
	Environment result.Environment
	Source      string // the zip or directory it was read from
	// Identity is what was measured (nil for a result of schema version 1).
	Identity *result.Identity
	Runs     []result.Run
	Metrics  []result.Metric
	// Sweeps: how its counted figures grow with the workload.
	Sweeps []result.Sweep
	// Side is the result as one side of the lab's comparison
	// (summary.NewSide): every figure it has, as tools/result declares
	// them, and what was measured where.
	Side summary.Side

	// Files are its CPU profile's top functions, and its profiles and
	// call graphs, read when drawn.
	Files

	// Problems lists what could not be read; the report shows what it can.
	Problems []string
}

// Started is when the result's first run started, "" without runs.
func (r *Result) Started() string {
	if len(r.Runs) == 0 {
		return ""
	}
	return r.Runs[0].Start
}

// readResult reads what the report shows of a result: its figures, its
// CPU profile's top functions, and which of its profiles and graphs can
// be read.
func readResult(f result.Found) *Result {
	res := f.Result
	r := &Result{
		Benchmark:   res.Benchmark,
		Environment: res.Environment,
		Source:      f.Path,
		Identity:    res.Identity,
		Runs:        res.Timing.Successful(),
		Metrics:     res.Metrics,
		Sweeps:      res.Sweeps,
	}
	if len(r.Runs) == 0 {
		r.Problems = append(r.Problems, f.Outputs.Path(result.FileName)+": no successful run")
	}
	var err error
	if r.Side, err = summary.NewSide(res, f.Outputs, f.Path); err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	var problems []string
	r.Files, problems = readFiles(f, []string{"cpu", "heap"}, nil)
	r.Problems = append(r.Problems, problems...)
	return r
}

// order sorts results as the report shows them, from their declarations
// alone: by study (by title), then by series (the benchmarks that share a
// reference, in the order of their references' stages), then by stage,
// then by name.
func order(results []*Result) {
	byName := map[string]*Result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	// A series is known by its reference; a benchmark without one, or
	// whose reference is missing, is a series of its own.
	series := func(r *Result) (stage int, name string) {
		if ref := byName[r.Reference]; ref != nil {
			return ref.Stage, ref.Name
		}
		return r.Stage, r.Name
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if a.Study != b.Study {
			return a.Study < b.Study
		}
		as, an := series(a)
		bs, bn := series(b)
		if an != bn {
			if as != bs {
				return as < bs
			}
			return an < bn
		}
		if a.Stage != b.Stage {
			return a.Stage < b.Stage
		}
		return a.Name < b.Name
	})
}
