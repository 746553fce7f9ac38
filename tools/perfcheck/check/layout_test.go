package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/detection"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// countsResult is a C++ program's count, as its count action leaves it:
// config counts, no timing, its exact instructions and LL misses.
func countsResult(name string, instructions, llMisses float64) *result.Result {
	return &result.Result{SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: name, Kind: result.KindProgram, Study: "s", Language: "C++",
			Workload: result.Workload{Name: result.WorkloadQuick, Description: "quick"}, Repetitions: 3},
		Environment: result.Environment{Started: "2026-11-20T02:00:00Z", Build: result.Build{CompilationMode: "opt", Config: result.ConfigCounts}},
		Metrics: []result.Metric{
			{Name: "instructions", Unit: "instructions", Values: []float64{instructions, instructions, instructions}, Gated: true, Exact: true, Threshold: verdict.CountThreshold},
			{Name: "ll_misses", Unit: "misses", Values: []float64{llMisses, llMisses, llMisses}, Gated: true, Exact: true, Threshold: verdict.CountThreshold, Cost: result.CostLocality},
		}}
}

// writeCounts writes r as a count action's zip at path, and returns path.
func writeCounts(t *testing.T, r *result.Result, path string) string {
	t.Helper()
	dir := t.TempDir()
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	return resulttest.ZipDir(t, dir, path)
}

// readCounts reads a count action's zip as the check reads the base's.
func readCounts(t *testing.T, path string) Measured {
	t.Helper()
	r, out, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	return Measured{Result: r, Outputs: out}
}

// The base's layout variants, read from their zips: each figure's median
// in the base's count and in each variant, in that order.
func TestReadLayout(t *testing.T) {
	ws := t.TempDir()
	variants := []perfspec.ManifestTarget{
		{Label: "//benchmarks:havlak6cc_layout_1_counts", Spec: "benchmarks/l1.json", Output: "benchmarks/havlak6cc_layout_1_counts.zip"},
		{Label: "//benchmarks:havlak6cc_layout_2_counts", Spec: "benchmarks/l2.json", Output: "benchmarks/havlak6cc_layout_2_counts.zip"},
	}
	paths := LayoutPaths(ws, variants)
	if want := filepath.Join(ws, "bazel-bin", "benchmarks", "havlak6cc_layout_2_counts.zip"); len(paths) != 2 || paths[1] != want {
		t.Fatalf("LayoutPaths = %q, want the second %q", paths, want)
	}
	base := readCounts(t, writeCounts(t, countsResult("havlak6cc", 1e9, 1_000_000), filepath.Join(ws, "bazel-bin", "benchmarks", "havlak6cc_counts.zip")))
	writeCounts(t, countsResult("havlak6cc", 1e9, 1_010_000), paths[0])
	writeCounts(t, countsResult("havlak6cc", 1e9, 995_000), paths[1])
	layout, read, err := ReadLayout(base, paths)
	if err != nil {
		t.Fatal(err)
	}
	ll, instructions := layout[result.FigureKey{Name: "ll_misses", Unit: "misses"}], layout[result.FigureKey{Name: "instructions", Unit: "instructions"}]
	if len(read) != 2 || len(layout) != 2 || len(ll) != 3 || ll[0] != 1_000_000 || ll[1] != 1_010_000 || ll[2] != 995_000 || len(instructions) != 3 {
		t.Errorf("layout %v, %d results read", layout, len(read))
	}

	// A figure one variant lacks has no layout noise: never a guess.
	lacking := countsResult("havlak6cc", 1e9, 0)
	lacking.Metrics = lacking.Metrics[:1]
	writeCounts(t, lacking, paths[1])
	if layout, _, err := ReadLayout(base, paths); err != nil || len(layout) != 1 || len(layout[result.FigureKey{Name: "instructions", Unit: "instructions"}]) != 3 {
		t.Errorf("a variant lacking ll_misses: %v, %v", layout, err)
	}
	// No variant, no layout noise.
	if layout, _, err := ReadLayout(base, nil); err != nil || layout != nil {
		t.Errorf("no variant: %v, %v", layout, err)
	}

	// What cannot be read, or counted something else, fails naming it.
	other := countsResult("havlak7cc", 1e9, 1_000_000)
	timed := countsResult("havlak6cc", 1e9, 1_000_000)
	timed.Environment.Build.Config = result.ConfigQuick
	timed.Timing = &result.Timing{Command: "x", Runs: []result.Run{{Start: "2026-11-20T02:00:00Z", Usage: result.Usage{RealSeconds: 1, UserSeconds: 1, MaxRSSKiB: 1}}}}
	full := countsResult("havlak6cc", 1e9, 1_000_000)
	full.Benchmark.Workload.Name = result.WorkloadStandard
	for name, c := range map[string]struct {
		write *result.Result
		want  string
	}{
		"missing":           {nil, paths[1]},
		"another benchmark": {other, paths[1] + ": a layout variant of havlak6cc counted havlak7cc"},
		"another config":    {timed, paths[1] + `: a layout variant of havlak6cc of config "quick"`},
		"another workload":  {full, paths[1] + ": a layout variant of havlak6cc counted the standard workload"},
	} {
		os.Remove(paths[1])
		if c.write != nil {
			writeCounts(t, c.write, paths[1])
		}
		if layout, _, err := ReadLayout(base, paths); err == nil || !strings.Contains(err.Error(), c.want) || layout != nil {
			t.Errorf("%s: %v, %v; want an error saying %q", name, layout, err, c.want)
		}
	}
	os.WriteFile(paths[1], []byte("not a zip"), 0o644)
	if _, _, err := ReadLayout(base, paths); err == nil || !strings.Contains(err.Error(), paths[1]) {
		t.Errorf("a variant that is no zip: %v", err)
	}
}

// A neutral change moved C++ ll_misses 2%: with the base's layout
// variants spreading it 1.5%, the check passes and says the threshold
// came from them; without them it fails; 5% fails with them too.
func TestCompareWithLayoutNoise(t *testing.T) {
	ws := t.TempDir()
	at := func(name string, r *result.Result) Measured {
		return readCounts(t, writeCounts(t, r, filepath.Join(ws, name+".zip")))
	}
	base := at("base", countsResult("havlak6cc", 1e9, 1_000_000))
	base.Result.Identity = &result.Identity{BinarySHA256: strings.Repeat("a", 64), RunSHA256: strings.Repeat("c", 64)}
	layout := map[result.FigureKey][]float64{{Name: "ll_misses", Unit: "misses"}: {1_000_000, 1_007_500, 992_500, 1_000_000}}
	judge := func(base Measured, llMisses float64) summary.Benchmark {
		change := at("change", countsResult("havlak6cc", 1e9, llMisses))
		change.Result.Identity = &result.Identity{BinarySHA256: strings.Repeat("b", 64), RunSHA256: strings.Repeat("c", 64)}
		return compareMeasured(t, base, change, nil)
	}
	figure := func(b summary.Benchmark, name string) verdict.Verdict {
		for _, v := range b.Figures {
			if v.Figure == name {
				return v
			}
		}
		t.Fatalf("no %s: %+v", name, b)
		return verdict.Verdict{}
	}

	without := judge(base, 1_020_000)
	if !without.Fails() || figure(without, "ll_misses").Outcome != verdict.Regressed {
		t.Errorf("+2%% without layout variants: %+v, want a regression", without)
	}
	base.Layout = layout
	with := judge(base, 1_020_000)
	v := figure(with, "ll_misses")
	if with.Fails() || v.Outcome != verdict.Unchanged || v.Calibration.Source != verdict.Layout || v.Rule.Threshold != 0.03 {
		t.Errorf("+2%% with layout variants spreading 1.5%%: %v (%+v), want unchanged at 3%%", v, v.Calibration)
	}
	if i := figure(with, "instructions"); i.Calibration.Source != verdict.Floor {
		t.Errorf("instructions, which no variant moved: %v", i)
	}
	if v := figure(judge(base, 1_050_000), "ll_misses"); v.Outcome != verdict.Regressed || !v.Fails() {
		t.Errorf("+5%% with layout variants spreading 1.5%%: %v, want a regression", v)
	}

	// The comment says where the threshold came from.
	s := &summary.Summary{Tool: "perfcheck", Baseline: "base", Benchmarks: []summary.Benchmark{with}}
	var b strings.Builder
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "havlak6cc"}}}, summary.Pair{}, CommentLimit)
	if !strings.Contains(b.String(), "`ll_misses`: threshold 3% (calibrated from 4 layout variants of the base: layout moves it 1.5%)") {
		t.Errorf("the comment does not say the layout variants set ll_misses' threshold:\n%s", b.String())
	}
	// What the layout-raised threshold missed on this benchmark, though
	// the same figure caught a smaller case elsewhere, is said first.
	withRecord(t, &detection.Record{Version: detection.Version, Checkout: strings.Repeat("9f", 20), Cases: []detection.Case{
		{Name: "extra-work-cc-0.5", Kind: "extra-work", Language: "C++", Size: "0.5%", Benchmark: "havlak6cc", Figure: "instructions", CaughtBy: []string{"instructions"}},
		{Name: "locality-cc-1", Kind: "locality", Language: "C++", Size: "1%", Benchmark: "havlak7cc", Figure: "ll_misses", CaughtBy: []string{"ll_misses"}},
		{Name: "locality-cc-2-havlak6cc", Kind: "locality", Language: "C++", Size: "2%", Benchmark: "havlak6cc", Figure: "ll_misses", CaughtBy: []string{"instructions"}},
	}}, nil)
	b.Reset()
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "havlak6cc"}}}, summary.Pair{}, CommentLimit)
	if want := "`ll_misses`: threshold 3% (calibrated from 4 layout variants of the base: layout moves it 1.5%); on this benchmark it missed 2% locality; the smallest caught elsewhere: 1% locality, on havlak7cc"; !strings.Contains(b.String(), want) {
		t.Errorf("the comment does not say %q:\n%s", want, b.String())
	}
	if !strings.Contains(b.String(), "`instructions`: threshold 0.25% (the floor: what 3 reruns measured is under it); the smallest the suite caught with it: 0.5% extra-work, on this benchmark") {
		t.Errorf("a threshold layout did not set, said otherwise:\n%s", b.String())
	}
}

// Targets reads a benchmark's layout variants from its manifest, and the
// plan keeps the base's: the change's never calibrate.
func TestPlanKeepsTheBasesLayoutVariants(t *testing.T) {
	withVariants := func(ws string, labels ...string) string {
		path := filepath.Join(ws, "bazel-bin", testManifest)
		data, _ := os.ReadFile(path)
		var m perfspec.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for i := range m.Benchmarks {
			b := &m.Benchmarks[i]
			if b.Name != "b" {
				continue
			}
			quick := b.Targets[result.ConfigQuick]
			b.Targets[result.ConfigCounts] = perfspec.ManifestTarget{Label: "//benchmarks:b_counts", Spec: quick.Spec, Output: "benchmarks/b_counts.zip"}
			for _, l := range labels {
				b.LayoutVariants = append(b.LayoutVariants, perfspec.ManifestTarget{Label: "//benchmarks:" + l, Spec: "benchmarks/" + l + "_spec.json", Output: "benchmarks/" + l + ".zip"})
			}
		}
		data, _ = json.Marshal(m)
		os.WriteFile(path, data, 0o644)
		return ws
	}
	base, err := Targets(withVariants(workspace(t, map[string]string{"a": "same", "b": "old"}), "b_layout_1_counts", "b_layout_2_counts"), testManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	change, err := Targets(withVariants(workspace(t, map[string]string{"a": "same", "b": "new"}), "b_layout_9_counts"), testManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 2 || base[1].Benchmark != "b" || len(base[1].LayoutVariants) != 2 || base[1].Counts != "//benchmarks:b_counts" || len(base[0].LayoutVariants) != 0 {
		t.Fatalf("the base's targets: %+v", base)
	}
	p := NewPlan(base, change)
	v := p.LayoutVariants["b"]
	if len(p.Changed) != 1 || len(p.LayoutVariants) != 1 || len(v) != 2 || v[0].Label != "//benchmarks:b_layout_1_counts" || v[1].Output != "benchmarks/b_layout_2_counts.zip" {
		t.Errorf("the plan's layout variants: %+v, want the base's two", p.LayoutVariants)
	}
}
