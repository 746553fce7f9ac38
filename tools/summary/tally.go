package summary

import (
	"cmp"
	"math"
	"slices"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// A Tally is what a comparison found, counted, for a page's or a
// report's summary line: each figure's verdict counts once, and so does a
// benchmark judged without figures (missing, or not compared: only the
// change has it, another workload, unreadable).
type Tally struct {
	// Counts are by outcome.
	Counts map[verdict.Outcome]int
	// Means are, by kind of cost, the geometric mean of the cost ratios
	// of the figures judged at both sides (Mean); in result.Costs' order,
	// the figures of no declared cost last.
	Means []Mean
}

// A Mean is the geometric mean of the cost ratios of the figures of one
// kind of cost (Cost, "" for none declared) that were judged at both
// sides: regressed, improved or unchanged, with a median above zero at
// each (a growth's fit is not a median, and is left out). A figure's cost
// ratio is B's median over A's, or A's over B's where higher is better (a
// throughput: Rule.HigherIsBetter), so that above 1 is always more cost.
// Change is the mean less 1: +0.02 is 2% more cost, on the geometric
// average of Figures figures.
type Mean struct {
	Cost    string
	Figures int
	Change  float64
}

// TallyOf counts benchmarks' verdicts: their figures', or, for a
// benchmark without figures, its own outcome.
func TallyOf(benchmarks []Benchmark) Tally {
	t := Tally{Counts: map[verdict.Outcome]int{}}
	logs := map[string][]float64{}
	for _, b := range benchmarks {
		if len(b.Figures) == 0 {
			t.Counts[b.Outcome]++
			continue
		}
		for _, v := range b.Figures {
			t.Counts[v.Outcome]++
			if r, ok := costRatio(v); ok {
				logs[v.Cost] = append(logs[v.Cost], math.Log(r))
			}
		}
	}
	for cost, l := range logs {
		sum := 0.0
		for _, x := range l {
			sum += x
		}
		t.Means = append(t.Means, Mean{Cost: cost, Figures: len(l), Change: math.Exp(sum/float64(len(l))) - 1})
	}
	order := func(cost string) int {
		if i := slices.Index(result.Costs, cost); i >= 0 {
			return i
		}
		return len(result.Costs)
	}
	slices.SortFunc(t.Means, func(x, y Mean) int {
		return cmp.Or(cmp.Compare(order(x.Cost), order(y.Cost)), cmp.Compare(x.Cost, y.Cost))
	})
	return t
}

// costRatio is a judged figure's cost ratio (Mean), if it has one.
func costRatio(v verdict.Verdict) (float64, bool) {
	switch {
	case v.Outcome != verdict.Regressed && v.Outcome != verdict.Improved && v.Outcome != verdict.Unchanged,
		v.Growth != nil, !(v.Old.Median > 0) || !(v.New.Median > 0),
		math.IsInf(v.Old.Median, 0) || math.IsInf(v.New.Median, 0):
		return 0, false
	case v.Rule.HigherIsBetter:
		return v.Old.Median / v.New.Median, true
	}
	return v.New.Median / v.Old.Median, true
}

// A Severity is how bad a row of a table is, what Worse orders rows by:
// whether it fails a gate, its outcome, and how much worse its figure got
// in the direction its rule declares worse (Verdict.Worsening: a
// throughput that fell got worse; 0 for a whole benchmark, or a figure
// without a change).
type Severity struct {
	Fails     bool
	Outcome   verdict.Outcome
	Worsening float64
}

// FigureSeverity is the severity of v, a verdict on one of b's figures,
// as b judges it: failing when it fails b (Failing), so that an accepted
// regression ranks after the figures that fail.
func (b Benchmark) FigureSeverity(v verdict.Verdict) Severity {
	s := Severity{Fails: v.Fails() && (!b.Accepts(v.Figure) || v.Outcome == verdict.Inconsistent), Outcome: v.Outcome}
	if w := v.Worsening(); !math.IsNaN(w) {
		s.Worsening = w
	}
	return s
}

// Severity is b's as one row, for a table that orders a benchmark without
// figures (gone, or not compared) among figures: failing as b fails
// (Fails), with its outcome.
func (b Benchmark) Severity() Severity {
	return Severity{Fails: b.Fails(), Outcome: b.Outcome}
}

// Worse orders two rows worst first, for a table read from its top: what
// fails a gate first, then by outcome in verdict's one order of them
// (Outcome.Rank, the order verdict.Worst judges a night by, so that no
// table ranks outcomes otherwise than the night's verdict does), then by
// how much worse, the most first; among improvements, the most better
// first.
func Worse(x, y Severity) int {
	fails := func(s Severity) int {
		if s.Fails {
			return 0
		}
		return 1
	}
	by := cmp.Compare(y.Worsening, x.Worsening)
	if x.Outcome == verdict.Improved && y.Outcome == verdict.Improved {
		by = -by
	}
	return cmp.Or(cmp.Compare(fails(x), fails(y)), cmp.Compare(x.Outcome.Rank(), y.Outcome.Rank()), by)
}

// WorseBenchmark is Worse of two benchmarks as rows (Benchmark.Severity),
// for a table of benchmarks.
func WorseBenchmark(x, y Benchmark) int { return Worse(x.Severity(), y.Severity()) }
