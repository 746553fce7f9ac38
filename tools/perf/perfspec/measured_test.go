package perfspec

import (
	"reflect"
	"strings"
	"testing"

	"havlak-lab/internal/bazelquery"
)

// A manifest of version 2 with a benchmark that has no quick test, as
// benchmark_manifest writes it of a perf_benchmark without quick_args.
const unmeasuredJSON = `{
  "schema_version": 2,
  "path": "benchmarks/manifest.json",
  "benchmarks": [
    {
      "name": "bigsim", "kind": "program", "study": "Simulation", "stage": 0,
      "language": "C++", "counterpart": "", "reference": "", "workload": "a day", "quick_workload": "",
      "not_measured": "no quick workload: its perf_benchmark gives no quick_args",
      "targets": {
        "run": {"label": "//sim:bigsim", "spec": "sim/bigsim_spec.json"},
        "perf": {"label": "//sim:bigsim_test", "spec": "sim/bigsim_test_spec.json"}
      }
    },
    {
      "name": "small", "kind": "program", "study": "Simulation", "stage": 0,
      "language": "C++", "counterpart": "", "reference": "", "workload": "", "quick_workload": "",
      "targets": {
        "quick": {"label": "//sim:small_quick_test", "spec": "sim/small_quick_test_spec.json"}
      }
    }
  ]
}`

// A benchmark without a quick test is named with why, never left out; a
// manifest of version 1, which never says why, is read with a reason that
// says so.
func TestManifestNotMeasured(t *testing.T) {
	m, err := DecodeManifest("m.json", []byte(unmeasuredJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := []NotMeasured{{Benchmark: "bigsim", Why: "no quick workload: its perf_benchmark gives no quick_args"}}
	if got := m.NotMeasured(); !reflect.DeepEqual(got, want) {
		t.Errorf("not measured: %+v, want %+v", got, want)
	}
	if got := want[0].String(); got != "bigsim: not measured: no quick workload: its perf_benchmark gives no quick_args" {
		t.Errorf("String() = %q", got)
	}
	old := strings.Replace(strings.Replace(unmeasuredJSON, `"schema_version": 2`, `"schema_version": 1`, 1),
		`"not_measured": "no quick workload: its perf_benchmark gives no quick_args",`, "", 1)
	if m, err = DecodeManifest("m.json", []byte(old)); err != nil {
		t.Fatal(err)
	}
	if got := m.NotMeasured(); len(got) != 1 || got[0].Benchmark != "bigsim" || got[0].Why != unsaid {
		t.Errorf("not measured in a manifest of version 1: %+v", got)
	}
	// A manifest of measured benchmarks names none.
	m, err = DecodeManifest("m.json", []byte(manifestJSON))
	if err != nil || len(m.NotMeasured()) != 0 {
		t.Errorf("measured benchmarks: %+v, %v", m.NotMeasured(), err)
	}
}

// Since version 2, a benchmark says why exactly when it has no quick test.
func TestManifestNotMeasuredRefused(t *testing.T) {
	for name, c := range map[string]struct{ old, new, want string }{
		"no why": {`"not_measured": "no quick workload: its perf_benchmark gives no quick_args",`, ``,
			"benchmarks[0] (bigsim): no quick test, and no not_measured to say why"},
		"a why of a measured one": {`"quick_workload": "",
      "targets": {
        "quick"`, `"quick_workload": "", "not_measured": "none",
      "targets": {
        "quick"`, `benchmarks[1] (small).not_measured "none": it has a quick test`},
	} {
		data := strings.Replace(unmeasuredJSON, c.old, c.new, 1)
		if data == unmeasuredJSON {
			t.Fatalf("%s: %q is not in the manifest", name, c.old)
		}
		if _, err := DecodeManifest("m.json", []byte(data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// The query's declarations say which benchmarks have no quick test, and
// why, before anything is built.
func TestDeclaredNotMeasured(t *testing.T) {
	rule := func(strs map[string]string) *bazelquery.Rule { return &bazelquery.Rule{Strings: strs} }
	g := &bazelquery.Graph{Rules: map[string]*bazelquery.Rule{
		"//sim:manifest": {Class: "_benchmark_manifest", Lists: map[string][]string{"specs": {
			"//sim:bigsim_spec", "//sim:bigsim_test_spec", "//sim:small_quick_test_spec", "//sim:small_test_spec", "//sim:old_test_spec"}}},
		"//sim:bigsim_spec":           rule(map[string]string{"config": "run", "info": "//sim:bigsim_info"}),
		"//sim:bigsim_test_spec":      rule(map[string]string{"config": "perf", "info": "//sim:bigsim_info"}),
		"//sim:small_quick_test_spec": rule(map[string]string{"config": "quick", "info": "//sim:small_info"}),
		"//sim:small_test_spec":       rule(map[string]string{"config": "perf", "info": "//sim:small_info"}),
		"//sim:old_test_spec":         rule(map[string]string{"config": "perf", "info": "//sim:old_info"}),
		"//sim:bigsim_info":           rule(map[string]string{"benchmark": "bigsim", "not_measured": "no quick workload: none"}),
		"//sim:small_info":            rule(map[string]string{"benchmark": "small"}),
		// Declared by perf rules from before not_measured.
		"//sim:old_info": rule(map[string]string{"benchmark": "old"}),
	}}
	got, err := DeclaredNotMeasured(g, "//sim:manifest")
	want := []NotMeasured{{Benchmark: "bigsim", Why: "no quick workload: none"}, {Benchmark: "old", Why: unsaid}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("DeclaredNotMeasured: %+v, %v; want %+v", got, err, want)
	}
	if _, err := DeclaredNotMeasured(g, "//sim:none"); err == nil {
		t.Errorf("a manifest the query lacks: no error")
	}
}
