package night

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/runrecord"
)

// bigsimWhy is what a perf_benchmark without quick_args declares.
const bigsimWhy = "no quick workload: its perf_benchmark gives no quick_args"

// notMeasuredManifest writes a manifest, as benchmark_manifest writes it,
// of havlak6 with its quick test and of bigsim, a full-size test alone,
// which its declaration says is not measured.
func notMeasuredManifest(t *testing.T) string {
	t.Helper()
	target := func(label string) map[string]string {
		return map[string]string{"label": "//benchmarks:" + label, "spec": "benchmarks/" + label + "_spec.json"}
	}
	data, err := json.Marshal(map[string]any{"schema_version": 2, "path": "benchmarks/manifest.json", "benchmarks": []any{
		map[string]any{"name": "havlak6", "kind": "program", "study": "havlak", "targets": map[string]any{
			"perf": target("havlak6_test"), "quick": target("havlak6_quick_test")}},
		map[string]any{"name": "bigsim", "kind": "program", "study": "simulation", "not_measured": bigsimWhy,
			"targets": map[string]any{"perf": target("bigsim_test")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The night names the benchmarks its manifest says nothing counts, each
// with why, in its summary and its run's record; they fail nothing. A
// manifest it cannot read fails the night: what no gate judged would go
// unsaid.
func TestGateNamesTheBenchmarksNotMeasured(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	baseline := filepath.Join(t.TempDir(), "baseline")
	manifest := notMeasuredManifest(t)
	tonight := makeNight(t, nightSpec{allocs: 1})
	status, log := gateNight(t, baseline, tonight, func(o *GateOptions) { o.Manifest = manifest })
	if status != 0 || !strings.Contains(log, "**Not counted**") || !strings.Contains(log, "\n- bigsim: not measured: "+bigsimWhy) ||
		strings.Contains(log, "havlak6: not measured") {
		t.Errorf("a night with bigsim not measured: exit status %d, want 0 and bigsim named, with why:\n%s", status, log)
	}
	want := []runrecord.NotMeasured{{Name: "bigsim", Why: bigsimWhy}}
	if r := runOf(t, tonight); !reflect.DeepEqual(r.NotMeasured, want) || r.Status != runrecord.Passed {
		t.Errorf("the run's record: not measured %+v, status %s; want %+v, passed", r.NotMeasured, r.Status, want)
	}

	tonight = makeNight(t, nightSpec{allocs: 1})
	status, log = gateNight(t, baseline, tonight, func(o *GateOptions) { o.Manifest = filepath.Join(t.TempDir(), "none.json") })
	r := runOf(t, tonight)
	if status == 0 || !strings.Contains(log, "nightly: the benchmarks' manifest, which names those not measured:") ||
		r.Status != runrecord.Failed || len(r.NotMeasured) != 0 {
		t.Errorf("an unreadable manifest: exit status %d, record %+v, want the night failed:\n%s", status, r, log)
	}
}

// The run's record and the summary say what the manifest read: a line
// each, "NAME: not measured: WHY", escaped in the summary.
func TestNotMeasuredRecorded(t *testing.T) {
	not := []perfspec.NotMeasured{{Benchmark: "bigsim", Why: bigsimWhy}, {Benchmark: "huge_*", Why: "no quick workload"}}
	n := &night{run: runState{started: time.Now(), opened: true, notMeasured: not}}
	r := n.runRecord(nil)
	want := []runrecord.NotMeasured{{Name: "bigsim", Why: bigsimWhy}, {Name: "huge_*", Why: "no quick workload"}}
	if !reflect.DeepEqual(r.NotMeasured, want) {
		t.Errorf("the record's not measured: %+v, want %+v", r.NotMeasured, want)
	}
	if _, err := runrecord.Marshal(r); err != nil {
		t.Errorf("the record does not check: %v", err)
	}
	var s strings.Builder
	writeNotMeasured(&s, not)
	if got := s.String(); !strings.Contains(got, "\n- bigsim: not measured: "+bigsimWhy+"\n- huge_\\*: not measured: no quick workload") {
		t.Errorf("the summary's part:\n%s", got)
	}
	s.Reset()
	if writeNotMeasured(&s, nil); s.Len() != 0 {
		t.Errorf("none, yet: %q", s.String())
	}
}
