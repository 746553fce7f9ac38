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
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// A Target is one benchmark's quick test in a built workspace.
type Target struct {
	// Test is the test's label (//benchmarks:havlak6_quick_test).
	Test      string
	Benchmark string
	Identity  result.Identity
	// Counts is the label of the benchmark's count action, which counts
	// what its quick test counts and nothing else, as a Bazel action that
	// a remote worker may run and a cache keep (perf_counts): "" when it
	// has none (a server's counts need it under load, a go_test's are
	// not exact). CountsOutput is the action's zip under bazel-bin.
	Counts, CountsOutput string
	// LayoutVariants are the count actions of its layout variants, as
	// its manifest lists them (perfspec.ManifestBenchmark's): only with
	// Counts.
	LayoutVariants []perfspec.ManifestTarget
	// Spec is the quick test's spec, relative to the workspace's
	// directory in its runfiles (benchmarks/havlak6_quick_test_spec.json);
	// Mode, the runner's mode its quick test runs it in (test, gotest).
	Spec, Mode string
}

// ResultPath is where the target's result is once measured, in the
// workspace that built it: the count action's zip, or the quick test's
// outputs.zip.
func (t Target) ResultPath(workspace string) (string, error) {
	if t.Counts != "" {
		return perfspec.Built(workspace, t.CountsOutput), nil
	}
	dir, err := t.TestDir()
	if err != nil {
		return "", err
	}
	return result.TestZip(workspace, dir), nil
}

// FromCache is whether a result was measured before the moment since: a
// count action's, served by Bazel's action cache or a remote one rather
// than counted by this check. A result that does not say when it was
// measured is not called cached.
func FromCache(r *result.Result, since time.Time) bool {
	started, err := time.Parse(time.RFC3339, r.Environment.Started)
	return err == nil && started.Before(since.Truncate(time.Second))
}

// TestDir is the test's directory under bazel-testlogs and bazel-bin
// (benchmarks/havlak6_quick_test).
func (t Target) TestDir() (string, error) {
	pkg, name, ok := strings.Cut(strings.TrimPrefix(t.Test, "//"), ":")
	if !ok || !strings.HasPrefix(t.Test, "//") {
		return "", fmt.Errorf("the quick test of %s: %q is not a label of this workspace", t.Benchmark, t.Test)
	}
	return filepath.Join(filepath.FromSlash(pkg), name), nil
}

// Targets identifies the quick tests of the benchmarks a built
// workspace's manifest lists (perfspec.Manifest, at manifest under
// bazel-bin: benchmarks/manifest.json): their specs, and the files their
// runfiles hold. A benchmark with no quick test is not among them: its
// declaration says why (a Reach's NotMeasured), and the comment names it. With
// only, just the benchmarks it names, whose quick tests it says (a
// Reach's, which the query found), and which the manifest must agree
// with.
func Targets(workspace, manifest string, only map[string]string) ([]Target, error) {
	m, err := perfspec.ReadManifest(filepath.Join(workspace, "bazel-bin", manifest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no manifest of the benchmarks, bazel-bin/%s: was it built?", workspace, manifest)
	}
	if err != nil {
		return nil, err
	}
	root, err := m.Root()
	if err != nil {
		return nil, err
	}
	var targets []Target
	for _, b := range m.Benchmarks {
		quick, ok := b.Targets[result.ConfigQuick]
		want, listed := only[b.Name]
		switch {
		case !ok || (only != nil && !listed):
			continue
		case only != nil && want != quick.Label:
			return nil, fmt.Errorf("%s: the manifest's quick test of %s is %s, its declaration's %s", workspace, b.Name, quick.Label, want)
		}
		spec, err := m.ReadSpec(quick)
		if err != nil {
			return nil, err
		}
		t := Target{Test: quick.Label, Benchmark: b.Name, Spec: quick.Spec, Mode: "test"}
		if spec.GoTest != nil {
			t.Mode = "gotest"
		}
		if counts, ok := b.Targets[result.ConfigCounts]; ok {
			if counts.Spec != quick.Spec {
				return nil, fmt.Errorf("%s: the count action of %s counts %s, not its quick test's spec %s", workspace, b.Name, counts.Spec, quick.Spec)
			}
			t.Counts, t.CountsOutput = counts.Label, counts.Output
			t.LayoutVariants = b.LayoutVariants
		}
		dir, err := t.TestDir()
		if err != nil {
			return nil, err
		}
		runfiles, err := runfilesRoot(workspace, filepath.Join(root, dir+".runfiles"))
		if err != nil {
			return nil, err
		}
		if t.Identity, err = spec.Identity(runfiles); err != nil {
			return nil, err
		}
		targets = append(targets, t)
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Benchmark < targets[j].Benchmark })
	if only != nil && len(targets) != len(only) {
		return nil, fmt.Errorf("%s: the manifest lists %d of the %d benchmarks the query found", workspace, len(targets), len(only))
	}
	return targets, nil
}

var workspaceName = regexp.MustCompile(`(?m)^workspace\(\s*name\s*=\s*"(\w+)"`)

// workspaceNameOf is the workspace's name, as its WORKSPACE file says: its
// directory's in a runfiles tree.
func workspaceNameOf(workspace string) (string, error) {
	data, err := os.ReadFile(filepath.Join(workspace, "WORKSPACE"))
	if err != nil {
		return "", err
	}
	m := workspaceName.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no workspace(name = ...)", filepath.Join(workspace, "WORKSPACE"))
	}
	return string(m[1]), nil
}

// runfilesRoot is the workspace's own directory in a quick test's
// runfiles tree: named after the workspace (its WORKSPACE file says).
func runfilesRoot(workspace, runfiles string) (string, error) {
	name, err := workspaceNameOf(workspace)
	if err != nil {
		return "", err
	}
	root := filepath.Join(runfiles, name)
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
	// NotReached are neither built nor measured: no file they depend on
	// changed (a Reach's).
	NotReached []string
	// Everything, when set, says why every benchmark was built (a Reach's).
	Everything string
	// GateEdits are the changed files of the gate's own code (a Reach's):
	// the base's copies measured and judged the change all the same.
	GateEdits []string
	// NotMeasured are the change's benchmarks that no gate can count or
	// judge, whatever the change, each with why its declaration says (a
	// Reach's): never left out silently, the comment names them.
	NotMeasured []perfspec.NotMeasured
	// Added are new with the change; Removed, gone from it.
	Added, Removed []string
	// LayoutVariants are, by benchmark of Changed, the count actions of
	// its layout variants as the base's manifest lists them: the base's
	// variants calibrate its thresholds, never the change's.
	LayoutVariants map[string][]perfspec.ManifestTarget
	// OwnView, when the change edits the gate, is what its own tools
	// would say, shown beside the verdict and deciding nothing; nil when
	// they were not asked.
	OwnView *OwnView
	// Attributions say where each regressed or improved counted figure's
	// change went (Attribute): shown under the table, deciding nothing.
	Attributions []Attributed
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
			if len(b.LayoutVariants) > 0 {
				if p.LayoutVariants == nil {
					p.LayoutVariants = map[string][]perfspec.ManifestTarget{}
				}
				p.LayoutVariants[t.Benchmark] = b.LayoutVariants
			}
		}
		delete(before, t.Benchmark)
	}
	for name := range before {
		p.Removed = append(p.Removed, name)
	}
	sort.Strings(p.Removed)
	return p
}

// Compare judges the benchmarks measured at both sides (by name) by the
// lab's one comparison of benchmarks (summary.Compare): their counted
// figures, the base deciding which are gated and at what threshold, and
// their growth; a gated figure or sweep the change lacks is missing, and
// so is each benchmark of removed (the base declares it, the change does
// not). Timings are left out: on a shared runner they are noise. The
// environments are not compared either: both sides ran on this agent, or
// their counts on the declared count worker, which refuses to count
// anywhere else (result.CountWorker). Accepted regressions are recorded
// and do not fail. The base's layout noise (Measured's Layout) calibrates
// the thresholds of the figures layout moves (verdict.Side's Layout).
func Compare(baseCommit string, base, change map[string]Measured, removed []string, accepted []verdict.Acceptance) (*summary.Summary, error) {
	var before, after []summary.Side
	for _, name := range slices.Sorted(maps.Keys(change)) {
		b, c := base[name], change[name]
		if b.Result == nil {
			continue
		}
		for i, m := range []Measured{b, c} {
			side, err := summary.NewSide(m.Result, m.Outputs, m.Outputs.Path(result.FileName))
			if err != nil {
				return nil, err
			}
			if i == 0 {
				side.Layout = m.Layout
				before = append(before, side)
			} else {
				after = append(after, side)
			}
		}
	}
	for _, name := range removed {
		before = append(before, summary.Declared(name, "the base's manifest"))
	}
	s, err := summary.Compare("perfcheck", baseCommit, before, after, summary.Counted(accepted))
	if err != nil {
		return nil, err
	}
	for i := range s.Benchmarks {
		b := &s.Benchmarks[i]
		if b.Outcome != verdict.Missing && !slices.ContainsFunc(b.Figures, func(v verdict.Verdict) bool { return v.Rule.Gated }) {
			b.Note = verdict.JoinNotes(b.Note, "no gated counted figure: its quick test counts none")
		}
	}
	return s, nil
}
