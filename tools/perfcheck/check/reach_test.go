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

// TestReach sorts the benchmarks of a query's graph (the one of
// internal/bazelquery's tests: a Go stage "stage", whose quick test reads a
// generated file; docs) by what changed.
func TestReach(t *testing.T) {
	f, err := os.Open("../../../internal/bazelquery/testdata/query.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := bazelquery.ReadXML(f)
	if err != nil {
		t.Fatal(err)
	}
	quick, err := perfspec.DeclaredTargets(g, Manifest, result.ConfigQuick)
	if err != nil || !reflect.DeepEqual(quick, map[string]string{"stage": "//benchmarks:stage_quick_test"}) {
		t.Fatalf("the quick tests: %v, %v", quick, err)
	}
	pkgs := []string{"", "benchmarks", "docs", "go/stage", "tools/gen"}
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
		{"a macro", []gitwork.Change{{Path: "tools/perf/defs.bzl"}}, false, true},
		{"a patch of rules_go", []gitwork.Change{{Path: "tools/repositories/patches/rules_go.patch"}}, false, true},
	} {
		r := FindReach(c.changes, pkgs, g, quick)
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
