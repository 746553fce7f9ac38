package bazelquery

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func readFixture(t *testing.T) *Graph {
	t.Helper()
	f, err := os.Open("testdata/query.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ReadXML(f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestReadXML(t *testing.T) {
	g := readFixture(t)
	if len(g.Rules) != 10 || !g.Sources["//go/stage:main.go"] || g.GeneratedBy["//tools/gen:data.txt"] != "//tools/gen:data" {
		t.Fatalf("read %d rules, sources %v, generated %v", len(g.Rules), g.Sources, g.GeneratedBy)
	}
	spec := g.Rules["//benchmarks:stage_quick_test_spec"]
	if spec.Class != "perf_spec" || spec.Strings["config"] != "quick" || spec.Strings["info"] != "//benchmarks:stage_info" ||
		!reflect.DeepEqual(spec.Lists["data"], []string{"//tools/gen:data.txt"}) || len(spec.Inputs) != 3 {
		t.Errorf("the quick spec: %+v", spec)
	}
	for _, bad := range []string{"", "<query>", "<query><rule class=\"x\"></rule></query>", "<query></query>"} {
		if _, err := ReadXML(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

func TestReaching(t *testing.T) {
	g := readFixture(t)
	sorted := func(m map[string]bool) []string {
		var s []string
		for k := range m {
			s = append(s, k)
		}
		slices.Sort(s)
		return s
	}
	// A source file reaches what is built from it, through generated
	// files too; the docs reach nothing.
	if got, want := sorted(g.Reaching([]string{"//tools/gen:input.txt"})), []string{
		"//benchmarks:manifest", "//benchmarks:stage_quick_test", "//benchmarks:stage_quick_test_spec",
		"//tools/gen:data", "//tools/gen:data.txt", "//tools/gen:input.txt",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("from the generator's input: %v, want %v", got, want)
	}
	if got := g.Reaching([]string{"//docs:guide.md"}); len(got) != 1 {
		t.Errorf("from the docs: %v", sorted(got))
	}
	if got := g.Reaching([]string{"//tools/perf/runner:runner"}); !got["//benchmarks:stage_quick_test"] || got["//benchmarks:stage_spec"] {
		t.Errorf("from the runner: %v", sorted(got))
	}
	// The runner depends on its source and a library the stage shares;
	// nothing depends on the docs.
	if got, want := sorted(g.DependedOn([]string{"//tools/perf/runner:runner"})), []string{
		"//internal/cli:cli", "//internal/cli:cli.go", "//tools/perf/runner:main.go", "//tools/perf/runner:runner",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("what the runner depends on: %v, want %v", got, want)
	}
	if got := sorted(g.DependedOn([]string{"//benchmarks:manifest"})); !slices.Contains(got, "//tools/gen:input.txt") || slices.Contains(got, "//docs:guide.md") {
		t.Errorf("what the manifest depends on: %v", got)
	}
	if got, want := g.RulesOf("benchmarks"), 5; len(got) != want {
		t.Errorf("the rules of benchmarks: %v", got)
	}
}

func TestPackagesAndOwners(t *testing.T) {
	pkgs := Packages([]string{"BUILD.bazel", "README.md", "go/stage/BUILD.bazel", "go/stage/main.go", "go/stage/testdata/in.txt",
		"docs/BUILD", "docs/guide.md", "notapackage/BUILD.txt", "notapackage/x.go"})
	if want := []string{"", "docs", "go/stage"}; !reflect.DeepEqual(pkgs, want) {
		t.Fatalf("packages %q, want %q", pkgs, want)
	}
	if got, want := Everything(pkgs), "//:* + //docs:* + //go/stage:*"; got != want {
		t.Errorf("query %q, want %q", got, want)
	}
	for file, want := range map[string]string{
		"go/stage/main.go":         "//go/stage:main.go",
		"go/stage/testdata/in.txt": "//go/stage:testdata/in.txt",
		"notapackage/x.go":         "//:notapackage/x.go",
		"README.md":                "//:README.md",
		"docs/guide.md":            "//docs:guide.md",
	} {
		if label, _, ok := Owner(pkgs, file); !ok || label != want {
			t.Errorf("%s: %q, %v; want %q", file, label, ok, want)
		}
	}
	if label, _, ok := Owner([]string{"docs"}, "go/x.go"); ok {
		t.Errorf("a file of no package: %q", label)
	}
}
