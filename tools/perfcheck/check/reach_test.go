package check

import (
	"os"
	"reflect"
	"testing"

	"havlak-lab/internal/bazelquery"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// readQuery reads the graph of internal/bazelquery's tests.
func readQuery(t *testing.T) *bazelquery.Graph {
	t.Helper()
	f, err := os.Open("../../../internal/bazelquery/testdata/query.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := bazelquery.ReadXML(f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestReach sorts the benchmarks of a query's graph (the one of
// internal/bazelquery's tests: a Go stage "stage", whose quick test reads a
// generated file; docs) by what changed.
func TestReach(t *testing.T) {
	g := readQuery(t)
	manifest, err := perfspec.FindManifest(g, "")
	if err != nil {
		t.Fatal(err)
	}
	quick, err := perfspec.DeclaredTargets(g, manifest, result.ConfigQuick)
	if err != nil || !reflect.DeepEqual(quick, map[string]string{"stage": "//benchmarks:stage_quick_test"}) {
		t.Fatalf("the quick tests: %v, %v", quick, err)
	}
	// Its one benchmark has a quick test: none is never measured.
	if not, err := perfspec.DeclaredNotMeasured(g, manifest); err != nil || len(not) != 0 {
		t.Errorf("never measured: %v, %v", not, err)
	}
	pkgs := []string{"", "benchmarks", "docs", "go/stage", "internal/cli", "tools/gen", "tools/perf/runner"}
	for _, c := range []struct {
		name    string
		changes []gitwork.Change
		reached bool
		all     bool
	}{
		{"docs", []gitwork.Change{{Path: "docs/guide.md"}, {Path: "README.md"}}, false, false},
		{"an undeclared file", []gitwork.Change{{Path: "go/stage/notes.txt"}}, false, false},
		{"its source", []gitwork.Change{{Path: "go/stage/main.go"}}, true, false},
		{"a generator's input", []gitwork.Change{{Path: "tools/gen/input.txt"}}, true, false},
		{"a file a glob held, deleted", []gitwork.Change{{Path: "go/stage/old.go", Deleted: true}}, true, false},
		{"a deleted doc", []gitwork.Change{{Path: "docs/old.md", Deleted: true}}, false, false},
		{"a BUILD file", []gitwork.Change{{Path: "docs/guide.md"}, {Path: "docs/BUILD.bazel"}}, false, true},
		{"a patch of rules_go", []gitwork.Change{{Path: "tools/repositories/patches/rules_go.patch"}}, false, true},
	} {
		r := FindReach(c.changes, pkgs, g, quick)
		if len(r.GateEdits) > 0 {
			t.Errorf("%s: gate edits %v", c.name, r.GateEdits)
		}
		if (r.Everything != "") != c.all {
			t.Errorf("%s: everything %q", c.name, r.Everything)
			continue
		}
		if c.all {
			continue
		}
		if got := r.Reached["stage"] != ""; got != c.reached || len(r.Reached)+len(r.NotReached) != 1 {
			t.Errorf("%s: reached %v, not reached %v", c.name, r.Reached, r.NotReached)
		}
	}
}

// TestGateEdits names the changed files of the gate's own code: what the
// runner or the perf check depends on, the perf rules' Starlark, the CI
// step; not the programs they measure.
func TestGateEdits(t *testing.T) {
	g := readQuery(t)
	pkgs := []string{"", "benchmarks", "docs", "go/stage", "internal/cli", "tools/gen", "tools/perf/runner"}
	changes := []gitwork.Change{
		{Path: "go/stage/main.go"}, {Path: "docs/guide.md"}, {Path: "tools/gen/input.txt"},
		{Path: "internal/cli/cli.go"}, {Path: "tools/perf/runner/main.go"},
		{Path: "tools/perf/private/counts.bzl"}, {Path: "tools/ci/perfcheck.sh"},
	}
	want := []string{"internal/cli/cli.go", "tools/perf/runner/main.go", "tools/perf/private/counts.bzl", "tools/ci/perfcheck.sh"}
	if got := GateEdits(changes, pkgs, g); !reflect.DeepEqual(got, want) {
		t.Errorf("gate edits: %v, want %v", got, want)
	}
	// A macro of the perf rules reaches every benchmark, and edits the gate.
	r := FindReach([]gitwork.Change{{Path: "tools/perf/defs.bzl"}}, pkgs, g, nil)
	if r.Everything == "" || !reflect.DeepEqual(r.GateEdits, []string{"tools/perf/defs.bzl"}) {
		t.Errorf("a macro: everything %q, gate edits %v", r.Everything, r.GateEdits)
	}
}
