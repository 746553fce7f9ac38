package night

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/exports"
	"havlak-lab/tools/result"
)

// The night leaves every export of its results among its artifacts, and
// only tonight's.
func TestExportsAreArtifacts(t *testing.T) {
	artifacts := t.TempDir()
	stale := filepath.Join(artifacts, exportsDir, "old.bench.txt")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("BenchmarkOld 1 1 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := "../../report/testdata/results"
	if *fixtures != "" {
		dir = *fixtures
		if srcdir := os.Getenv("TEST_SRCDIR"); srcdir != "" && !filepath.IsAbs(dir) {
			dir = filepath.Join(srcdir, os.Getenv("TEST_WORKSPACE"), dir)
		}
	}
	found, err := result.FindAll(dir)
	if err != nil || len(found) == 0 {
		t.Fatalf("the report's fixtures: %v", err)
	}
	var out bytes.Buffer
	n := &night{artifacts: artifacts, stdout: &out, stderr: &out}
	if err := n.writeExports(found); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	entries, err := os.ReadDir(filepath.Join(artifacts, exportsDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, format := range exports.Formats {
		data, err := os.ReadFile(filepath.Join(artifacts, exportsDir, format.FileName))
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v", format.Name, err)
		}
	}
	if len(names) != len(exports.Formats) {
		t.Errorf("artifacts/exports holds %v; want one file per format, the old night's gone", names)
	}
	if !strings.Contains(out.String(), "Exported the night as gobench") {
		t.Errorf("log: %s", out.String())
	}
	if err := n.writeExports(nil); err == nil {
		t.Errorf("a night without results exported nothing, and said nothing")
	}
}
