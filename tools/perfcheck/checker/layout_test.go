package checker

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
)

// writeCount writes a C++ program's count of ll_misses as its count
// action leaves it, a zip at path under dir.
func writeCount(t *testing.T, dir, path string, llMisses float64) {
	t.Helper()
	r := &result.Result{SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "havlak6cc", Kind: result.KindProgram, Study: "s", Language: "C++",
			Workload: result.Workload{Name: result.WorkloadQuick, Description: "quick"}, Repetitions: 3},
		Environment: result.Environment{Started: "2026-11-20T02:00:00Z", Build: result.Build{CompilationMode: "opt", Config: result.ConfigCounts}},
		Metrics:     []result.Metric{{Name: "ll_misses", Unit: "misses", Values: []float64{llMisses, llMisses, llMisses}, Gated: true, Exact: true, Threshold: 0.01}}}
	out := t.TempDir()
	if err := result.Write(out, r); err != nil {
		t.Fatal(err)
	}
	resulttest.ZipDir(t, out, filepath.Join(dir, "bazel-bin", filepath.FromSlash(path)))
}

// The base's count actions come with its layout variants': built in the
// same build, read from the zips its manifest names, each figure's
// medians (the base's count first) the base side's layout noise, and said
// in a line of their own. A variant that cannot be read fails the check,
// naming its path; the base's count is still judged, without layout
// noise. The change's side builds no variant.
func TestMeasureTheBasesLayoutVariants(t *testing.T) {
	bazelLog := filepath.Join(t.TempDir(), "bazel.calls")
	t.Setenv("FAKE_BAZEL_LOG", bazelLog)
	base := t.TempDir()
	writeFiles(t, base, map[string]string{"tools/bazel": fakeBazel, "WORKSPACE": "workspace(name = \"lab\")\n"})
	target := check.Target{Test: "//benchmarks:havlak6cc_quick_test", Benchmark: "havlak6cc",
		Counts: "//benchmarks:havlak6cc_counts", CountsOutput: "benchmarks/havlak6cc_counts.zip"}
	variants := map[string][]perfspec.ManifestTarget{"havlak6cc": {
		{Label: "//benchmarks:havlak6cc_layout_1_counts", Spec: "benchmarks/l1_spec.json", Output: "benchmarks/havlak6cc_l1.zip"},
		{Label: "//benchmarks:havlak6cc_layout_2_counts", Spec: "benchmarks/l2_spec.json", Output: "benchmarks/havlak6cc_l2.zip"},
	}}
	writeCount(t, base, target.CountsOutput, 1_000_000)
	writeCount(t, base, "benchmarks/havlak6cc_l1.zip", 1_010_000)
	writeCount(t, base, "benchmarks/havlak6cc_l2.zip", 995_000)

	measure := func(side string) (map[string]check.Measured, []string, string, string) {
		t.Helper()
		os.Remove(bazelLog)
		var log strings.Builder
		c := &checker{change: t.TempDir(), base: base, log: &log}
		var err error
		if c.bazelLog, err = os.Create(filepath.Join(t.TempDir(), "bazel.log")); err != nil {
			t.Fatal(err)
		}
		defer c.bazelLog.Close()
		workspace := base
		if side == "the change" {
			workspace = c.change
		}
		var unreadable []string
		results := c.measure(check.NewHarness(c.harness(), t.TempDir(), io.Discard), []check.Target{target}, variants, workspace, t.TempDir(), side, &unreadable)
		calls, _ := os.ReadFile(bazelLog)
		return results, unreadable, log.String(), string(calls)
	}

	results, unreadable, log, calls := measure("the base")
	layout := results["havlak6cc"].Layout[result.FigureKey{Name: "ll_misses", Unit: "misses"}]
	if len(unreadable) != 0 || len(layout) != 3 || layout[0] != 1_000_000 || layout[1] != 1_010_000 || layout[2] != 995_000 {
		t.Errorf("the base's layout: %v; unreadable %q", results["havlak6cc"].Layout, unreadable)
	}
	if !strings.Contains(calls, "//benchmarks:havlak6cc_counts //benchmarks:havlak6cc_layout_1_counts //benchmarks:havlak6cc_layout_2_counts") {
		t.Errorf("the base's build does not build its count action and its variants':\n%s", calls)
	}
	if !strings.Contains(log, "perfcheck: the base: 1 of 1 counts from a cache (counted before this check: havlak6cc), 0 counted now\n") ||
		!strings.Contains(log, "perfcheck: the base's layout variants: 2 of 2 counts from a cache, 0 counted now\n") {
		t.Errorf("log:\n%s", log)
	}

	// A variant missing: named, with its path, and no layout noise.
	missing := filepath.Join(base, "bazel-bin", "benchmarks", "havlak6cc_l2.zip")
	os.Remove(missing)
	results, unreadable, _, _ = measure("the base")
	if len(unreadable) != 1 || !strings.Contains(unreadable[0], "havlak6cc, the base's layout variants: ") || !strings.Contains(unreadable[0], missing) {
		t.Errorf("a missing variant: unreadable %q", unreadable)
	}
	if m, ok := results["havlak6cc"]; !ok || m.Result == nil || m.Layout != nil {
		t.Errorf("a missing variant: the base's count %+v, want it without layout noise", m)
	}

	// The change's side: its binary counted by the base's runner (here,
	// none: nothing to count), no variant built.
	_, _, log, calls = measure("the change")
	if strings.Contains(calls, "layout") || strings.Contains(log, "layout variants") {
		t.Errorf("the change's side built layout variants:\n%s\n%s", calls, log)
	}
}
