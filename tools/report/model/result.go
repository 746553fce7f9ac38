// Package model is the report's model: the results it shows, read once
// from their outputs (tools/result), summarised into rows, grouped by
// study, and compared with a baseline's. The renderers (the Markdown
// files, the page) read it and compute nothing of their own.
package model

import (
	"fmt"
	"sort"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/result"
)

// A Result is one benchmark's result as the report shows it: its
// declaration, environment and successful runs (tools/result), with its
// profiles parsed and its call graphs read.
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
	// Figures are all its figures, as tools/result declares them: what
	// the comparison with the baseline judges.
	Figures []result.Figure

	CPU  *profile.Profile // nil when missing or unreadable
	Heap *profile.Profile
	// Graphs holds pprof's rendered call graphs by file name (cpu.svg,
	// heap.svg), to be copied next to the report.
	Graphs map[string][]byte

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

// readResult reads the profiles and graphs a result lists.
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
		Graphs:      map[string][]byte{},
	}
	if len(r.Runs) == 0 {
		r.Problems = append(r.Problems, f.Outputs.Path(result.FileName)+": no successful run")
	}
	var err error
	if r.Figures, err = result.Figures(res, f.Outputs); err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	for _, p := range res.FilesWith(result.RoleProfile) {
		switch p.Profile {
		case "cpu":
			r.CPU = r.readProfile(f.Outputs, p.Name)
		case "heap":
			r.Heap = r.readProfile(f.Outputs, p.Name)
		}
	}
	for _, g := range res.FilesWith(result.RoleGraph) {
		if data, err := f.Outputs.ReadFile(g.Name); err == nil {
			r.Graphs[g.Name] = data
		} else {
			r.Problems = append(r.Problems, err.Error())
		}
	}
	return r
}

func (r *Result) readProfile(out result.Outputs, name string) *profile.Profile {
	data, err := out.ReadFile(name)
	if err == nil {
		var p *profile.Profile
		if p, err = profile.ParseData(data); err == nil {
			return p
		}
		err = fmt.Errorf("%s: %w", out.Path(name), err)
	}
	r.Problems = append(r.Problems, err.Error())
	return nil
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
