package summary

import (
	"math"
	"slices"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// A tally counts each figure's verdict once and a benchmark without
// figures once; its means are per kind of cost, of the cost ratios, a
// throughput's inverted; Worse puts a throughput that fell by half first.
func TestTallyAndWorse(t *testing.T) {
	count := verdict.CountRule(0.01, true)
	throughput := verdict.CountRule(0.01, true)
	throughput.HigherIsBetter = true
	judge := func(figure string, old, new float64, rule verdict.Rule, cost string) verdict.Verdict {
		v := verdict.Judge(figure, "count", []float64{old}, []float64{new}, rule)
		v.Cost = cost
		return v
	}
	worse := judge("instructions", 100, 110, count, result.CostWork)                // +10%: regressed
	better := judge("allocations", 100, 90, count, result.CostWork)                 // -10%: improved
	same := judge("branches", 100, 100, count, result.CostWork)                     // unchanged
	fell := judge("requests_per_second", 23120, 14132, throughput, result.CostTime) // fell: regressed
	rose := judge("requests_per_second_2", 100, 125, throughput, result.CostTime)   // rose: improved
	unjudged := verdict.Judge("real_seconds", "s", []float64{1}, []float64{3}, verdict.Rule{Threshold: 0.1, MinRuns: 5})
	for _, c := range []struct {
		v    verdict.Verdict
		want verdict.Outcome
	}{{worse, verdict.Regressed}, {better, verdict.Improved}, {same, verdict.Unchanged}, {fell, verdict.Regressed},
		{rose, verdict.Improved}, {unjudged, verdict.NotComparable}} {
		if c.v.Outcome != c.want {
			t.Fatalf("%s: %s, want %s", c.v.Figure, c.v.Outcome, c.want)
		}
	}
	if unjudged.Change != 2 {
		t.Errorf("a figure of too few runs: change %v, want +200%% all the same", unjudged.Change)
	}

	tally := TallyOf([]Benchmark{
		{Name: "a", Outcome: verdict.Regressed, Figures: []verdict.Verdict{worse, better, same, unjudged}},
		{Name: "router", Outcome: verdict.Regressed, Figures: []verdict.Verdict{fell, rose}},
		{Name: "gone", Outcome: verdict.Missing},
		{Name: "new", Outcome: verdict.NotComparable, Note: "not in the baseline"},
	})
	want := map[verdict.Outcome]int{verdict.Regressed: 2, verdict.Improved: 2, verdict.Unchanged: 1, verdict.NotComparable: 2, verdict.Missing: 1}
	for o, n := range want {
		if tally.Counts[o] != n {
			t.Errorf("%s: %d, want %d (%v)", o, tally.Counts[o], n, tally.Counts)
		}
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	workMean := math.Cbrt(1.10*0.90*1.00) - 1
	timeMean := math.Sqrt(23120.0/14132*100/125) - 1
	if len(tally.Means) != 2 || tally.Means[0].Cost != result.CostWork || tally.Means[0].Figures != 3 || !near(tally.Means[0].Change, workMean) ||
		tally.Means[1].Cost != result.CostTime || tally.Means[1].Figures != 2 || !near(tally.Means[1].Change, timeMean) {
		t.Errorf("means %+v, want work %+.4f of 3, time %+.4f of 2 (the throughputs inverted)", tally.Means, workMean, timeMean)
	}

	all := []verdict.Verdict{same, rose, unjudged, better, worse, fell}
	slices.SortStableFunc(all, worseFigure)
	var order []string
	for _, v := range all {
		order = append(order, v.Figure)
	}
	if got := order; !slices.Equal(got, []string{"requests_per_second", "instructions", "real_seconds", "requests_per_second_2", "allocations", "branches"}) {
		t.Errorf("worst first: %q; want the throughput that fell first, then the count that rose, the unjudged, the improvements most first", got)
	}
}

// A comparison as a whole is its worst benchmark: a benchmark gone is
// worse than a regression, one not compared counts only when none was.
func TestOutcome(t *testing.T) {
	of := func(outcomes ...verdict.Outcome) []Benchmark {
		var bs []Benchmark
		for _, o := range outcomes {
			bs = append(bs, Benchmark{Name: string(o), Outcome: o})
		}
		return bs
	}
	for _, c := range []struct {
		benchmarks []Benchmark
		want       verdict.Outcome
	}{
		{of(verdict.Unchanged, verdict.Regressed, verdict.Missing), verdict.Missing},
		{of(verdict.Improved, verdict.NotComparable, verdict.Regressed), verdict.Regressed},
		{of(verdict.NotComparable, verdict.Improved), verdict.Improved},
		{of(verdict.NotComparable), verdict.NotComparable},
		{nil, verdict.NotComparable},
		{of(verdict.Missing, verdict.Inconsistent), verdict.Inconsistent},
	} {
		if got := Outcome(c.benchmarks); got != c.want {
			t.Errorf("Outcome(%v) = %s, want %s", c.benchmarks, got, c.want)
		}
	}
}

// A benchmark as one row fails as the benchmark fails: gone, it is
// ordered with the failing figures, before a gated regression; retired,
// after it.
func TestBenchmarkSeverity(t *testing.T) {
	gone := Benchmark{Name: "havlak7", Outcome: verdict.Missing}
	retired := Benchmark{Name: "havlak8", Outcome: verdict.Missing, Retired: true}
	regressed := Benchmark{}.FigureSeverity(verdict.Verdict{Figure: "instructions", Outcome: verdict.Regressed, Change: 0.1, Rule: verdict.Rule{Gated: true}})
	if s := gone.Severity(); !s.Fails || s.Outcome != verdict.Missing || Worse(s, regressed) >= 0 {
		t.Errorf("a benchmark gone: %+v, want a failing row before a gated regression %+v", s, regressed)
	}
	if s := retired.Severity(); s.Fails || Worse(s, regressed) <= 0 {
		t.Errorf("a benchmark retired: %+v, want a row that fails nothing, after a gated regression", s)
	}
}

// The table's order of outcomes is verdict's: gated figures of every
// outcome, sorted by Worse, come in verdict.Outcomes' order, and the
// outcome of a comparison as a whole (Outcome, verdict.WorstOutcome) is
// the outcome of its first row that was judged.
func TestWorseAgreesWithVerdict(t *testing.T) {
	all := verdict.Outcomes()
	// Every subset of the outcomes, as a bit set.
	for set := 1; set < 1<<len(all); set++ {
		var figures []verdict.Verdict
		var benchmarks []Benchmark
		for i, o := range slices.Backward(all) {
			if set&(1<<i) != 0 {
				figures = append(figures, verdict.Verdict{Figure: string(o), Outcome: o, Rule: verdict.Rule{Gated: true}})
				benchmarks = append(benchmarks, Benchmark{Name: string(o), Outcome: o})
			}
		}
		slices.SortStableFunc(figures, worseFigure)
		var sorted []verdict.Outcome
		for _, v := range figures {
			sorted = append(sorted, v.Outcome)
		}
		want := slices.DeleteFunc(slices.Clone(all), func(o verdict.Outcome) bool { return !slices.Contains(sorted, o) })
		if !slices.Equal(sorted, want) {
			t.Errorf("sorted by Worse: %v, want verdict's order %v", sorted, want)
		}
		first := sorted[0]
		if first == verdict.NotComparable && len(sorted) > 1 {
			// Not judged: the comparison is of what was.
			first = sorted[1]
		}
		if got := Outcome(benchmarks); got != first || verdict.Worst(figures) != first {
			t.Errorf("%v: Outcome %s, verdict.Worst %s; want %s, the first row judged", sorted, got, verdict.Worst(figures), first)
		}
	}
}

// worseFigure is Worse of two figures' verdicts.
func worseFigure(x, y verdict.Verdict) int {
	return Worse(Benchmark{}.FigureSeverity(x), Benchmark{}.FigureSeverity(y))
}
