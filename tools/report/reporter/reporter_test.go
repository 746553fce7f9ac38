package reporter

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
)

// What is read is never what is written: an --out inside --from, or one
// holding the baseline, is refused before anything is read or written.
func TestSourcesApartFromOut(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{
		{From: dir, Out: filepath.Join(dir, "report")},
		{From: filepath.Join(dir, "results"), Out: dir},
		{From: filepath.Join(dir, "results"), Baseline: filepath.Join(dir, "out", "base"), Out: filepath.Join(dir, "out")},
	} {
		_, _, err := o.sourcesApartFrom(o.outDir(), io.Discard)
		if !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), "the report would replace what it reads") {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
		if err := Run(o, &strings.Builder{}); cli.Status(err) != 2 {
			t.Errorf("Run(%+v): %v, want status 2", o, err)
		}
	}
	o := Options{From: filepath.Join(dir, "results"), Out: filepath.Join(dir, "report")}
	if sources, night, err := o.sourcesApartFrom(o.outDir(), io.Discard); err != nil || night != nil || len(sources) != 1 || sources[0] != o.From {
		t.Errorf("apart: %q, %v, %v; want the one source, no night", sources, night, err)
	}
}

// A directory without results is bad usage that names what it read.
func TestLoadNothing(t *testing.T) {
	dir := t.TempDir()
	for _, dirs := range [][]string{{dir}, {filepath.Join(dir, "missing")}} {
		set, err := Load("", dirs, false)
		if set != nil || cli.Status(err) != 2 || !strings.Contains(err.Error(), "no results") && !strings.Contains(err.Error(), "no benchmark results in "+dir) {
			t.Errorf("Load(%q): %v, %v; want status 2 naming the directory", dirs, set, err)
		}
	}
}

// An unmarked --out is adopted only when it holds a report and nothing
// else: another kind of file, or no summary.json, is refused.
func TestAdoptReport(t *testing.T) {
	for name, files := range map[string][]string{
		"a stranger's file": {"report.md", "notes.txt"},
		"no summary":        {"report.md", "index.html"},
	} {
		dir := t.TempDir()
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := adoptReport(dir); err == nil {
			t.Errorf("%s: adopted %q", name, files)
		}
	}
}

// By default the results are the test logs of the packages of the tests
// the workspace's manifest declares, wherever they stand, in every
// configuration; of two manifests, --manifest-target names one.
func TestTestlogsOfTheWorkspacesManifest(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("BUILD_WORKSPACE_DIRECTORY", ws)
	query := filepath.Join(t.TempDir(), "query.xml")
	bazel := "#!/bin/sh\n[ \"$1\" = query ] && cat " + query + "\n"
	for name, content := range map[string]string{"tools/bazel": bazel, "bazel-out/k8-opt/testlogs/perf/progs/fib_test/test.log": "",
		"bazel-out/k8-fastbuild/testlogs/perf/progs/fib_quick/test.log": "", "bazel-out/k8-opt/testlogs/other/x_test/test.log": ""} {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(label string) string {
		return `<rule class="_benchmark_manifest" name="` + label + `"><list name="specs"><label value="//perf/progs:fib_spec"/></list></rule>`
	}
	declared := `<rule class="perf_spec" name="//perf/progs:fib_spec"><string name="config" value="perf"/>` +
		`<label name="target" value="fib_test"/><label name="info" value="//perf/progs:fib_info"/></rule>` +
		`<rule class="benchmark_declaration" name="//perf/progs:fib_info"><string name="benchmark" value="fib"/></rule>`
	answer := func(rules ...string) {
		data := `<?xml version="1.1" encoding="UTF-8" standalone="no"?>` + "\n<query version=\"2\">" + strings.Join(rules, "") + "</query>\n"
		if err := os.WriteFile(query, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	answer(manifest("//perf:suite"), declared)
	want := []string{filepath.Join(ws, "bazel-out/k8-fastbuild/testlogs/perf/progs"), filepath.Join(ws, "bazel-out/k8-opt/testlogs/perf/progs")}
	if got, err := (Options{}).testlogs(io.Discard); err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the test logs: %q, %v; want %q", got, err, want)
	}
	answer(manifest("//perf:suite"), manifest("//perf:more"), declared)
	if _, err := (Options{}).testlogs(io.Discard); cli.Status(err) != 2 || !strings.Contains(err.Error(), "--manifest-target") {
		t.Errorf("two manifests: %v, want a usage error naming --manifest-target", err)
	}
	if got, err := (Options{ManifestTarget: "//perf:more"}).testlogs(io.Discard); err != nil || len(got) != 2 {
		t.Errorf("two manifests, --manifest-target //perf:more: %q, %v", got, err)
	}
}
