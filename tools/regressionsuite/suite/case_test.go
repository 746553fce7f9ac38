package suite

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The suite's own patches: each parses, and together they fill every cell
// of the matrix that the kinds do not declare absent (a language) or
// unsized (a size); the sizes unsized are of Sizes, each with its reason.
func TestThePatches(t *testing.T) {
	cases, err := LoadCases(patchesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]bool{}
	for _, c := range cases {
		cells[c.Kind+" "+c.Language+" "+c.Size] = true
	}
	for _, k := range Kinds {
		for _, lang := range Languages {
			for _, size := range k.Sizes() {
				if cell := k.Name + " " + lang + " " + size; !cells[cell] && k.Absent[lang] == "" {
					t.Errorf("no patch injects %s, and %s is not declared absent in %s", cell, k.Name, lang)
				}
			}
		}
		for size := range k.Unsized {
			if !slices.Contains(Sizes, size) {
				t.Errorf("%s declares no case of %q, which is not one of the sizes (%s)", k.Name, size, strings.Join(Sizes, ", "))
			}
		}
		if len(k.Sizes()) == 0 {
			t.Errorf("%s has no size", k.Name)
		}
	}
	for _, l := range Loosenings {
		if !slices.ContainsFunc(cases, func(c Case) bool { return c.Loosens == l.Name }) {
			t.Errorf("no patch loosens its own gate by %q (%s)", l.Name, l.Row)
		}
	}
}

// The neutral corpus: at least minNeutralCases changes, some in each
// language.
func TestTheNeutralPatches(t *testing.T) {
	const minNeutralCases = 20
	cases, err := LoadCases(patchesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	languages := map[string]int{}
	for _, c := range cases {
		if c.IsNeutral() {
			languages[c.Language]++
		}
	}
	total := 0
	for _, lang := range Languages {
		if languages[lang] == 0 {
			t.Errorf("no neutral patch in %s", lang)
		}
		total += languages[lang]
	}
	if total < minNeutralCases {
		t.Errorf("%d neutral patches, want at least %d", total, minNeutralCases)
	}
}

// A case that loosens its benchmark's gate changes the declaration as well
// as the code: what it loosens is among the files it changes, beside the
// regression of a case that loosens nothing, in the same cell.
func TestTheLooseningPatches(t *testing.T) {
	cases, err := LoadCases(patchesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	// Where each loosening is declared: the runner's countThreshold
	// (perf_benchmark declares no threshold), cachegrind.Metrics's gate
	// of a C++ count (always gated, whatever the benchmark says).
	declaredIn := map[string]string{"threshold": "tools/perf/perfrun/metrics.go", "gated": "tools/perf/cachegrind/cachegrind.go"}
	for _, c := range cases {
		if c.Loosens == "" {
			continue
		}
		data, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		files := patchedFiles(string(data))
		if want := declaredIn[c.Loosens]; !slices.Contains(files, want) {
			t.Errorf("%s loosens %s but does not change %s: it changes %s", c.Path, c.Loosens, want, strings.Join(files, ", "))
		}
		if !slices.ContainsFunc(cases, func(o Case) bool {
			return o.Loosens == "" && o.Kind == c.Kind && o.Language == c.Language && o.Size == c.Size && slices.Equal(o.Benchmarks, c.Benchmarks) && o.Figure == c.Figure
		}) {
			t.Errorf("%s: no case injects %s alone, to compare it with", c.Path, c.Cell())
		}
	}
}

// Two cases of one cell are refused; a loosening, or another benchmark,
// makes a cell of its own.
func TestLoadCasesCells(t *testing.T) {
	const header = "Kind: extra-work\nLanguage: C++\nSize: 5%\nBenchmark: havlak7cc\nFigure: instructions\nWhat: more\n"
	const diff = "\ndiff --git a/x b/x\n"
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	write(dir, "a.patch", header+diff)
	write(dir, "b.patch", header+"Loosens: threshold\n"+diff)
	write(dir, "c.patch", header+"Loosens: gated\n"+diff)
	cases, err := LoadCases(dir)
	if err != nil || len(cases) != 3 || cases[1].Loosens != "threshold" || cases[1].Cell() != "extra-work C++ 5% in havlak7cc loosening threshold" {
		t.Fatalf("three cells: %+v, %v", cases, err)
	}
	write(dir, "d.patch", header+"Loosens: gated\n"+diff)
	if _, err := LoadCases(dir); err == nil || !strings.Contains(err.Error(), "c.patch and "+filepath.Join(dir, "d.patch")+" both inject extra-work C++ 5% in havlak7cc loosening gated") {
		t.Errorf("two cases in one cell: %v", err)
	}
	os.Remove(filepath.Join(dir, "d.patch"))
	write(dir, "e.patch", strings.Replace(header, "havlak7cc", "havlak6cc", 1)+diff)
	if cases, err := LoadCases(dir); err != nil || len(cases) != 4 {
		t.Errorf("the same kind, language and size in another benchmark: %d cases, %v", len(cases), err)
	}
}

// Every patch applies to the sources as they are: a stage changed since
// its patch was made fails here, in the default tests, not after an hour
// of the full suite.
func TestThePatchesApply(t *testing.T) {
	cases, err := LoadCases(patchesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	root := workspaceRoot(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			data, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			// A copy of the files the patch changes, as regular files (the
			// runfiles are links, which git apply will not patch through).
			dir := t.TempDir()
			for _, name := range patchedFiles(string(data)) {
				src, err := os.ReadFile(filepath.Join(root, name))
				if err != nil {
					t.Fatalf("the patch changes %s: %v", name, err)
				}
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("git", "apply", "--check", "--verbose", c.Path)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s does not apply: %v\n%s", c.Path, err, out)
			}
		})
	}
}

// patchedFiles are the files a git diff changes that exist before it: not
// those it creates ("--- /dev/null"), which there is nothing to copy of.
func patchedFiles(diff string) []string {
	var names []string
	for _, line := range strings.Split(diff, "\n") {
		if name, ok := strings.CutPrefix(line, "--- a/"); ok {
			names = append(names, name)
		}
	}
	return names
}

// workspaceRoot is the checkout's root: the runfiles' under Bazel, two
// levels up under go test.
func workspaceRoot(t *testing.T) string {
	if dir := os.Getenv("TEST_SRCDIR"); dir != "" {
		return filepath.Join(dir, os.Getenv("TEST_WORKSPACE"))
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func patchesDir(t *testing.T) string {
	return filepath.Join(workspaceRoot(t), "tools", "regressionsuite", "patches")
}
