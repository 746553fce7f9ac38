package check

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// workspace writes a built workspace as Targets reads it: the manifest of
// its benchmarks, and a quick test's spec and runfiles per benchmark, with
// the binary's bytes given.
func workspace(t *testing.T, binaries map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "WORKSPACE"), []byte("workspace(name = \"lab\")\n"), 0o644)
	bin := filepath.Join(dir, "bazel-bin")
	manifest := perfspec.Manifest{SchemaVersion: perfspec.ManifestSchemaVersion, Path: testManifest}
	for name, binary := range binaries {
		test := name + perfspec.QuickSuffix
		root := filepath.Join(bin, "benchmarks", test+".runfiles", "lab")
		os.MkdirAll(filepath.Join(root, "bin"), 0o755)
		os.WriteFile(filepath.Join(root, "bin", name), []byte(binary), 0o755)
		spec := perfspec.Spec{SchemaVersion: perfspec.SchemaVersion, Common: perfspec.Common{
			Benchmark: result.Benchmark{Name: name, Kind: result.KindProgram, Study: "s", Language: "Go",
				Workload: result.Workload{Name: result.WorkloadQuick}, Repetitions: 1},
			Status: "STABLE_GIT_COMMIT " + binary, Binary: "bin/" + name, PProf: "bin/pprof",
		}, Program: &perfspec.Program{Profiler: "go", XTime: "bin/xtime", Heap: perfspec.HeapFlag, Profiles: []string{"cpu"}}}
		data, _ := json.Marshal(spec)
		specPath := "benchmarks/" + test + "_spec.json"
		os.WriteFile(filepath.Join(bin, specPath), data, 0o644)
		manifest.Benchmarks = append(manifest.Benchmarks, perfspec.ManifestBenchmark{
			Name: name, Kind: result.KindProgram, Study: "s", Language: "Go",
			Targets: map[string]perfspec.ManifestTarget{
				result.ConfigQuick: {Label: "//benchmarks:" + test, Spec: specPath},
			},
		})
	}
	// A benchmark with no quick test is not the check's: its declaration
	// says why, and the comment names it (TestCommentNotMeasured).
	manifest.Benchmarks = append(manifest.Benchmarks, perfspec.ManifestBenchmark{
		Name: "full_size_only", Kind: result.KindProgram, Study: "s", Language: "Go", NotMeasured: "no quick workload",
		Targets: map[string]perfspec.ManifestTarget{
			result.ConfigPerf: {Label: "//benchmarks:full_size_only_test", Spec: "benchmarks/full_size_only_test_spec.json"},
		},
	})
	data, _ := json.Marshal(manifest)
	os.WriteFile(filepath.Join(bin, testManifest), data, 0o644)
	return dir
}

// testManifest is where workspace writes the manifest, under bazel-bin.
const testManifest = "benchmarks/manifest.json"

func TestPlan(t *testing.T) {
	base, err := Targets(workspace(t, map[string]string{"a": "same", "b": "old", "gone": "x"}), testManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	change, err := Targets(workspace(t, map[string]string{"a": "same", "b": "new", "fresh": "y"}), testManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(base, change)
	if len(p.Changed) != 1 || p.Changed[0].Benchmark != "b" || p.Changed[0].Test != "//benchmarks:b_quick_test" ||
		fmt.Sprint(p.Unchanged, p.Added, p.Removed) != "[a] [fresh] [gone]" {
		t.Errorf("plan %+v", p)
	}
	if dir, err := p.Changed[0].TestDir(); err != nil || dir != filepath.Join("benchmarks", "b_quick_test") {
		t.Errorf("TestDir() = %q, %v", dir, err)
	}
	// Only the benchmarks a query reached are identified; their other
	// targets need not be built. The manifest must agree with the query.
	ws := workspace(t, map[string]string{"a": "x", "b": "y"})
	os.RemoveAll(filepath.Join(ws, "bazel-bin", "benchmarks", "a_quick_test.runfiles"))
	if only, err := Targets(ws, testManifest, map[string]string{"b": "//benchmarks:b_quick_test"}); err != nil || len(only) != 1 || only[0].Benchmark != "b" {
		t.Errorf("only b: %+v, %v", only, err)
	}
	if _, err := Targets(ws, testManifest, map[string]string{"b": "//benchmarks:other_test"}); err == nil || !strings.Contains(err.Error(), "its declaration's //benchmarks:other_test") {
		t.Errorf("a label the manifest does not have: %v", err)
	}
	if _, err := Targets(ws, testManifest, map[string]string{"b": "//benchmarks:b_quick_test", "c": "//benchmarks:c_quick_test"}); err == nil || !strings.Contains(err.Error(), "lists 1 of the 2 benchmarks") {
		t.Errorf("a benchmark the manifest does not have: %v", err)
	}
	if _, err := Targets(t.TempDir(), testManifest, nil); err == nil || !strings.Contains(err.Error(), "no manifest of the benchmarks, bazel-bin/benchmarks/manifest.json: was it built?") {
		t.Errorf("an unbuilt workspace: %v", err)
	}
}

func counted(name string, values ...float64) *result.Result {
	return &result.Result{Benchmark: result.Benchmark{Name: name, Study: "s", Language: "C++"},
		Metrics: []result.Metric{{Name: "instructions", Unit: "instructions", Values: values, Gated: true, Threshold: verdict.CountThreshold}}}
}

// compareOne is the check's verdict on one benchmark measured at both
// sides.
func compareOne(t *testing.T, base, change *result.Result, accepted []verdict.Acceptance) summary.Benchmark {
	t.Helper()
	out, err := result.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return compareMeasured(t, Measured{Result: base, Outputs: out}, Measured{Result: change, Outputs: out}, accepted)
}

// compareMeasured is the check's verdict on one benchmark measured at
// both sides, with its files.
func compareMeasured(t *testing.T, base, change Measured, accepted []verdict.Acceptance) summary.Benchmark {
	t.Helper()
	s, err := Compare("base", map[string]Measured{base.Benchmark.Name: base}, map[string]Measured{change.Benchmark.Name: change}, nil, accepted)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Benchmarks) != 1 {
		t.Fatalf("one benchmark compared: %+v", s.Benchmarks)
	}
	return s.Benchmarks[0]
}

func TestCompare(t *testing.T) {
	base := counted("havlak6cc", 1e9, 1e9)
	if b := compareOne(t, base, counted("havlak6cc", 1.02e9, 1.02e9), nil); !b.Fails() || b.Outcome != verdict.Regressed {
		t.Errorf("2%% more: %+v", b)
	}
	if b := compareOne(t, base, counted("havlak6cc", 0.95e9, 0.95e9), nil); b.Fails() || b.Outcome != verdict.Improved {
		t.Errorf("5%% fewer: %+v", b)
	}
	if b := compareOne(t, base, counted("havlak6cc", 1.0001e9, 1e9), nil); b.Fails() || b.Outcome != verdict.Unchanged {
		t.Errorf("0.01%% more: %+v", b)
	}
	accepted := []verdict.Acceptance{{Benchmark: "havlak6cc", Figure: "instructions", Reason: "on purpose"}}
	if b := compareOne(t, base, counted("havlak6cc", 1.03e9), accepted); b.Fails() || len(b.Accepted) != 1 {
		t.Errorf("accepted: %+v", b)
	}
	gone := counted("havlak6cc")
	gone.Metrics[0].Unavailable = "valgrind not found"
	if b := compareOne(t, base, gone, nil); !b.Fails() || b.Outcome != verdict.Missing || !strings.Contains(b.Figures[0].Reason, "valgrind") {
		t.Errorf("no count at the change: %+v", b)
	}
}

// A change cannot loosen the gate it is judged by: the base's declaration
// decides.
func TestCompareTheBaseDecidesTheGate(t *testing.T) {
	base := counted("havlak6cc", 1e9, 1e9)
	for name, loosen := range map[string]func(*result.Metric){
		"a threshold of 100%":  func(m *result.Metric) { m.Threshold = 1 },
		"the gate dropped":     func(m *result.Metric) { m.Gated, m.Threshold = false, 0 },
		"both at once":         func(m *result.Metric) { m.Gated, m.Threshold = false, 1 },
		"as the base declares": func(*result.Metric) {},
	} {
		change := counted("havlak6cc", 1.05e9, 1.05e9)
		loosen(&change.Metrics[0])
		b := compareOne(t, base, change, nil)
		if !b.Fails() || b.Outcome != verdict.Regressed || b.Figures[0].Rule.Threshold != verdict.CountThreshold {
			t.Errorf("%s, 5%% more: %+v, want a failing regression at the base's threshold", name, b)
		}
		if name != "as the base declares" && !strings.Contains(b.FiguresMarkdown(true), "the base's") {
			t.Errorf("%s: the comment does not say the gate was loosened: %s", name, b.FiguresMarkdown(true))
		}
	}
}

func TestComment(t *testing.T) {
	s := &summary.Summary{Tool: "perfcheck", Baseline: strings.Repeat("ab", 20)}
	s.Benchmarks = append(s.Benchmarks, compareOne(t, counted("quiet"), counted("quiet"), nil))
	s.Benchmarks[0] = compareOne(t, counted("quiet", 5), counted("quiet", 5), nil)
	s.Benchmarks = append(s.Benchmarks, compareOne(t, counted("slow", 100), counted("slow", 110), nil))
	plan := Plan{Changed: []Target{{Benchmark: "quiet"}, {Benchmark: "slow"}}, Unchanged: []string{"a", "b"}, NotReached: []string{"c"}}
	var b strings.Builder
	WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
	text := b.String()
	slow, quiet := strings.Index(text, "| slow | **REGRESSED** | **REGRESSED** instructions +10.00% (100 → 110"), strings.Index(text, "| quiet |")
	if !strings.HasPrefix(text, "### :x: Perf check: 1 of 2") || slow < 0 || quiet < slow ||
		!strings.Contains(text, "2 unchanged: same binary and run, not measured; 1 not built: no file they depend on changed.") ||
		!strings.Contains(text, "<details><summary>3 not measured</summary>") || !strings.Contains(text, "- b: same binary and run at the base\n- c: not built, no file it depends on changed") {
		t.Errorf("comment:\n%s", text)
	}
	if strings.Contains(text, "edits the gate") {
		t.Errorf("a change that edits no gate file is said to:\n%s", text)
	}
	// A change that edits the gate's code is named as one, its files
	// escaped, right under the verdict.
	plan.GateEdits = []string{"tools/verdict/compare.go", "tools/perf/perfrun/*count*.go"}
	b.Reset()
	WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
	if head, _, _ := strings.Cut(b.String(), "Against the base"); !strings.Contains(head,
		"**This change edits the gate** (tools/verdict/compare.go, tools/perf/perfrun/\\*count\\*.go): it was measured and judged by the base's tools") {
		t.Errorf("a gate edit:\n%s", b.String())
	}

	// However many benchmarks, the comment stays under GitHub's limit.
	many := &summary.Summary{Tool: "perfcheck", Baseline: "abc"}
	var big Plan
	for i := range 3000 {
		name := fmt.Sprintf("benchmark_%04d_with_a_long_name", i)
		many.Benchmarks = append(many.Benchmarks, compareOne(t, counted(name, 100), counted(name, 100+float64(i%3)*5), nil))
		big.Changed = append(big.Changed, Target{Benchmark: name})
		big.Unchanged = append(big.Unchanged, name+"_other")
	}
	b.Reset()
	WriteComment(&b, many, big, summary.Pair{}, CommentLimit)
	if n := len([]rune(b.String())); n > 65536 || !strings.Contains(b.String(), "more (summary.json has them all)") {
		t.Errorf("a comment of %d characters for 3000 benchmarks", n)
	}
}

// The benchmarks that no gate can measure are named in the open, each
// with why, whatever the change reached: also when it reached none.
func TestCommentNotMeasured(t *testing.T) {
	not := []perfspec.NotMeasured{{Benchmark: "bigsim", Why: "no quick workload: its perf_benchmark gives no quick_args"},
		{Benchmark: "huge_*", Why: "no quick workload"}}
	for name, plan := range map[string]Plan{
		"measured":    {Changed: []Target{{Benchmark: "slow"}}, NotMeasured: not},
		"not reached": {NotReached: []string{"slow"}, NotMeasured: not},
	} {
		s := &summary.Summary{Tool: "perfcheck", Baseline: "abc"}
		if plan.Changed != nil {
			s.Benchmarks = append(s.Benchmarks, compareOne(t, counted("slow", 100), counted("slow", 100), nil))
		}
		var b strings.Builder
		WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
		text := b.String()
		open, _, _ := strings.Cut(text, "<details>")
		if !strings.Contains(open, "**2 never measured**") ||
			!strings.Contains(open, "\n- bigsim: not measured: no quick workload: its perf_benchmark gives no quick_args\n- huge_\\*: not measured: no quick workload\n") {
			t.Errorf("%s: the benchmarks never measured are not named, with why, outside the folds:\n%s", name, text)
		}
	}
	// Without any, the comment says nothing of them.
	var b strings.Builder
	WriteComment(&b, &summary.Summary{Tool: "perfcheck", Baseline: "abc"}, Plan{NotReached: []string{"slow"}}, summary.Pair{}, CommentLimit)
	if strings.Contains(b.String(), "never measured") {
		t.Errorf("no benchmark never measured, yet:\n%s", b.String())
	}
}

// cacheCounted is a C++ stage's counted figures, as the runner records
// them: its instructions (work) and D1 misses (locality), gated, and
// seven figures more.
func cacheCounted(instructions, d1 float64) *result.Result {
	r := counted("havlak7cc", instructions, instructions)
	metric := func(name, cost string, v float64) result.Metric {
		return result.Metric{Name: name, Unit: "n", Cost: cost, Values: []float64{v, v}, Gated: true, Threshold: verdict.CountThreshold, Exact: true}
	}
	r.Metrics[0].Cost = result.CostWork
	r.Metrics = append(r.Metrics, metric("d1_misses", result.CostLocality, d1), metric("ll_misses", result.CostLocality, 2e4),
		metric("estimated_cycles", result.CostWorkAndLocality, 1.5e8), metric("alloc_bytes", "", 4432675), metric("alloc_objects", "", 163),
		metric("read_syscalls", "", 12), metric("write_syscalls", "", 3), metric("counted_alloc_bytes", "", 10))
	return r
}

// The comment says which figure failed: havlak7cc's D1 misses, 15.93%
// more, fail; its instructions, 0.80% more, pass; the seven figures that
// did not move fold away; the row links to the dashboard's compare page
// of the base and the change.
func TestCommentEachFigure(t *testing.T) {
	base, change := strings.Repeat("ab", 20), strings.Repeat("cd", 20)
	s := &summary.Summary{Tool: "perfcheck", Baseline: base, Benchmarks: []summary.Benchmark{
		compareOne(t, cacheCounted(114_109_000, 1_000_000), cacheCounted(115_021_872, 1_159_300), nil)}}
	dashboard, err := summary.ParseDashboard("https://perf.lab.example/")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "havlak7cc"}}}, summary.Pair{Dashboard: dashboard, Base: base, Change: change}, CommentLimit)
	want := "| [havlak7cc](https://perf.lab.example/compare?a=" + base + "&b=" + change + ") | **REGRESSED** | " +
		"**REGRESSED** d1_misses +15.93% (1,000,000 → 1,159,300, noise 0.0000%, threshold 1% (declared: fewer than 3 unchanged measurements to calibrate it), cost: locality)<br>" +
		"instructions +0.80% (114,109,000 → 115,021,872, noise 0.0000%, threshold 1% (declared: fewer than 3 unchanged measurements to calibrate it)) passed " +
		"<details><summary>7 unchanged</summary>ll_misses +0.00%, estimated_cycles +0.00%, alloc_bytes +0.00%, alloc_objects +0.00%, " +
		"read_syscalls +0.00%, write_syscalls +0.00%, counted_alloc_bytes +0.00%</details> |\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("comment:\n%s\nwant the row\n%s", b.String(), want)
	}
	b.Reset()
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "havlak7cc"}}}, summary.Pair{Base: base, Change: change}, CommentLimit)
	if !strings.Contains(b.String(), "| havlak7cc | **REGRESSED** | **REGRESSED** d1_misses") || strings.Contains(b.String(), "compare?") {
		t.Errorf("without a dashboard, a link:\n%s", b.String())
	}
}

func TestCountsResultAndCache(t *testing.T) {
	counted := Target{Test: "//benchmarks:havlak6_quick_test", Benchmark: "havlak6",
		Counts: "//benchmarks:havlak6_counts", CountsOutput: "benchmarks/havlak6_counts.zip"}
	if p, err := counted.ResultPath("/ws"); err != nil || p != "/ws/bazel-bin/benchmarks/havlak6_counts.zip" {
		t.Errorf("a count action's result: %q, %v", p, err)
	}
	served := Target{Test: "//benchmarks:router_sharded_quick_test", Benchmark: "router_sharded"}
	if p, err := served.ResultPath("/ws"); err != nil || p != "/ws/bazel-testlogs/benchmarks/router_sharded_quick_test/test.outputs/outputs.zip" {
		t.Errorf("a quick test's result: %q, %v", p, err)
	}
	check := time.Date(2026, 11, 26, 7, 0, 30, 500, time.UTC)
	for started, want := range map[string]bool{
		"2026-11-26T06:59:59Z": true,  // counted by an earlier check, or on another machine
		"2026-11-26T07:00:30Z": false, // counted in this check's second
		"2026-11-26T07:01:00Z": false,
		"":                     false, // says nothing: not called cached
	} {
		r := &result.Result{Environment: result.Environment{Started: started}}
		if got := FromCache(r, check); got != want {
			t.Errorf("started %q, check at %v: from a cache %v, want %v", started, check, got, want)
		}
	}
}
