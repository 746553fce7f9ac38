package checker

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"havlak-lab/internal/bazelquery"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

func (c *checker) check(baseCommit string) (*summary.Summary, check.Plan, error) {
	s := &summary.Summary{Tool: "perfcheck", Baseline: baseCommit}
	reach, err := c.reach(baseCommit)
	if err != nil {
		return nil, check.Plan{}, err
	}
	manifestFile, err := perfspec.ManifestFile(c.manifest)
	if err != nil {
		return nil, check.Plan{}, err
	}
	// A change of a Bazel input may add or remove benchmarks: each side
	// builds the manifest's package whole, whatever it declares.
	pkg, _, _ := strings.Cut(c.manifest, ":")
	build := []string{pkg + ":all"}
	switch {
	case reach.Everything != "":
		fmt.Fprintf(c.log, "perfcheck: %s: every benchmark may be affected\n", reach.Everything)
	case len(reach.Reached) == 0:
		fmt.Fprintf(c.log, "perfcheck: no benchmark can be affected: no file any of the %d benchmarks' quick tests depends on changed\n", len(reach.NotReached))
		return s, check.Plan{NotReached: reach.NotReached, GateEdits: reach.GateEdits, NotMeasured: reach.NotMeasured}, nil
	default:
		build = []string{c.manifest}
		for _, name := range slices.Sorted(maps.Keys(reach.Reached)) {
			build = append(build, reach.Reached[name])
		}
		fmt.Fprintf(c.log, "perfcheck: the change can reach %d benchmarks, not the other %d\n", len(reach.Reached), len(reach.NotReached))
	}
	fmt.Fprintf(c.log, "perfcheck: the base is %s, in %s; %s tools measure and judge\n", gitwork.Short(baseCommit), c.base, c.whose())
	if len(reach.GateEdits) > 0 && !c.ownView {
		fmt.Fprintf(c.log, "perfcheck: this change edits the gate (%s): the base's copies measure and judge it\n", strings.Join(reach.GateEdits, ", "))
	}
	plan, err := c.build(build, manifestFile, reach)
	if err != nil {
		return nil, check.Plan{}, err
	}
	messages, err := c.repo.Output("log", "--format=%B", baseCommit+"..HEAD")
	if err != nil {
		return nil, check.Plan{}, err
	}
	accepted, err := verdict.ParseTrailers(messages)
	if err != nil {
		return nil, check.Plan{}, cli.UsageError{Err: fmt.Errorf("a commit's trailer: %w", err)}
	}
	var results [2]map[string]check.Measured
	var unreadable []string
	// judge is the check's verdict on what it measured.
	judge := func() (*summary.Summary, check.Plan, error) {
		s, err := check.Compare(baseCommit, results[1], results[0], plan.Removed, accepted)
		if err != nil {
			return nil, check.Plan{}, err
		}
		s.Unreadable = unreadable
		for _, b := range s.Benchmarks {
			if !b.Fails() || b.Outcome == verdict.Missing {
				continue
			}
			diffs, err := check.ProfileDiffs(b, results[1][b.Name], results[0][b.Name])
			if err != nil {
				s.Problems = append(s.Problems, err.Error())
			}
			s.ProfileDiffs = append(s.ProfileDiffs, diffs...)
		}
		if !c.ownView { // which writes no comment
			plan.Attributions = c.attribute(s, baseCommit, results[1], results[0])
		}
		return s, plan, nil
	}
	if len(plan.Changed) == 0 {
		return judge()
	}
	measured, err := os.MkdirTemp(filepath.Dir(c.bazelLog.Name()), "measured-")
	if err != nil {
		return nil, check.Plan{}, err
	}
	defer os.RemoveAll(measured)
	var outputBase strings.Builder
	if err := c.bazelTo(&outputBase, c.harness(), "info", "output_base"); err != nil {
		return nil, check.Plan{}, err
	}
	h := check.NewHarness(c.harness(), strings.TrimSpace(outputBase.String()), c.bazelLog)
	for i, side := range c.sides() {
		fmt.Fprintf(c.log, "perfcheck: [%d/4] measuring %d benchmarks at %s with %s runner\n", i+3, len(plan.Changed), side.name, c.whose())
		results[i] = c.measure(h, plan.Changed, plan.LayoutVariants, side.dir, filepath.Join(measured, strconv.Itoa(i)), side.name, &unreadable)
	}
	return judge()
}

// attribute says where each regressed or improved counted figure's
// change went (check.Attribute), with the change's diff against the base
// as measured: information beside the verdict. What cannot be said is a
// problem of the summary and a line of the log, failing nothing.
func (c *checker) attribute(s *summary.Summary, baseCommit string, base, change map[string]check.Measured) []check.Attributed {
	attributed, err := check.Attribute(s, base, change, attribution.NewSource(c.repo, baseCommit, ""))
	if err != nil {
		s.Problems = append(s.Problems, err.Error())
		fmt.Fprintf(c.log, "perfcheck: where the figures went, not all said: %v\n", err)
	}
	return attributed
}

// side is one side of the check: its name and its checkout.
type side struct{ name, dir string }

// sides are the change and the base, in the order the check builds and
// measures them.
func (c *checker) sides() []side {
	return []side{{"the change", c.change}, {"the base", c.base}}
}

// build builds the benchmarks the check builds (build) at both sides, and
// the harness (the runner that measures both sides, and the worker its
// counts are for) in its checkout, then plans what to measure from each
// side's manifest (manifest, its path under bazel-bin): the benchmarks
// whose identity changed.
func (c *checker) build(build []string, manifest string, reach check.Reach) (check.Plan, error) {
	var targets [2][]check.Target
	for i, side := range c.sides() {
		fmt.Fprintf(c.log, "perfcheck: [%d/4] building %s at %s\n", i+1, strings.Join(build, " "), side.name)
		args := append([]string{"build"}, build...)
		if side.dir == c.harness() {
			args = append(args, check.HarnessTargets...)
		}
		switch {
		case side.dir == c.base && c.countsConfig != "":
			// With the counts' config, the base (trusted code) may read
			// what main's post-merge step built.
			args = append(args, "--config="+c.countsConfig)
		case side.dir == c.change && c.changeCacheConfig != "":
			// So may a trusted job's change, its actions running here and
			// its results never uploaded (bazelArgs); the own view never
			// has a remote cache.
			args = append(args, "--config="+c.changeCacheConfig)
		}
		if err := c.bazel(side.dir, args...); err != nil {
			return check.Plan{}, fmt.Errorf("building %s: %w", side.name, err)
		}
		var err error
		if targets[i], err = check.Targets(side.dir, manifest, reach.Reached); err != nil {
			return check.Plan{}, err
		}
	}
	plan := check.NewPlan(targets[1], targets[0])
	plan.NotReached, plan.Everything, plan.GateEdits = reach.NotReached, reach.Everything, reach.GateEdits
	plan.NotMeasured = reach.NotMeasured
	fmt.Fprintf(c.log, "perfcheck: %d benchmarks changed, %d unchanged (same binary and run: not measured), %d added, %d removed\n",
		len(plan.Changed), len(plan.Unchanged), len(plan.Added), len(plan.Removed))
	return plan, nil
}

// measure measures the benchmarks as built in workspace, with the
// harness's runner (the base's; in the own view, the change's), in dir. The base's counts are its count actions, which the
// user's Bazel settings may run on a remote worker and any cache keeps
// (made once per base commit, by main's post-merge step in CI); the
// change's counts and every side's other quick tests, the base's runner
// makes here (check.Harness). With the base's count actions come those of
// its layout variants (layouts, by benchmark, as the base's manifest lists
// them), whose counts calibrate the base's thresholds against another
// binary (check.ReadLayout). In the own view the change's runner counts
// both sides: the base's count actions are its runner's, and no layout
// variant is counted. A benchmark whose result cannot be read, or whose
// base's layout variants cannot, is named in unreadable.
func (c *checker) measure(h check.Harness, targets []check.Target, layouts map[string][]perfspec.ManifestTarget, workspace, dir, side string, unreadable *[]string) map[string]check.Measured {
	var counts, variants []string
	for _, t := range targets {
		if t.Counts != "" && workspace == c.base && !c.ownView {
			counts = append(counts, t.Counts)
			for _, v := range layouts[t.Benchmark] {
				variants = append(variants, v.Label)
			}
		}
	}
	since := time.Now()
	if len(counts) > 0 {
		// A count that fails has no result: named below.
		build := []string{"build", "--keep_going"}
		if c.countsConfig != "" {
			build = append(build, "--config="+c.countsConfig)
		}
		c.bazel(c.base, slices.Concat(build, counts, variants)...)
	}
	var variantsCached int
	results := map[string]check.Measured{}
	var cached []string
	for _, t := range targets {
		var path string
		var err error
		if slices.Contains(counts, t.Counts) {
			path, err = t.ResultPath(workspace)
		} else {
			path, err = h.Measure(t, workspace, filepath.Join(dir, t.Benchmark))
		}
		var r *result.Result
		var out result.Outputs
		if err == nil {
			r, out, err = result.Read(path)
		}
		if err != nil {
			*unreadable = append(*unreadable, fmt.Sprintf("%s, %s: %v", t.Benchmark, side, err))
			continue
		}
		if slices.Contains(counts, t.Counts) && check.FromCache(r, since) {
			cached = append(cached, t.Benchmark)
		}
		m := check.Measured{Result: r, Outputs: out}
		if slices.Contains(counts, t.Counts) && len(layouts[t.Benchmark]) > 0 {
			// Fail closed: without them, the figures are judged without
			// layout noise, and the check fails on what it could not read.
			layout, read, err := check.ReadLayout(m, check.LayoutPaths(workspace, layouts[t.Benchmark]))
			if err != nil {
				*unreadable = append(*unreadable, fmt.Sprintf("%s, %s's layout variants: %v", t.Benchmark, side, err))
			}
			m.Layout = layout
			for _, r := range read {
				if check.FromCache(r, since) {
					variantsCached++
				}
			}
		}
		results[t.Benchmark] = m
	}
	if len(counts) > 0 {
		fromCache := fmt.Sprintf("%d of %d counts from a cache", len(cached), len(counts))
		if len(cached) > 0 {
			fromCache += " (counted before this check: " + strings.Join(cached, " ") + ")"
		}
		fmt.Fprintf(c.log, "perfcheck: %s: %s, %d counted now\n", side, fromCache, len(counts)-len(cached))
	}
	if len(variants) > 0 {
		fmt.Fprintf(c.log, "perfcheck: %s's layout variants: %d of %d counts from a cache, %d counted now\n", side, variantsCached, len(variants), len(variants)-variantsCached)
	}
	return results
}

// reach asks which benchmarks the change's files can reach: the changes
// since the base (git), then the target graph of the change's packages
// (bazel query, which builds nothing), the workspace's manifest in it
// (c.manifest) and the quick tests the manifest declares.
func (c *checker) reach(baseCommit string) (check.Reach, error) {
	changes, err := c.repo.Changes(baseCommit)
	if err != nil {
		return check.Reach{}, err
	}
	files, err := c.repo.Files("--cached", "--others", "--exclude-standard")
	if err != nil {
		return check.Reach{}, err
	}
	pkgs := bazelquery.Packages(files)
	fmt.Fprintf(c.log, "perfcheck: %d files changed since the base; asking Bazel which benchmarks they can reach (a query of %d packages)\n", len(changes), len(pkgs))
	var graph bytes.Buffer
	if err := c.bazelTo(&graph, c.change, "query", "--output=xml", "--order_output=no", bazelquery.Everything(pkgs)); err != nil {
		return check.Reach{}, fmt.Errorf("the query of the change's targets: %w", err)
	}
	g, err := bazelquery.ReadXML(&graph)
	if err != nil {
		return check.Reach{}, err
	}
	if c.manifest, err = perfspec.FindManifest(g, c.manifestTarget); err != nil {
		return check.Reach{}, cli.UsageError{Err: err}
	}
	quick, err := perfspec.DeclaredTargets(g, c.manifest, result.ConfigQuick)
	if err != nil {
		return check.Reach{}, err
	}
	reach := check.FindReach(changes, pkgs, g, quick)
	if reach.NotMeasured, err = perfspec.DeclaredNotMeasured(g, c.manifest); err != nil {
		return check.Reach{}, err
	}
	for _, n := range reach.NotMeasured {
		fmt.Fprintf(c.log, "perfcheck: %s\n", n)
	}
	return reach, nil
}
