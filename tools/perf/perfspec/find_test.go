package perfspec

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"havlak-lab/internal/bazelquery"
	"havlak-lab/tools/result"
)

// manifestRule is a manifest rule of a consumer's package, as the query
// prints it, whose benchmark's targets stand in another package.
func manifestRule(label string) string {
	return `<rule class="_benchmark_manifest" name="` + label + `"><list name="specs">` +
		`<label value="//perf/progs:fib_quick_test_spec"/><label value="//perf/progs:fib_test_spec"/></list></rule>`
}

// declarations are the specs and the declaration manifestRule lists.
const declarations = `<rule class="perf_spec" name="//perf/progs:fib_quick_test_spec">` +
	`<string name="config" value="quick"/><label name="target" value="fib_quick"/><label name="info" value="//perf/progs:fib_info"/></rule>` +
	`<rule class="perf_spec" name="//perf/progs:fib_test_spec">` +
	`<string name="config" value="perf"/><label name="target" value="fib_full"/><label name="info" value="//perf/progs:fib_info"/></rule>` +
	`<rule class="benchmark_declaration" name="//perf/progs:fib_info"><string name="benchmark" value="fib"/></rule>`

// query is a query's output holding the rules given.
func query(rules ...string) string {
	return `<?xml version="1.1" encoding="UTF-8" standalone="no"?>` + "\n<query version=\"2\">" + strings.Join(rules, "") + "</query>\n"
}

// fakeBazel answers every command with out, and records its arguments.
func fakeBazel(out string, err error, calls *[][]string) func(io.Writer, ...string) error {
	return func(stdout io.Writer, args ...string) error {
		*calls = append(*calls, args)
		io.WriteString(stdout, out)
		return err
	}
}

// The one manifest of a workspace is found wherever it stands, and the
// labels of its benchmarks' tests are its declarations', whatever their
// names; a flag names one of several, and must name one.
func TestQueryManifest(t *testing.T) {
	var calls [][]string
	label, g, err := QueryManifest(fakeBazel(query(manifestRule("//perf:all_benchmarks"), declarations), nil, &calls), "")
	if err != nil || label != "//perf:all_benchmarks" {
		t.Fatalf("found %q, %v; want //perf:all_benchmarks", label, err)
	}
	if len(calls) != 1 || calls[0][0] != "query" || calls[0][len(calls[0])-1] != ManifestQuery {
		t.Errorf("Bazel was asked %q, want one query of the manifests", calls)
	}
	quick, err := DeclaredTargets(g, label, result.ConfigQuick)
	if err != nil || !reflect.DeepEqual(quick, map[string]string{"fib": "//perf/progs:fib_quick"}) {
		t.Errorf("the quick tests: %v, %v", quick, err)
	}
	pkgs, err := TestPackages(g, label, result.ConfigPerf, result.ConfigQuick)
	if err != nil || !reflect.DeepEqual(pkgs, []string{"perf/progs"}) {
		t.Errorf("the tests' packages: %q, %v", pkgs, err)
	}
	if file, err := ManifestFile(label); err != nil || file != "perf/all_benchmarks.json" {
		t.Errorf("the manifest's file: %q, %v", file, err)
	}

	// Several: the flag chooses, and only among them.
	several := query(manifestRule("//a:manifest"), manifestRule("//b:manifest"), declarations)
	if _, _, err := QueryManifest(fakeBazel(several, nil, &calls), ""); err == nil ||
		!strings.Contains(err.Error(), "2 benchmark manifests, //a:manifest, //b:manifest") || !strings.Contains(err.Error(), ManifestFlag) {
		t.Errorf("two manifests and no flag: %v", err)
	}
	if label, _, err := QueryManifest(fakeBazel(several, nil, &calls), "//b:manifest"); err != nil || label != "//b:manifest" {
		t.Errorf("--manifest-target //b:manifest: %q, %v", label, err)
	}
	if _, _, err := QueryManifest(fakeBazel(several, nil, &calls), "//perf/progs:fib_info"); err == nil ||
		!strings.Contains(err.Error(), "not a benchmark_manifest of the workspace, whose are //a:manifest, //b:manifest") {
		t.Errorf("a flag naming a declaration: %v", err)
	}

	// None: Bazel answers no target at all.
	for _, given := range []string{"", "//benchmarks:manifest"} {
		if _, _, err := QueryManifest(fakeBazel(query(), nil, &calls), given); err == nil || !strings.Contains(err.Error(), "declares no benchmark_manifest") {
			t.Errorf("no manifest, flag %q: %v", given, err)
		}
	}
	broken := errors.New("exit status 7")
	if _, _, err := QueryManifest(fakeBazel("", broken, &calls), ""); !errors.Is(err, broken) {
		t.Errorf("a query that fails: %v", err)
	}
}

// A manifest is found in any graph that holds it: the perf check's, of
// every package.
func TestFindManifestInAGraph(t *testing.T) {
	g, err := bazelquery.ReadXML(strings.NewReader(query(`<rule class="go_binary" name="//tools:x"/>`, manifestRule("//m:manifest"), declarations)))
	if err != nil {
		t.Fatal(err)
	}
	if label, err := FindManifest(g, ""); err != nil || label != "//m:manifest" {
		t.Errorf("found %q, %v", label, err)
	}
}

// A manifest tagged "manual" (a test's fixture, which //... leaves out)
// is not the workspace's, unless the flag names it.
func TestFindManifestLeavesOutManual(t *testing.T) {
	fixture := `<rule class="_benchmark_manifest" name="//tools/perf/private:fixture_manifest">` +
		`<list name="tags"><string value="manual"/></list></rule>`
	g, err := bazelquery.ReadXML(strings.NewReader(query(manifestRule("//m:manifest"), fixture, declarations)))
	if err != nil {
		t.Fatal(err)
	}
	if label, err := FindManifest(g, ""); err != nil || label != "//m:manifest" {
		t.Errorf("beside a manual one: found %q, %v; want //m:manifest", label, err)
	}
	if label, err := FindManifest(g, "//tools/perf/private:fixture_manifest"); err != nil || label != "//tools/perf/private:fixture_manifest" {
		t.Errorf("the manual one named: found %q, %v", label, err)
	}
	alone, err := bazelquery.ReadXML(strings.NewReader(query(fixture)))
	if err != nil {
		t.Fatal(err)
	}
	if label, err := FindManifest(alone, ""); err == nil {
		t.Errorf("a manual manifest alone: found %q, want none", label)
	}
}

func TestLabelPath(t *testing.T) {
	for label, want := range map[string]string{
		"//benchmarks:havlak6_quick_test": "benchmarks/havlak6_quick_test",
		"//a/b:c":                         "a/b/c",
		"//:root":                         "root",
		"@lab//benchmarks:x":              "",
		"benchmarks:x":                    "",
		"//benchmarks":                    "",
		"//a/../b:c":                      "",
		"//a:../c":                        "",
		"//a:":                            "",
	} {
		got, err := LabelPath(label)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("LabelPath(%q) = %q, %v; want %q", label, got, err, want)
		}
	}
}
