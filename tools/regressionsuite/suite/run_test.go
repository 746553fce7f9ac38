package suite

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// A case whose build fails leaves no result of its own; the one an earlier
// case left in the test logs is not read as this case's (it was: the
// change of a case that did not build was judged as the last case's).
func TestMeasureNeverReadsAnEarlierCasesResult(t *testing.T) {
	scratch := t.TempDir()
	bazel := filepath.Join(scratch, "tools", "bazel")
	if err := os.MkdirAll(filepath.Dir(bazel), 0o755); err != nil {
		t.Fatal(err)
	}
	// A build that fails and writes nothing, as bazel test does.
	if err := os.WriteFile(bazel, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The quick test's label is the manifest's, whatever its package.
	earlier := filepath.Join(scratch, "bazel-testlogs", "perf", "h7_quick", "test.outputs", result.ZipName)
	if err := os.MkdirAll(filepath.Dir(earlier), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, []byte("the last case's result"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Scratch: scratch, Log: io.Discard, manifest: &perfspec.Manifest{Benchmarks: []perfspec.ManifestBenchmark{
		{Name: "havlak7cc", Targets: map[string]perfspec.ManifestTarget{result.ConfigQuick: {Label: "//perf:h7_quick"}}},
	}}}
	got := r.measure([]string{"havlak7cc"}, 1)["havlak7cc"]
	if len(got) != 1 || got[0].err == nil || !strings.Contains(got[0].err.Error(), "left no result") {
		t.Fatalf("a case that did not build measured %+v, want the error that its test left no result", got)
	}
	if _, err := os.Stat(earlier); !os.IsNotExist(err) {
		t.Errorf("the earlier case's result is still in the test logs: %v", err)
	}
}

// The suite measures the benchmarks of the manifest the scratch copy
// declares, wherever it stands: built at the base and read from bazel-bin;
// a benchmark it does not list is an error of that benchmark alone.
func TestTheManifestIsTheWorkspaces(t *testing.T) {
	scratch := t.TempDir()
	query := `<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2"><rule class="_benchmark_manifest" name="//perf:suite"><list name="specs"/></rule></query>`
	manifest := `{"schema_version": 1, "path": "perf/suite.json", "benchmarks": [{"name": "fib", "kind": "program", "study": "fib",
"stage": 0, "language": "Go", "counterpart": "", "reference": "", "workload": "", "quick_workload": "",
"targets": {"quick": {"label": "//perf/progs:fib_quick", "spec": "perf/progs/fib_quick_spec.json"}}}]}`
	calls := filepath.Join(t.TempDir(), "calls")
	// A Bazel that answers the query, builds the manifest, and fails
	// every test, leaving nothing.
	script := "#!/bin/sh\necho \"$*\" >>" + calls + "\ncase \"$1\" in\nquery) cat <<'EOF'\n" + query + "\nEOF\n;;\n" +
		"build) mkdir -p bazel-bin/perf && cat >bazel-bin/perf/suite.json <<'EOF'\n" + manifest + "\nEOF\n;;\n*) exit 1;;\nesac\n"
	os.MkdirAll(filepath.Join(scratch, "tools"), 0o755)
	if err := os.WriteFile(filepath.Join(scratch, "tools", "bazel"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Scratch: scratch, Log: io.Discard}
	if err := r.loadManifest(); err != nil {
		t.Fatal(err)
	}
	got := r.measure([]string{"fib", "gone"}, 1)
	if len(got["gone"]) != 1 || got["gone"][0].err == nil || !strings.Contains(got["gone"][0].err.Error(), `no benchmark "gone"`) {
		t.Errorf("a benchmark the manifest does not list: %+v", got["gone"])
	}
	data, _ := os.ReadFile(calls)
	if want := "build --noremote_upload_local_results //perf:suite\n"; !strings.Contains(string(data), want) ||
		!strings.HasSuffix(string(data), " //perf/progs:fib_quick\n") || strings.Contains(string(data), "gone") {
		t.Errorf("Bazel's calls:\n%s\nwant the manifest built, then fib's quick test alone tested", data)
	}
	r.ManifestTarget = "//benchmarks:manifest"
	if err := r.loadManifest(); err == nil || !strings.Contains(err.Error(), "not a benchmark_manifest of the workspace, whose are //perf:suite") {
		t.Errorf("--manifest-target naming no manifest: %v", err)
	}
}
