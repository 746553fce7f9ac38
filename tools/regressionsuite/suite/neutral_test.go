package suite

import (
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The neutral matrix, from fake measurements: per gated figure its largest
// move over the corpus as a share of its threshold, a move over half of it
// marked, an improvement past it a false alarm that fails the suite, a
// figure shown, not gated, left out, and a case that did not run listed.
func TestNeutralMatrix(t *testing.T) {
	count := func(figure string, old, new, threshold float64, gated bool) verdict.Verdict {
		return verdict.Judge(figure, "instructions", []float64{old}, []float64{new}, verdict.CountRule(threshold, gated))
	}
	bench := func(name string, figures ...verdict.Verdict) summary.Benchmark {
		return summary.Benchmark{Name: name, Outcome: verdict.Worst(figures), Figures: figures}
	}
	neutral := func(name, language string, benchmarks ...string) Case {
		return Case{Name: name, Kind: Neutral, Language: language, Benchmarks: benchmarks}
	}
	quiet := Outcome{Case: neutral("neutral-go-a", "Go", "havlak7", "havlak8"), Benchmarks: []summary.Benchmark{
		bench("havlak7", count("own_instructions", 100e6, 100.1e6, 0.01, true), count("d1_misses", 1e6, 1.5e6, 0.01, false)),
		bench("havlak8", count("own_instructions", 100e6, 100.3e6, 0.01, true)),
	}}
	near := Outcome{Case: neutral("neutral-cc-b", "C++", "havlak7cc"), Benchmarks: []summary.Benchmark{
		bench("havlak7cc", count("instructions", 100e6, 100.2e6, 0.0025, true)),
	}}
	alarm := Outcome{Case: neutral("neutral-cc-c", "C++", "havlak6cc"), Benchmarks: []summary.Benchmark{
		bench("havlak6cc", count("instructions", 100e6, 99e6, 0.0025, true)),
	}}
	broken := Outcome{Case: neutral("neutral-cc-d", "C++", "havlak1cc"), Err: "the patch does not apply"}
	regression := Outcome{Case: Case{Name: "extra", Kind: "extra-work", Language: "Go", Size: "2%", Benchmarks: []string{"havlak7"}, Figure: "own_instructions"},
		Benchmarks: []summary.Benchmark{bench("havlak7", count("own_instructions", 100e6, 102e6, 0.01, true))}}
	// Where the moves went: the regression in its patch's lines; the
	// quiet case's two moves outside the change, the near one's in it, one
	// not attributed.
	split := func(changed, edited, other int64) *attribution.Attribution {
		a := &attribution.Attribution{Base: 1_000_000}
		a.Parts[attribution.ChangedLines] = attribution.Sums{Base: 1000, Change: uint64(1000 + changed)}
		a.Parts[attribution.EditedFunctions] = attribution.Sums{Base: 1000, Change: uint64(1000 + edited)}
		a.Parts[attribution.OtherOwnCode] = attribution.Sums{Base: 1000, Change: uint64(1000 + other)}
		a.Change = uint64(int64(a.Base) + changed + edited + other)
		return a
	}
	// Its changed lines ran, the same count, and the runtime moved: not
	// called outside (it may be library code those lines call).
	ranUnchanged := &attribution.Attribution{Base: 1_000_000, Change: 1_000_600}
	ranUnchanged.Parts[attribution.ChangedLines] = attribution.Sums{Base: 500, Change: 500}
	ranUnchanged.Parts[attribution.Toolchain] = attribution.Sums{Base: 1000, Change: 1600}
	regression.Where = []Where{{Benchmark: "havlak7", Figure: "own_instructions", Attribution: split(1_940_000, 20_000, 40_000)}}
	quiet.Where = []Where{{Benchmark: "havlak7", Figure: "own_instructions", Attribution: split(0, 0, 100_000)},
		{Benchmark: "havlak8", Figure: "own_instructions", Attribution: split(1, 0, 300_000)},
		{Benchmark: "havlak9", Figure: "own_instructions", Attribution: ranUnchanged}}
	near.Where = []Where{{Benchmark: "havlak7cc", Figure: "instructions", Attribution: split(150_000, 0, 50_000)}}
	alarm.Where = []Where{{Benchmark: "havlak6cc", Figure: "instructions", Err: "a side kept no line counts"}}
	m := &Matrix{Checkout: "0123456789ab", Started: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Outcomes: []Outcome{regression, quiet, near, alarm, broken}}

	var b strings.Builder
	m.WriteMarkdown(&b)
	got := b.String()
	rows := []string{
		"| extra-work | Go | 2% | havlak7 | **caught** by `own_instructions` +2.00% | `own_instructions` +2.00%; 97% in lines the change added or edited |",
		"Neutral changes: false alarms: 1 in 3 cases run (goal: 0); moves of a gated figure at or over half its threshold: 2 (goal: 0).",
		"| gated figure | largest move / threshold | that move | judged | false alarms |",
		"| `instructions` | **4.00** | -1.00% of 0.25% in havlak6cc (neutral-cc-c) | 2 | 1 |",
		"| `own_instructions` | 0.30 | +0.30% of 1% in havlak8 (neutral-go-a) | 2 | 0 |",
		"Where their instructions moved (the perf check's attribution, the patch as the diff): 2 of 4 moves outside the change: layout or code generation; the others:",
		"- neutral-go-a: havlak9 `own_instructions` +600: 0% in lines the change added or edited, most in the toolchain, runtime and standard library",
		"- neutral-cc-b: havlak7cc `instructions` +200,000: 75% in lines the change added or edited",
		"- neutral-cc-c: havlak6cc `instructions`: not attributed: a side kept no line counts",
		"- neutral-cc-c: **false alarm**: instructions -1.00% in havlak6cc (4.00 of its threshold)",
		"- neutral-cc-d: not run: the patch does not apply",
	}
	wantInOrder(t, got, rows)
	for _, absent := range []string{"d1_misses", "| neutral |"} {
		if strings.Contains(got, absent) {
			t.Errorf("the matrix shows %q:\n%s", absent, got)
		}
	}

	if s := quiet.Summary(); s != "no alarm; the largest move: own_instructions +0.30% in havlak8 (0.30 of its threshold)" {
		t.Errorf("Summary = %q", s)
	}
	if s := alarm.Summary(); !strings.HasPrefix(s, "FALSE ALARM: instructions -1.00% in havlak6cc") {
		t.Errorf("Summary = %q", s)
	}
	if n := len(regression.Alarms()); n != 0 {
		t.Errorf("a regression case's catch counts as %d false alarms", n)
	}
	err := m.Failure()
	if err == nil || !strings.Contains(err.Error(), "neutral-cc-c: false alarm: instructions -1.00% in havlak6cc") || !strings.Contains(err.Error(), "neutral-cc-d: the patch does not apply") {
		t.Errorf("Failure: %v", err)
	}
	if strings.Contains(err.Error(), "neutral-cc-b") {
		t.Errorf("a move under its threshold fails the suite: %v", err)
	}
}

// A matrix without neutral cases has no neutral matrix.
func TestNoNeutralMatrix(t *testing.T) {
	var b strings.Builder
	(&Matrix{}).WriteMarkdown(&b)
	if strings.Contains(b.String(), "Neutral changes") {
		t.Errorf("a neutral matrix without neutral cases:\n%s", b.String())
	}
}

// A move of a figure whose threshold is 0 is infinitely far past it; one
// that did not move, or was not judged, did not move at all.
func TestMoveShare(t *testing.T) {
	for _, tc := range []struct {
		v    verdict.Verdict
		want string
	}{
		{verdict.Judge("x", "", []float64{10}, []float64{11}, verdict.CountRule(0, true)), "∞ (a threshold of 0)"},
		{verdict.Judge("x", "", []float64{10}, []float64{10}, verdict.CountRule(0, true)), "0.00"},
		{verdict.Judge("x", "", []float64{10}, []float64{10.1}, verdict.CountRule(0.02, true)), "0.50"},
		{verdict.MissingFigure("x", "", []float64{10}, verdict.CountRule(0.01, true), "gone"), "0.00"},
	} {
		if got := shareText(Move{Verdict: tc.v}.Share()); got != tc.want {
			t.Errorf("%s: share %s, want %s", tc.v, got, tc.want)
		}
	}
}
