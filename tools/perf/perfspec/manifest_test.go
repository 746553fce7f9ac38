package perfspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// A manifest as benchmark_manifest writes it.
const manifestJSON = `{
  "schema_version": 1,
  "path": "benchmarks/manifest.json",
  "benchmarks": [
    {
      "name": "havlak6", "kind": "program", "study": "Havlak loop finding", "stage": 6,
      "language": "Go", "counterpart": "havlak6cc", "reference": "havlak1",
      "workload": "252013 blocks and 76000 loops, 1 + 50 loop-finding passes",
      "quick_workload": "3 trees of 50 loops",
      "targets": {
        "run": {"label": "//benchmarks:havlak6", "spec": "benchmarks/havlak6_spec.json"},
        "perf": {"label": "//benchmarks:havlak6_test", "spec": "benchmarks/havlak6_test_spec.json"},
        "quick": {"label": "//benchmarks:havlak6_quick_test", "spec": "benchmarks/havlak6_quick_test_spec.json"},
        "counts": {"label": "//benchmarks:havlak6_counts", "spec": "benchmarks/havlak6_quick_test_spec.json", "output": "benchmarks/havlak6_counts.zip"}
      },
      "layout_variants": [
        {"label": "//benchmarks:havlak6_layout_1_counts", "spec": "benchmarks/havlak6_layout_1_counts_spec.json", "output": "benchmarks/havlak6_layout_1_counts.zip"},
        {"label": "//benchmarks:havlak6_layout_2_counts", "spec": "benchmarks/havlak6_layout_2_counts_spec.json", "output": "benchmarks/havlak6_layout_2_counts.zip"}
      ]
    },
    {
      "name": "explodepath", "kind": "go_test", "study": "explodePath", "stage": 0,
      "language": "Go", "counterpart": "", "reference": "", "workload": "", "quick_workload": "",
      "targets": {
        "quick": {"label": "//benchmarks:explodepath_quick_test", "spec": "benchmarks/explodepath_quick_test_spec.json"}
      }
    }
  ]
}`

func TestReadManifest(t *testing.T) {
	bin := t.TempDir()
	os.MkdirAll(filepath.Join(bin, "benchmarks"), 0o755)
	file := filepath.Join(bin, "benchmarks", "manifest.json")
	os.WriteFile(file, []byte(manifestJSON), 0o644)
	os.WriteFile(filepath.Join(bin, "benchmarks", "havlak6_quick_test_spec.json"), []byte(programSpec), 0o644)
	m, err := ReadManifest(file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Benchmark("havlak6")
	if err != nil || b.Counterpart != "havlak6cc" || b.Stage != 6 || b.Kind != result.KindProgram {
		t.Fatalf("havlak6: %+v, %v", b, err)
	}
	quick, err := b.Target(result.ConfigQuick)
	if err != nil || quick.Label != "//benchmarks:havlak6_quick_test" {
		t.Errorf("havlak6's quick test: %+v, %v", quick, err)
	}
	if counts, err := b.Target(result.ConfigCounts); err != nil || counts.Output != "benchmarks/havlak6_counts.zip" || counts.Spec != quick.Spec {
		t.Errorf("havlak6's count action: %+v, %v", counts, err)
	}
	if v := b.LayoutVariants; len(v) != 2 || v[1].Label != "//benchmarks:havlak6_layout_2_counts" ||
		v[1].Spec != "benchmarks/havlak6_layout_2_counts_spec.json" || v[1].Output != "benchmarks/havlak6_layout_2_counts.zip" {
		t.Errorf("havlak6's layout variants: %+v", v)
	}
	if root, err := m.Root(); err != nil || root != bin {
		t.Errorf("Root() = %q, %v; want %q", root, err, bin)
	}
	spec, err := m.ReadSpec(quick)
	if err != nil || spec.Benchmark.Name != "havlak6" {
		t.Errorf("ReadSpec(%+v) = %+v, %v", quick, spec, err)
	}
	if _, err := m.Benchmark("havlak9"); err == nil || !strings.Contains(err.Error(), "it lists havlak6, explodepath") {
		t.Errorf("an unknown benchmark: %v", err)
	}
	e, _ := m.Benchmark("explodepath")
	if _, err := e.Target(result.ConfigRun); err == nil || !strings.Contains(err.Error(), "no run target") {
		t.Errorf("a target it lacks: %v", err)
	}

	// A manifest not at its own path cannot say where its specs are.
	moved := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(moved, []byte(manifestJSON), 0o644)
	if m, err := ReadManifest(moved); err != nil {
		t.Fatal(err)
	} else if _, err := m.Root(); err == nil {
		t.Errorf("the root of a moved manifest: no error")
	}
	if _, err := ReadManifest(filepath.Join(bin, "none.json")); err == nil {
		t.Errorf("a missing manifest: no error")
	}
}

func TestDecodeManifestRefuses(t *testing.T) {
	for name, c := range map[string]struct{ old, new, want string }{
		"another version": {`"schema_version": 1`, `"schema_version": 3`, "schema_version 3: want 1 to 2"},
		"version 0":       {`"schema_version": 1`, `"schema_version": 0`, "schema_version 0: want 1 to 2"},
		// not_measured came in version 2.
		"not_measured in 1": {`"quick_workload": "",`, `"quick_workload": "", "not_measured": "no quick workload",`,
			`benchmarks[1] (explodepath).not_measured: in a manifest of schema_version 1: it came in version 2`},
		"an unknown field":    {`"path":`, `"paths": [], "path":`, `unknown field "paths"`},
		"an absolute path":    {`"benchmarks/havlak6_spec.json"`, `"/benchmarks/havlak6_spec.json"`, "targets.run.spec"},
		"a path out of it":    {`"benchmarks/manifest.json"`, `"../manifest.json"`, `path "../manifest.json"`},
		"a name twice":        {`"name": "explodepath"`, `"name": "havlak6"`, `benchmarks[1]: the benchmark "havlak6" a second time`},
		"an unknown kind":     {`"kind": "go_test"`, `"kind": "test"`, `(explodepath).kind "test"`},
		"an unknown config":   {`"perf": {`, `"full": {`, "targets.full: want a build config"},
		"a bad label":         {`"//benchmarks:havlak6"`, `"havlak6"`, `targets.run.label "havlak6"`},
		"no study":            {`"study": "explodePath"`, `"study": ""`, "(explodepath).study: empty"},
		"counts, no output":   {`, "output": "benchmarks/havlak6_counts.zip"`, ``, "targets.counts.output"},
		"an output elsewhere": {`"spec": "benchmarks/havlak6_quick_test_spec.json"}`, `"spec": "benchmarks/havlak6_quick_test_spec.json", "output": "x.zip"}`, "targets.quick.output"},
		"an output out of it": {`"output": "benchmarks/havlak6_counts.zip"`, `"output": "../x.zip"`, `targets.counts.output "../x.zip"`},
		// Layout variants: count actions, each with its own output, of a
		// benchmark that has a count action.
		"variants, no counts": {`,
        "counts": {"label": "//benchmarks:havlak6_counts", "spec": "benchmarks/havlak6_quick_test_spec.json", "output": "benchmarks/havlak6_counts.zip"}`, ``,
			"(havlak6).layout_variants: 2, and no counts target"},
		"a variant, no label":  {`"label": "//benchmarks:havlak6_layout_1_counts"`, `"label": ""`, `layout_variants[0].label ""`},
		"a variant, no spec":   {`"spec": "benchmarks/havlak6_layout_2_counts_spec.json"`, `"spec": ""`, `layout_variants[1].spec ""`},
		"a variant, no output": {`, "output": "benchmarks/havlak6_layout_1_counts.zip"`, ``, `layout_variants[0].output ""`},
		"a variant elsewhere":  {`"output": "benchmarks/havlak6_layout_2_counts.zip"`, `"output": "/tmp/x.zip"`, `layout_variants[1].output "/tmp/x.zip"`},
		"a variant twice":      {`"label": "//benchmarks:havlak6_layout_2_counts"`, `"label": "//benchmarks:havlak6_layout_1_counts"`, `layout_variants[1].label "//benchmarks:havlak6_layout_1_counts": a second time`},
		"the counts again":     {`"label": "//benchmarks:havlak6_layout_1_counts"`, `"label": "//benchmarks:havlak6_counts"`, `layout_variants[0].label "//benchmarks:havlak6_counts": a second time`},
		"an output twice":      {`"output": "benchmarks/havlak6_layout_2_counts.zip"`, `"output": "benchmarks/havlak6_layout_1_counts.zip"`, `layout_variants[1].output "benchmarks/havlak6_layout_1_counts.zip": a second time`},
		"the counts' output":   {`"output": "benchmarks/havlak6_layout_1_counts.zip"`, `"output": "benchmarks/havlak6_counts.zip"`, `layout_variants[0].output "benchmarks/havlak6_counts.zip": a second time`},
	} {
		data := strings.Replace(manifestJSON, c.old, c.new, 1)
		if data == manifestJSON {
			t.Fatalf("%s: %q is not in the manifest", name, c.old)
		}
		if _, err := DecodeManifest("m.json", []byte(data)); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "m.json: ") {
			t.Errorf("%s: %v, want an error of m.json saying %q", name, err, c.want)
		}
	}
	if _, err := DecodeManifest("m.json", []byte(`{"schema_version": 1, "path": "m.json", "benchmarks": []}`)); err == nil {
		t.Errorf("no benchmarks: no error")
	}
}
