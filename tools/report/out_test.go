package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/labdir"
)

// tree is every file under dir with its contents, to see that nothing
// changed.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(path)
			files[path] = string(data)
		}
		return err
	})
	return files
}

// --out replaces only a directory the report made: a file, a directory of
// other things (--out ~ once emptied a home directory) and another tool's
// directory are refused before anything is written, and left as they
// were.
func TestOutReplacesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("precious"), 0o644)
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, "Documents"), 0o755)
	os.WriteFile(filepath.Join(home, "Documents", "notes.txt"), []byte("precious"), 0o644)
	os.WriteFile(filepath.Join(home, "index.html"), []byte("my page"), 0o644)
	baseline := filepath.Join(dir, "baseline")
	os.Mkdir(baseline, 0o755)
	labdir.Mark(baseline, labdir.Baseline)
	for out, want := range map[string]string{
		file:     "--out " + file + ": not a directory but a regular file: refused, nothing written",
		home:     "--out " + home + ": a directory the lab did not write (no .havlak-lab in it, and it is not a report: " + filepath.Join(home, "Documents") + " is not among a report's files)",
		baseline: "--out " + baseline + ": the lab's nightly-baseline directory, not a report one",
	} {
		before := tree(t, dir)
		stderr, status, err := runReport(t, "--from", fixtures, "--out", out)
		if status != 2 || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--out %s: exit status %d, %v, want 2 saying %q\n%s", out, status, err, want, stderr)
		}
		after := tree(t, dir)
		if len(after) != len(before) {
			t.Errorf("--out %s: %d files before, %d after", out, len(before), len(after))
		}
		for path, data := range before {
			if after[path] != data {
				t.Errorf("--out %s: %s changed", out, path)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d entries beside the refused outputs, want 3 (no temporaries)", len(entries))
	}

	// A report's directory from before reports were marked: adopted, said,
	// replaced, and marked; the next report replaces it as its own.
	old := filepath.Join(dir, "report")
	if _, _, err := runReport(t, "--from", fixtures, "--out", old); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(old, labdir.Marker))
	os.WriteFile(filepath.Join(old, "report.md"), []byte("stale"), 0o644)
	stderr, _, err := runReport(t, "--from", fixtures, "--out", old)
	if want := "report: --out " + old + " has no .havlak-lab: adopted"; err != nil || !strings.Contains(stderr, want) {
		t.Errorf("an unmarked report: %v, want it adopted saying %q\n%s", err, want, stderr)
	}
	if readFile(t, filepath.Join(old, "report.md")) == "stale" {
		t.Error("the adopted report was not replaced")
	}
	if s, err := labdir.Check("--out", old, labdir.Report, nil); s != labdir.Marked || err != nil {
		t.Errorf("the report's directory: %v, %v; want it marked", s, err)
	}
	if stderr, _, err := runReport(t, "--from", fixtures, "--out", old); err != nil || strings.Contains(stderr, "adopted") {
		t.Errorf("a marked report: %v\n%s", err, stderr)
	}
	// A stray file beside a report's: not adoptable.
	os.Remove(filepath.Join(old, labdir.Marker))
	os.WriteFile(filepath.Join(old, "thesis.tex"), []byte("precious"), 0o644)
	if _, status, err := runReport(t, "--from", fixtures, "--out", old); status != 2 || !strings.Contains(err.Error(), "thesis.tex is not among a report's files") {
		t.Errorf("a report with a stray file: exit status %d, %v", status, err)
	}
	if readFile(t, filepath.Join(old, "thesis.tex")) != "precious" {
		t.Error("the stray file changed")
	}
}
