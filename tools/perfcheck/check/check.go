// Package check is the perf check of a change: which benchmarks a change
// can affect at all, and what it does to the counted figures of those it
// does, against its base. A benchmark whose binary and declared run are
// the same at the base and at the change (their identity, perfspec) cannot
// have changed: any difference between two measurements of it would be
// noise, so it is not measured. The others are measured on both sides, on
// their quick workload, and their gated counted figures (Cachegrind's
// instructions, allocation counts) judged by tools/verdict, which is
// indifferent to a noisy runner.
package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// QuickSuffix names the quick test of a benchmark: what the check builds,
// identifies and runs.
const QuickSuffix = "_quick_test"

// A Target is one benchmark's quick test in a built workspace.
type Target struct {
	// Test is the test's name in the package (havlak6_quick_test).
	Test      string
	Benchmark string
	Identity  result.Identity
}

// Targets identifies the quick tests of package pkg in a built workspace:
// their specs (bazel-bin/PKG/NAME_quick_test_spec.json) and the files
// their runfiles hold.
func Targets(workspace, pkg string) ([]Target, error) {
	specs, err := filepath.Glob(filepath.Join(workspace, "bazel-bin", pkg, "*"+QuickSuffix+"_spec.json"))
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%s: no quick tests' specs under bazel-bin/%s: was //%s:all built?", workspace, pkg, pkg)
	}
	var targets []Target
	for _, path := range specs {
		test := strings.TrimSuffix(filepath.Base(path), "_spec.json")
		spec, err := perfspec.Read(path)
		if err != nil {
			return nil, err
		}
		runfiles, err := runfilesRoot(workspace, filepath.Join(filepath.Dir(path), test+".runfiles"))
		if err != nil {
			return nil, err
		}
		id, err := spec.Identity(runfiles)
		if err != nil {
			return nil, err
		}
		targets = append(targets, Target{Test: test, Benchmark: spec.Benchmark.Name, Identity: id})
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Benchmark < targets[j].Benchmark })
	return targets, nil
}

var workspaceName = regexp.MustCompile(`(?m)^workspace\(\s*name\s*=\s*"(\w+)"`)

// runfilesRoot is the workspace's own directory in a quick test's
// runfiles tree: named after the workspace (its WORKSPACE file says).
func runfilesRoot(workspace, runfiles string) (string, error) {
	data, err := os.ReadFile(filepath.Join(workspace, "WORKSPACE"))
	if err != nil {
		return "", err
	}
	m := workspaceName.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no workspace(name = ...)", filepath.Join(workspace, "WORKSPACE"))
	}
	root := filepath.Join(runfiles, string(m[1]))
	if _, err := os.Stat(root); err != nil {
		return "", fmt.Errorf("the runfiles of a quick test: %w", err)
	}
	return root, nil
}

// A Plan sorts the benchmarks of the base and the change.
type Plan struct {
	// Changed are measured: their identity differs.
	Changed []Target
	// Unchanged are not: same binary and run at both.
	Unchanged []string
	// Added are new with the change; Removed, gone from it.
	Added, Removed []string
}

// NewPlan compares the identities of the base's and the change's targets.
func NewPlan(base, change []Target) Plan {
	var p Plan
	before := map[string]Target{}
	for _, t := range base {
		before[t.Benchmark] = t
	}
	for _, t := range change {
		b, ok := before[t.Benchmark]
		switch {
		case !ok:
			p.Added = append(p.Added, t.Benchmark)
		case b.Identity == t.Identity:
			p.Unchanged = append(p.Unchanged, t.Benchmark)
		default:
			p.Changed = append(p.Changed, t)
		}
		delete(before, t.Benchmark)
	}
	for name := range before {
		p.Removed = append(p.Removed, name)
	}
	sort.Strings(p.Removed)
	return p
}

// Compare judges the change's result against the base's by the lab's one
// comparison (verdict.Policy.Compare): its counted figures, the base
// deciding which are gated and at what threshold, and their growth; a
// gated figure or sweep the change lacks is missing.
// Timings are left out: on a shared runner they are noise. Accepted
// regressions of this benchmark are recorded and do not fail.
func Compare(base, change *result.Result, accepted []verdict.Acceptance) summary.Benchmark {
	b := summary.Benchmark{Name: change.Benchmark.Name, Study: change.Benchmark.Study,
		Language: change.Benchmark.Language, Workload: change.Benchmark.Workload.Name}
	b.Figures = verdict.Lab.Compare(
		verdict.Side{Figures: result.MetricFigures(base.Metrics), Sweeps: base.Sweeps},
		verdict.Side{Figures: result.MetricFigures(change.Metrics), Sweeps: change.Sweeps})
	for _, f := range b.Figures {
		if n := change.Metric(f.Figure); n != nil && len(n.Values) > 0 {
			b.Values = append(b.Values, summary.Value{Figure: n.Name, Unit: n.Unit, Sample: verdict.NewSample(n.Values)})
		}
	}
	for _, a := range accepted {
		if a.Benchmark == b.Name && !b.Accepts(a.Figure) {
			b.Accepted = append(b.Accepted, a)
		}
	}
	b.Outcome = verdict.Worst(b.Figures)
	if !slices.ContainsFunc(b.Figures, func(v verdict.Verdict) bool { return v.Rule.Gated }) {
		b.Note = "no gated counted figure: its quick test counts none"
	}
	return b
}
