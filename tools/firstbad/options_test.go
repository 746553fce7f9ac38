package firstbad

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// fakeBazel is a checkout's tools/bazel that answers a query with the file
// $FAKE_QUERY and counts its calls in $FAKE_BAZEL_CALLS.
const fakeBazel = `#!/bin/sh
echo "$*" >>"$FAKE_BAZEL_CALLS"
[ "$1" = query ] && cat "$FAKE_QUERY"
`

// consumerQuery is what the query of a consumer's manifests answers: its
// manifest //perf:suite, whose benchmark fib's quick test is
// //perf/progs:fib_quick; and, with another, a second manifest.
func consumerQuery(another bool) string {
	rules := `<rule class="_benchmark_manifest" name="//perf:suite"><list name="specs"><label value="//perf/progs:fib_quick_spec"/></list></rule>` +
		`<rule class="perf_spec" name="//perf/progs:fib_quick_spec"><string name="config" value="quick"/>` +
		`<label name="target" value="fib_quick"/><label name="info" value="//perf/progs:fib_info"/></rule>` +
		`<rule class="benchmark_declaration" name="//perf/progs:fib_info"><string name="benchmark" value="fib"/></rule>`
	if another {
		rules += `<rule class="_benchmark_manifest" name="//more:manifest"><list name="specs"/></rule>`
	}
	return `<?xml version="1.1" encoding="UTF-8" standalone="no"?>` + "\n<query version=\"2\">" + rules + "</query>\n"
}

// Without --manifest, bisect reads the manifest the workspace declares,
// wherever it stands: the quick test's label is the built manifest's, or,
// never built, the manifest rule's declaration's; of two manifests,
// --manifest-target names one, and none named is an error naming both.
func TestTheQuickTestFromTheWorkspacesManifest(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(repo, "tools"), 0o755)
	if err := os.WriteFile(filepath.Join(repo, "tools", "bazel"), []byte(fakeBazel), 0o755); err != nil {
		t.Fatal(err)
	}
	queryFile, calls := filepath.Join(t.TempDir(), "query.xml"), filepath.Join(t.TempDir(), "calls")
	t.Setenv("FAKE_QUERY", queryFile)
	t.Setenv("FAKE_BAZEL_CALLS", calls)
	target := func(another bool, given string) (string, error) {
		t.Helper()
		if err := os.WriteFile(queryFile, []byte(consumerQuery(another)), 0o644); err != nil {
			t.Fatal(err)
		}
		o := Options{Builder: "bazel", Benchmark: "fib", Repo: repo, ManifestTarget: given}
		err := o.fromManifest(io.Discard)
		return o.Target, err
	}

	if got, err := target(false, ""); err != nil || got != "//perf/progs:fib_quick" {
		t.Errorf("never built: the quick test %q, %v; want the declaration's //perf/progs:fib_quick", got, err)
	}
	if data, err := os.ReadFile(calls); err != nil || !strings.HasPrefix(string(data), "query --output=xml") {
		t.Errorf("Bazel's calls: %q, %v; want a query", data, err)
	}
	if _, err := target(true, ""); err == nil || !strings.Contains(err.Error(), "//more:manifest, //perf:suite") || !strings.Contains(err.Error(), "--manifest-target") {
		t.Errorf("two manifests: %v", err)
	}

	// Built: the manifest's file, under bazel-bin at its label's path.
	m := perfspec.Manifest{SchemaVersion: perfspec.ManifestSchemaVersion, Path: "perf/suite.json", Benchmarks: []perfspec.ManifestBenchmark{{
		Name: "fib", Kind: result.KindProgram, Study: "fib",
		Targets: map[string]perfspec.ManifestTarget{result.ConfigQuick: {Label: "//perf/progs:fib_built_quick", Spec: "perf/progs/fib_spec.json"}},
	}}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(repo, "bazel-bin", "perf"), 0o755)
	if err := os.WriteFile(filepath.Join(repo, "bazel-bin", "perf", "suite.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := target(true, "//perf:suite"); err != nil || got != "//perf/progs:fib_built_quick" {
		t.Errorf("built, --manifest-target //perf:suite: the quick test %q, %v; want the manifest's", got, err)
	}
}
