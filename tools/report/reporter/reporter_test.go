package reporter

import (
	"errors"
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
		_, _, err := o.sourcesApartFrom(o.outDir())
		if !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), "the report would replace what it reads") {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
		if err := Run(o, &strings.Builder{}); cli.Status(err) != 2 {
			t.Errorf("Run(%+v): %v, want status 2", o, err)
		}
	}
	o := Options{From: filepath.Join(dir, "results"), Out: filepath.Join(dir, "report")}
	if sources, night, err := o.sourcesApartFrom(o.outDir()); err != nil || night != nil || len(sources) != 1 || sources[0] != o.From {
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
