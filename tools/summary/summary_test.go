package summary

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/profilediff"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

func sample() *Summary {
	rule := verdict.CountRule(verdict.CountThreshold, true)
	return &Summary{
		Tool:     "report",
		Baseline: "baseline/",
		Benchmarks: []Benchmark{
			{Name: "havlak7", Outcome: verdict.Unchanged, Figures: []verdict.Verdict{
				verdict.Judge("own_instructions", "instructions", []float64{100, 100}, []float64{100, 100}, rule)}},
			{Name: "havlak6", Language: "Go", Outcome: verdict.Regressed, Figures: []verdict.Verdict{
				verdict.Judge("own_instructions", "instructions", []float64{100, 100}, []float64{103, 103}, rule),
				verdict.Judge("alloc_objects", "objects", []float64{0}, []float64{5}, rule)},
				Values: []Value{{Figure: "real_seconds", Unit: "s", Sample: result.NewSample([]float64{1.5})}}},
			{Name: "wc1", Outcome: verdict.NotComparable, EnvironmentChanges: []string{"machine.cpu_model: a → b"}},
		},
		ProfileDiffs: []ProfileDiff{{Benchmark: "havlak6", Diff: &profilediff.Diff{Profile: "cpu", SampleType: "cpu", Unit: "nanoseconds",
			Base: 1e9, New: 1.1e9, Funcs: []profilediff.Func{{Name: "main.find", Flat: 1e8, Cum: 1e8}}}}},
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	s, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.SchemaVersion != SchemaVersion || len(s.Benchmarks) != 3 {
		t.Fatalf("read back %+v", s)
	}
	if c := s.Benchmarks[1].Figures[1].Change; !math.IsInf(float64(c), 1) {
		t.Errorf("a change from zero read back as %v", c)
	}
	if got := s.Regressed(); len(got) != 1 || got[0].Name != "havlak6" {
		t.Errorf("regressed: %v", got)
	}
	if got := s.EnvironmentChanged(); len(got) != 1 || got[0].Name != "wc1" {
		t.Errorf("environment changed: %v", got)
	}
	if s.Status() != verdict.StatusRegressed {
		t.Errorf("status %d", s.Status())
	}
	s.Benchmarks = s.Benchmarks[2:]
	if s.Status() != verdict.StatusNotComparable {
		t.Errorf("only another environment: status %d", s.Status())
	}
	s.Benchmarks[0].AllowedEnvironmentChange = true
	if s.Status() != verdict.StatusOK {
		t.Errorf("allowed: status %d", s.Status())
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"schema_version": 2, "tool": "report", "benchmarks": []}`, "schema_version 2"},
		{`{"schema_version": 1, "tool": "report", "benchmarks": [], "extra": 1}`, `unknown field "extra"`},
		{`{"schema_version": 1, "tool": "report", "benchmarks": [{"name": "x", "outcome": "fine"}]}`, `outcome "fine"`},
		{`{"schema_version": 1, "tool": "report", "benchmarks": [{"outcome": "unchanged"}]}`, "no name"},
		{`{"schema_version": 1, "benchmarks": []}`, `"tool": empty`},
		{`{"schema_version": 1, "tool": "report", "benchmarks": []} {}`, "more than one"},
		{`{"schema_version": 1, "tool": "report", "benchmarks": [{"name": "x", "outcome": "unchanged", "figures": [{"change": "big"}]}]}`, "a change"},
	} {
		if _, err := Parse([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.json, err, c.want)
		}
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a file over the limit: %v", err)
	}
}

func TestWriteKeepsOldOnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	bad := sample()
	bad.Benchmarks[0].Outcome = "fine"
	if err := Write(path, bad); err == nil {
		t.Fatal("a bad outcome was written")
	}
	if _, err := Read(path); err != nil {
		t.Errorf("the old summary is gone: %v", err)
	}
}

func TestMarkdown(t *testing.T) {
	s := sample()
	s.Benchmarks[0].Name = "a|b <img src=x>"
	var b strings.Builder
	s.WriteMarkdown(&b, Pair{})
	md := b.String()
	lines := strings.Split(md, "\n")
	// Its figures worst first by the lab's one order (Worse): from 0 to 5
	// is worse than +3%.
	if !strings.HasPrefix(lines[2], "| havlak6 | Go | 1.5 (1.5–1.5) s real_seconds | **REGRESSED** | **REGRESSED** alloc_objects from 0 to 5<br>**REGRESSED** own_instructions +3.00% |") {
		t.Errorf("the regression is not first:\n%s", md)
	}
	if !strings.Contains(lines[3], "| wc1 |  |  | not compared: another environment |") {
		t.Errorf("the uncompared benchmark is not second:\n%s", md)
	}
	if !strings.Contains(md, `a\|b \<img src=x\>`) {
		t.Errorf("a name is not escaped:\n%s", md)
	}
	if !strings.Contains(md, "- havlak6: cpu cpu +10.0%; flat: `main.find` +0.10s") {
		t.Errorf("no profile diff line:\n%s", md)
	}
}

// The annotation's table puts its failing benchmarks in verdict's order,
// the order the night's verdict ranks them by: a benchmark gone before
// one that regressed, whatever order the comparison found them in; then
// the others in that order too (WorseBenchmark, as every table sorts).
func TestMarkdownFailingInVerdictsOrder(t *testing.T) {
	s := sample()
	s.Benchmarks = append(slices.Clone(s.Benchmarks),
		Benchmark{Name: "better", Outcome: verdict.Improved},
		Benchmark{Name: "ungated", Outcome: verdict.Regressed, Figures: []verdict.Verdict{{Figure: "real_seconds", Outcome: verdict.Regressed}}},
		Benchmark{Name: "havlak7", Outcome: verdict.Missing, Note: "gone"})
	var b strings.Builder
	s.WriteMarkdown(&b, Pair{})
	var names []string
	for _, line := range strings.Split(b.String(), "\n")[2:] {
		if name, ok := strings.CutPrefix(line, "| "); ok {
			names = append(names, strings.SplitN(name, " |", 2)[0])
		}
	}
	if want := []string{"havlak7", "havlak6", "ungated", "wc1", "better"}; !slices.Equal(names[:len(want)], want) {
		t.Errorf("rows %q, want %q first: the failing (missing, then regressed), a regression that fails nothing, not compared, improved:\n%s", names, want, b.String())
	}
	if Outcome(s.Benchmarks) != verdict.Missing {
		t.Errorf("the comparison as a whole: %s, want missing, its first row", Outcome(s.Benchmarks))
	}
}

// The benchmarks that ran in another environment are grouped by what
// changed, and the Markdown names each change with them.
func TestEnvironmentGroups(t *testing.T) {
	s := sample()
	goSDK := []string{`toolchains.go: "go1.27.4" → "go1.28"`}
	s.Benchmarks = append(s.Benchmarks,
		Benchmark{Name: "havlak8", Outcome: verdict.NotComparable, EnvironmentChanges: goSDK},
		Benchmark{Name: "wc2", Outcome: verdict.Unchanged, EnvironmentChanges: []string{"machine.cpu_model: a → b"}, AllowedEnvironmentChange: true},
		Benchmark{Name: "havlak1", Outcome: verdict.NotComparable, EnvironmentChanges: goSDK})
	groups := s.EnvironmentGroups()
	if len(groups) != 2 || len(groups[0].Benchmarks) != 2 || groups[0].Benchmarks[1].Name != "wc2" ||
		len(groups[1].Benchmarks) != 2 || groups[1].Benchmarks[0].Name != "havlak8" || groups[1].Benchmarks[1].Name != "havlak1" {
		t.Fatalf("groups: %+v, want wc1 and wc2, then havlak8 and havlak1", groups)
	}
	var b strings.Builder
	s.WriteMarkdown(&b, Pair{})
	for _, want := range []string{
		"**Environment changed** since the baseline",
		"- machine.cpu_model: a → b: not compared, their timings restart here: wc1; compared across it, as allowed: wc2\n",
		`- toolchains.go: "go1.27.4" → "go1.28": not compared, their timings restart here: havlak8, havlak1` + "\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Markdown does not say %q:\n%s", want, b.String())
		}
	}
}

// A benchmark without a result is gone; one measured whose gated figure
// is missing is not, though its outcome is missing too.
func TestGone(t *testing.T) {
	gone := Benchmark{Name: "gone", Outcome: verdict.Missing}
	lost := Benchmark{Name: "lost", Outcome: verdict.Missing, Figures: []verdict.Verdict{
		{Figure: "instructions", Outcome: verdict.Missing, Rule: verdict.Rule{Gated: true}}}}
	if !gone.Gone() || lost.Gone() || !lost.Fails() {
		t.Errorf("gone %v, a figure missing gone %v (fails %v); want true, false (true)", gone.Gone(), lost.Gone(), lost.Fails())
	}
}
