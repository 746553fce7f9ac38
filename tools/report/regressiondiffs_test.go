package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/reporting/markdown"
	"havlak-lab/tools/reporting/profiles"
)

// slowDown rewrites the unpacked result's CPU profile with the samples in
// which fn is the leaf weighing factor times as much: fn got slower.
func slowDown(t *testing.T, dir, fn string, factor int64) {
	t.Helper()
	path := filepath.Join(dir, "cpu.pb.gz")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range p.Sample {
		if lines := s.Location[0].Line; len(lines) > 0 && lines[0].Function.Name == fn {
			for i := range s.Value {
				s.Value[i] *= factor
			}
			n++
		}
	}
	if n == 0 {
		t.Fatalf("%s: no samples of %s", path, fn)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A regressed benchmark gets pprof's diff of its profiles against the
// baseline's: the function that got slower tops the table, with a plus,
// in report.md, the page and the annotation's summary, and its graph is
// drawn.
func TestProfileDiffOfARegression(t *testing.T) {
	const stage = "havlak6"
	oldDir, newDir := t.TempDir(), t.TempDir()
	for dir, values := range map[string][]float64{oldDir: {1e9, 1e9, 1e9}, newDir: {1.02e9, 1.02e9, 1.02e9}} {
		unzipTo(t, filepath.Join(fixtures, stage+"_quick_test", "outputs.zip"), filepath.Join(dir, stage))
		setMetric(t, filepath.Join(dir, stage), values...)
	}
	// The hottest function of the baseline's own code, three times slower.
	base, err := profile.ParseData([]byte(readFile(t, filepath.Join(oldDir, stage, "cpu.pb.gz"))))
	if err != nil {
		t.Fatal(err)
	}
	flat, _ := profiles.TopFunctions(base, 20)
	var slower string
	for _, f := range flat {
		if strings.HasPrefix(f.Name, "main.") {
			slower = f.Name
			break
		}
	}
	if slower == "" {
		t.Fatalf("no function of package main among the top 20 of %s's CPU profile", stage)
	}
	slowDown(t, filepath.Join(newDir, stage), slower, 3)

	out := t.TempDir()
	stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
	if status != 1 {
		t.Fatalf("exit status %d, want 1 (regressed):\n%s", status, stderr)
	}
	md := readFile(t, filepath.Join(out, "report.md"))
	section := md[strings.Index(md, "## What changed in the profiles")+1:]
	if !strings.Contains(md, "## What changed in the profiles of the regressions") ||
		!strings.Contains(section, "### "+stage+": cpu\n") {
		t.Fatalf("report.md has no profile diff of %s's CPU profile:\n%s", stage, md)
	}
	cpu := section[strings.Index(section, "### "+stage+": cpu"):]
	rows := strings.Split(cpu, "\n| ")
	if len(rows) < 3 || !strings.HasPrefix(rows[2], "`"+slower+"` | +") {
		t.Errorf("the first changed function is not %s, with a plus:\n%s", slower, cpu)
	}
	if !strings.Contains(cpu, "[pprof's diff graph](stages/"+stage+"/cpu.diff.svg)") {
		t.Errorf("no link to the diff graph:\n%s", cpu)
	}
	svg := readFile(t, filepath.Join(out, "stages", stage, "cpu.diff.svg"))
	if !strings.Contains(svg, "<svg") {
		t.Errorf("cpu.diff.svg is not an SVG:\n%.300s", svg)
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(page, `<table class="profile-diff" data-stage="`+stage+`" data-profile="cpu">`) ||
		!strings.Contains(page, "<tbody><tr><td class=\"text\">"+slower+"</td><td>&#43;") {
		t.Errorf("index.html lacks the profile diff's table with %s first:\n%s", slower, page[strings.Index(page, "What changed"):])
	}
	summary := readFile(t, filepath.Join(out, markdown.DiffsFile))
	if !strings.HasPrefix(summary, "- "+stage+": cpu cpu +") || !strings.Contains(summary, "flat: `"+slower+"` +") {
		t.Errorf("%s:\n%s", markdown.DiffsFile, summary)
	}

	// Without a regression, no diff.
	out = t.TempDir()
	if stderr, status, _ := runReport(t, "--from", oldDir, "--baseline", oldDir, "--out", out); status != 0 {
		t.Fatalf("exit status %d:\n%s", status, stderr)
	}
	if strings.Contains(readFile(t, filepath.Join(out, "report.md")), "What changed in the profiles") {
		t.Error("report.md diffs profiles without a regression")
	}
	if _, err := os.Stat(filepath.Join(out, markdown.DiffsFile)); err == nil {
		t.Errorf("%s written without a regression", markdown.DiffsFile)
	}
}
