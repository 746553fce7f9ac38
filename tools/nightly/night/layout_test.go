package night

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
	"havlak-lab/tools/summary"
	verdictlib "havlak-lab/tools/verdict"
)

// llMisses is havlak7's LL misses in the baseline's night: its program's
// count and its four layout variants' spread by 1.5% (995,000 to 1,010,000
// around a median of 1,002,000), which puts its threshold against another
// binary at twice that, 3%.
var llMisses = []float64{1_000_000, 1_010_000, 995_000, 1_005_000, 1_002_000}

// missHavlak7 gives havlak7's result in the night dir the identity of
// binary and LL misses as a C++ program's count declares them (exact,
// gated, moved by layout), misses in each counted run.
func missHavlak7(t *testing.T, dir, binary string, misses float64) {
	t.Helper()
	identifyHavlak7(t, dir, binary, func(r *result.Result) {
		r.Metrics = append(r.Metrics, result.Metric{Name: "ll_misses", Unit: "misses", Source: "cachegrind",
			Cost: result.CostLocality, Gated: true, Exact: true, Threshold: verdictlib.CountThreshold,
			Values: []float64{misses, misses, misses}})
	})
}

// keepCounts writes into the night dir the counts of benchmark that the
// night keeps (nightdir.LayoutCount): its program's, misses[0], and its
// variants', the rest; counted names the benchmark each counted.
func keepCounts(t *testing.T, dir, benchmark string, counted []string, misses []float64) {
	t.Helper()
	for v, m := range misses {
		r := &result.Result{SchemaVersion: result.SchemaVersion,
			Benchmark: result.Benchmark{Name: counted[v], Kind: result.KindProgram, Study: "Havlak loop finding", Language: "Go",
				Workload: result.Workload{Name: result.WorkloadQuick, Description: "3 trees of 50 loops"}, Repetitions: 1},
			Environment: result.Environment{Started: "2026-11-20T02:00:00Z", Build: result.Build{CompilationMode: "opt", Config: result.ConfigCounts}},
			Metrics: []result.Metric{{Name: "ll_misses", Unit: "misses", Source: "cachegrind", Cost: result.CostLocality,
				Gated: true, Exact: true, Threshold: verdictlib.CountThreshold, Values: []float64{m}}}}
		unpacked := t.TempDir()
		if err := result.Write(unpacked, r); err != nil {
			t.Fatal(err)
		}
		resulttest.ZipDir(t, unpacked, nightdir.LayoutCount(dir, benchmark, v))
	}
}

// havlak7Everywhere names havlak7 as what each of its counts counted.
var havlak7Everywhere = slices.Repeat([]string{"havlak7"}, len(llMisses))

// llVerdict is havlak7's LL misses' verdict in the night's report.
func llVerdict(t *testing.T, artifacts string) verdictlib.Verdict {
	t.Helper()
	s, err := summary.Read(filepath.Join(artifacts, nightdir.Report, summary.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range s.Benchmarks {
		for _, v := range b.Figures {
			if b.Name == "havlak7" && v.Figure == "ll_misses" {
				return v
			}
		}
	}
	t.Fatalf("no verdict of havlak7's ll_misses in the report")
	return verdictlib.Verdict{}
}

// Issue 55: the nightly calibrates the cache misses of another binary
// from the baseline's layout variants, as the perf check does. A first
// night keeps its counts and becomes the baseline with them; a night of
// another binary whose LL misses move 2%, within the baseline's layout
// noise (3%), passes, its threshold's source "layout", and its own
// counts become the baseline's; 5% regresses. The same 2% against the
// baseline's own floor (0.25%) would have failed.
func TestGateCalibratesFromTheBaselinesLayoutVariants(t *testing.T) {
	needCommands(t)
	baseline, before := firstBaseline(t, func(dir string) {
		missHavlak7(t, dir, "a", llMisses[0])
		keepCounts(t, dir, "havlak7", havlak7Everywhere, llMisses)
	})
	if _, err := os.Stat(nightdir.LayoutCount(baseline, "havlak7", 4)); err != nil {
		t.Fatalf("the promoted night's layout variants are not the baseline's: %v", err)
	}
	for _, c := range []struct {
		name        string
		misses      float64
		status      int
		says        []string
		newBaseline bool
		source      verdictlib.ThresholdSource
	}{
		{"another binary, LL misses +5%", 1_050_000, 1, []string{"report: havlak7 regressed", "ll_misses"}, false, verdictlib.Layout},
		{"another binary, LL misses +2%", 1_020_000, 0, []string{"This night becomes the baseline"}, true, verdictlib.Layout},
	} {
		tonight := makeNight(t, nightSpec{allocs: 1, started: nightStart(1)})
		missHavlak7(t, tonight, "c", c.misses)
		keepCounts(t, tonight, "havlak7", havlak7Everywhere, []float64{c.misses, c.misses, c.misses, c.misses, c.misses * 1.001})
		historyDir := t.TempDir()
		status, log := gateNight(t, baseline, tonight, func(o *GateOptions) { o.HistoryDir = historyDir })
		before = checkNight(t, c.name, status, log, c.status, c.says, baseline, before, c.newBaseline)
		// The history's archive keeps the night's counts with its results.
		if archived, _ := filepath.Glob(filepath.Join(historyDir, "nights", "*", nightdir.LayoutVariants, "havlak7", "4.zip")); len(archived) != 1 {
			t.Errorf("%s: the archive keeps %q of the night's layout variants, want its variant 4", c.name, archived)
		}
		v := llVerdict(t, tonight)
		if v.Calibration == nil || v.Calibration.Source != c.source || v.Calibration.Layouts != len(llMisses) {
			t.Errorf("%s: ll_misses calibrated %+v, want from the %d builds of the baseline's layout (%s)", c.name, v.Calibration, len(llMisses), c.source)
		}
		if strings.Contains(log, "Layout noise unknown") {
			t.Errorf("%s: the log says a layout noise is unknown:\n%s", c.name, log)
		}
	}
	// The promoted night's counts are the baseline's now: its spread is
	// 0.1%, and the 2% that passed against the older one regresses.
	tonight := makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})
	missHavlak7(t, tonight, "d", 1_020_000*1.02)
	status, log := gateNight(t, baseline, tonight)
	checkNight(t, "another binary, +2% on the new baseline", status, log, 1, []string{"report: havlak7 regressed"}, baseline, before, false)
}

// A layout variant that counted another benchmark than the baseline's
// count is refused by name: the night fails, its record saying whose
// variants could not be read, and the figure is judged without layout
// noise, never with a guess. Tonight's own variants are refused alike, so
// that they never become a baseline's.
func TestGateRefusesAnotherBenchmarksLayoutVariant(t *testing.T) {
	needCommands(t)
	baseline, _ := firstBaseline(t, func(dir string) {
		missHavlak7(t, dir, "a", llMisses[0])
		keepCounts(t, dir, "havlak7", havlak7Everywhere, llMisses)
	})
	// The baseline's second variant counted havlak6.
	keepCounts(t, baseline, "havlak7", []string{"havlak7", "havlak7", "havlak6"}, llMisses[:3])
	before := snapshot(t, baseline)
	tonight := makeNight(t, nightSpec{allocs: 1, started: nightStart(1)})
	missHavlak7(t, tonight, "c", 1_020_000)
	status, log := gateNight(t, baseline, tonight)
	checkNight(t, "the baseline's variant of havlak6", status, log, 1,
		[]string{"a layout variant of havlak7 counted havlak6", "report: havlak7 regressed"}, baseline, before, false)
	if r := runOf(t, tonight); !slices.Contains(r.Reasons, "layout variants could not be read: the baseline's havlak7") {
		t.Errorf("the run's reasons %q do not name the baseline's havlak7", r.Reasons)
	}
	if v := llVerdict(t, tonight); v.Calibration == nil || v.Calibration.Source == verdictlib.Layout || v.Calibration.Layouts != 0 {
		t.Errorf("ll_misses calibrated %+v, want without layout noise", v.Calibration)
	}

	// Tonight's variant of another workload: refused, named, not promoted.
	tonight = makeNight(t, nightSpec{allocs: 1, started: nightStart(2)})
	missHavlak7(t, tonight, "a", llMisses[0])
	keepCounts(t, tonight, "havlak7", havlak7Everywhere, llMisses)
	path := nightdir.LayoutCount(tonight, "havlak7", 3)
	files := readZip(t, path)
	editResult(t, files, func(r *result.Result) { r.Benchmark.Workload.Name = result.WorkloadStandard })
	writeZip(t, path, files)
	fresh := filepath.Join(t.TempDir(), "baseline")
	status, log = gateNight(t, fresh, tonight)
	if status != 1 || !strings.Contains(log, "a layout variant of havlak7 counted the standard workload, the base's count the quick") ||
		!slices.Contains(runOf(t, tonight).Reasons, "layout variants could not be read: tonight's havlak7") {
		t.Errorf("tonight's variant of another workload: exit status %d, want 1 naming it:\n%s", status, log)
	}
	if exists(nightdir.LayoutCount(fresh, "havlak7", 0)) {
		t.Errorf("tonight's refused variants became the baseline's")
	}
}

// The first night after the upgrade: a baseline promoted before the
// nightly kept layout variants has none. Its cache misses are judged
// against another binary by their thresholds alone (an exact count's
// floor, 0.25%), never as if calibrated: the log, the summary and the
// run's record (layout_unknown) name the benchmark, and the night fails
// only on what those thresholds fail. A night within them becomes the
// baseline with its own variants, which calibrate the next.
func TestGateWithABaselineWithoutLayoutVariants(t *testing.T) {
	needCommands(t)
	baseline, before := firstBaseline(t, func(dir string) { missHavlak7(t, dir, "a", llMisses[0]) })
	unknown := "havlak7: the baseline keeps no layout variants of it"
	for i, c := range []struct {
		name        string
		misses      float64
		status      int
		says        []string
		newBaseline bool
	}{
		{"LL misses +2%, beyond the floor", 1_020_000, 1, []string{"report: havlak7 regressed", unknown, "Layout noise unknown"}, false},
		{"LL misses +0.1%, within the floor", 1_001_000, 0, []string{unknown, "This night becomes the baseline"}, true},
	} {
		tonight := makeNight(t, nightSpec{allocs: 1, started: nightStart(i + 1)})
		missHavlak7(t, tonight, "c", c.misses)
		keepCounts(t, tonight, "havlak7", havlak7Everywhere, llMisses)
		status, log := gateNight(t, baseline, tonight)
		before = checkNight(t, c.name, status, log, c.status, c.says, baseline, before, c.newBaseline)
		if v := llVerdict(t, tonight); v.Calibration == nil || v.Calibration.Layouts != 0 || v.Calibration.Source == verdictlib.Layout {
			t.Errorf("%s: ll_misses calibrated %+v, want without layout noise", c.name, v.Calibration)
		}
		if r := runOf(t, tonight); !slices.Equal(r.LayoutUnknown, []string{unknown}) {
			t.Errorf("%s: the run's layout_unknown %q, want %q", c.name, r.LayoutUnknown, unknown)
		}
	}
	// The next night is calibrated by the variants the last one kept.
	tonight := makeNight(t, nightSpec{allocs: 1, started: nightStart(3)})
	missHavlak7(t, tonight, "d", 1_001_000*1.02)
	status, log := gateNight(t, baseline, tonight)
	checkNight(t, "the next night, +2%", status, log, 0, []string{"This night becomes the baseline"}, baseline, before, true)
	if strings.Contains(log, "Layout noise unknown") {
		t.Errorf("the next night says a layout noise is unknown:\n%s", log)
	}
}

// collectionManifest writes a manifest of havlak7, its full-size test,
// its count action and two layout variants, and havlak6cc, alike, for
// the night's collection of counts; and of havlak5, which has no
// variants.
func collectionManifest(t *testing.T) string {
	t.Helper()
	counted := func(name string) map[string]any {
		target := func(label, output string) map[string]string {
			return map[string]string{"label": "//benchmarks:" + label, "spec": "benchmarks/" + label + ".spec.json", "output": output}
		}
		return map[string]any{"name": name, "kind": "program", "study": "havlak", "targets": map[string]any{
			"perf":   map[string]string{"label": "//benchmarks:" + name + "_test", "spec": "benchmarks/" + name + "_test.spec.json"},
			"counts": target(name+"_counts", "benchmarks/"+name+"_counts.zip")},
			"layout_variants": []map[string]string{
				target(name+"_layout_1_counts", "benchmarks/"+name+"_layout_1_counts.zip"),
				target(name+"_layout_2_counts", "benchmarks/"+name+"_layout_2_counts.zip")}}
	}
	plain := map[string]any{"name": "havlak5", "kind": "program", "study": "havlak", "targets": map[string]any{
		"perf": map[string]string{"label": "//benchmarks:havlak5_test", "spec": "benchmarks/havlak5_test.spec.json"}}}
	data, err := json.Marshal(map[string]any{"schema_version": 1, "path": "benchmarks/manifest.json",
		"benchmarks": []any{counted("havlak7"), counted("havlak6cc"), plain}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// buildEvents writes a build event file in which each label of built
// completed as given: true, built whole; false, failed.
func buildEvents(t *testing.T, built map[string]bool) string {
	t.Helper()
	var lines []string
	for label, success := range built {
		data, err := json.Marshal(map[string]any{"id": map[string]any{"targetCompleted": map[string]string{"label": label}},
			"completed": map[string]bool{"success": success}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(data))
	}
	path := filepath.Join(t.TempDir(), "bazel-events.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The night builds the count actions of the benchmarks it runs, and
// collects those the build event file says were built tonight: an older
// build's zip left in bazel-bin never passes for tonight's, and a
// benchmark the night did not run has none collected.
func TestNightCollectsTheLayoutCountsItBuilt(t *testing.T) {
	manifest := collectionManifest(t)
	var all, one strings.Builder
	if err := LayoutTargets(manifest, nil, &all); err != nil {
		t.Fatal(err)
	}
	if err := LayoutTargets(manifest, []string{"//benchmarks:havlak7_test"}, &one); err != nil {
		t.Fatal(err)
	}
	havlak7 := []string{"//benchmarks:havlak7_counts", "//benchmarks:havlak7_layout_1_counts", "//benchmarks:havlak7_layout_2_counts"}
	if got := strings.Fields(one.String()); !slices.Equal(got, havlak7) {
		t.Errorf("the count targets of havlak7's night: %q, want %q", got, havlak7)
	}
	if got := strings.Fields(all.String()); len(got) != 6 || slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "havlak5") }) {
		t.Errorf("the count targets of the whole suite: %q, want havlak7's and havlak6cc's, 3 each", got)
	}

	// Tonight ran havlak7's full-size test only; bazel-bin holds every
	// count, havlak6cc's from an older build.
	dest, bazelBin := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dest, "havlak7_test"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dest, "havlak7_test", result.ZipName), []byte("tonight's result"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"havlak7", "havlak6cc"} {
		for _, count := range []string{"_counts", "_layout_1_counts", "_layout_2_counts"} {
			path := filepath.Join(bazelBin, "benchmarks", name+count+".zip")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(name+count), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	// The second variant failed to build tonight: its older zip is not
	// collected, and the error names it.
	events := buildEvents(t, map[string]bool{havlak7[0]: true, havlak7[1]: true, havlak7[2]: false, "//benchmarks:havlak6cc_counts": true})
	_, err := CollectLayoutVariants(manifest, events, bazelBin, dest)
	if err == nil || !strings.Contains(err.Error(), havlak7[2]+": not built tonight") {
		t.Errorf("a variant that failed to build: %v, want an error naming %s", err, havlak7[2])
	}
	if isFile(nightdir.LayoutCount(dest, "havlak7", 2)) {
		t.Errorf("the failed variant's older zip was collected")
	}

	events = buildEvents(t, map[string]bool{havlak7[0]: true, havlak7[1]: true, havlak7[2]: true, "//benchmarks:havlak6cc_counts": true})
	copied, err := CollectLayoutVariants(manifest, events, bazelBin, dest)
	if err != nil || !slices.Equal(copied, []string{"havlak7"}) {
		t.Fatalf("collected %q, %v; want havlak7's counts", copied, err)
	}
	for v, count := range []string{"_counts", "_layout_1_counts", "_layout_2_counts"} {
		if data, err := os.ReadFile(nightdir.LayoutCount(dest, "havlak7", v)); err != nil || string(data) != "havlak7"+count {
			t.Errorf("havlak7's count %d: %q, %v; want bazel-bin's benchmarks/havlak7%s.zip", v, data, err, count)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, nightdir.LayoutVariants, "havlak6cc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("havlak6cc's counts were collected for a night that did not run it: %v", err)
	}
}
