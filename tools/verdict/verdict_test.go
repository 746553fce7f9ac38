package verdict

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// runs is n values spread evenly by spread around median.
func runs(median, spread float64, n int) []float64 {
	values := make([]float64, n)
	for i := range values {
		values[i] = median * (1 + spread*(float64(i)/float64(max(n-1, 1))-0.5))
	}
	return values
}

func TestCountRule(t *testing.T) {
	rule := CountRule(CountThreshold, true)
	for _, c := range []struct {
		name     string
		old, new []float64
		want     Outcome
	}{
		{"exact, 2% more", []float64{1000, 1000, 1000}, []float64{1020, 1020, 1020}, Regressed},
		{"exact, 2% less", []float64{1000, 1000, 1000}, []float64{980, 980, 980}, Improved},
		{"under the threshold", []float64{1000, 1000, 1000}, []float64{1009, 1009, 1009}, Unchanged},
		// 2% worse, but the runs spread by 3%: noise, not a change.
		{"within the noise", runs(1000, 0.03, 3), runs(1020, 0.03, 3), Unchanged},
		{"one run a side is enough", []float64{1000}, []float64{1100}, Regressed},
		{"no runs", nil, []float64{1}, NotComparable},
		{"NaN", []float64{1000}, []float64{math.NaN()}, NotComparable},
		{"from zero", []float64{0, 0}, []float64{3, 3}, Regressed},
		{"zero to zero", []float64{0}, []float64{0}, Unchanged},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Judge("instructions", "instructions", c.old, c.new, rule)
			if v.Outcome != c.want {
				t.Errorf("%s, want %s", v, c.want)
			}
			if v.Fails() != (c.want == Regressed) {
				t.Errorf("Fails() = %v for %s", v.Fails(), v)
			}
		})
	}
}

func TestGatedAndDirection(t *testing.T) {
	old, worse := []float64{100, 100}, []float64{120, 120}
	if v := Judge("x", "u", old, worse, CountRule(0.01, false)); v.Outcome != Regressed || v.Fails() || v.Label() != "worse" {
		t.Errorf("not gated: %s, fails %v, label %q", v, v.Fails(), v.Label())
	}
	rule := CountRule(0.01, true)
	rule.HigherIsBetter = true
	v := Judge("throughput", "req/s", old, worse, rule)
	if v.Outcome != Improved || v.Change <= 0 {
		t.Errorf("higher is better, 20%% more: %s (change %v)", v, v.Change)
	}
	if v := Judge("throughput", "req/s", worse, old, rule); v.Outcome != Regressed || !strings.Contains(v.String(), "-16.67%") {
		t.Errorf("higher is better, 17%% less: %s", v)
	}
}

func TestTimingRule(t *testing.T) {
	rule := TimingRule(TimingThreshold, true)
	base := runs(1.0, 0.02, 5)
	for _, c := range []struct {
		name string
		new  []float64
		want Outcome
	}{
		{"20% slower, 5 runs", runs(1.2, 0.02, 5), Regressed},
		{"10% slower: under the threshold", runs(1.1, 0.02, 5), Unchanged},
		{"40% faster", runs(0.6, 0.02, 5), Improved},
		{"4 runs: too few", runs(2, 0.02, 4), NotComparable},
		// Medians 20% apart but the samples interleave: the U test
		// does not confirm a change.
		{"not significant", []float64{0.95, 1.3, 1.0, 1.2, 1.25}, Unchanged},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Judge("real time", "s", base, c.new, rule)
			if v.Outcome != c.want {
				t.Errorf("%s, want %s", v, c.want)
			}
			if c.want != NotComparable && v.P == 0 {
				t.Errorf("no p-value: %+v", v)
			}
		})
	}
}

func TestWorst(t *testing.T) {
	regressed := Verdict{Outcome: Regressed, Rule: Rule{Gated: true}}
	shown := Verdict{Outcome: Regressed}
	improved := Verdict{Outcome: Improved, Rule: Rule{Gated: true}}
	same := Verdict{Outcome: Unchanged, Rule: Rule{Gated: true}}
	cannot := Verdict{Outcome: NotComparable, Rule: Rule{Gated: true}}
	for _, c := range []struct {
		verdicts []Verdict
		want     Outcome
	}{
		{nil, NotComparable},
		{[]Verdict{cannot}, NotComparable},
		{[]Verdict{same, shown}, Unchanged},
		{[]Verdict{same, improved, cannot}, Improved},
		{[]Verdict{improved, regressed}, Regressed},
	} {
		if got := Worst(c.verdicts); got != c.want {
			t.Errorf("Worst(%v) = %s, want %s", c.verdicts, got, c.want)
		}
	}
}

// Outcomes is the one order of how bad an outcome is: a broken
// measurement, what went unseen, what got worse, what was not judged,
// what got better, the rest. WorstOutcome of any set of outcomes is the
// first of them in that order, not_comparable left out unless alone.
func TestOutcomes(t *testing.T) {
	all := Outcomes()
	want := []Outcome{Inconsistent, Missing, Regressed, NotComparable, Improved, Unchanged}
	if !slices.Equal(all, want) {
		t.Fatalf("Outcomes() = %v, want %v", all, want)
	}
	all[0] = Unchanged
	if Outcomes()[0] != Inconsistent {
		t.Errorf("a caller's change of Outcomes() changed the order")
	}
	for i, o := range want {
		if o.Rank() != i || !o.Valid() {
			t.Errorf("%s: rank %d, valid %v; want %d, valid", o, o.Rank(), o.Valid(), i)
		}
	}
	if o := Outcome("worst"); o.Valid() || o.Rank() != len(want) {
		t.Errorf("%q: valid, or ranked %d among the outcomes", o, o.Rank())
	}
	// Every subset of the outcomes, as a bit set.
	for set := 1; set < 1<<len(want); set++ {
		var some []Outcome
		for i, o := range want {
			if set&(1<<i) != 0 {
				some = append(some, o)
			}
		}
		first := some[0]
		if first == NotComparable && len(some) > 1 {
			first = some[1]
		}
		slices.Reverse(some)
		if got := WorstOutcome(some); got != first {
			t.Errorf("WorstOutcome(%v) = %s, want %s", some, got, first)
		}
	}
}

func TestBoundary(t *testing.T) {
	// The bisect of 2026-11-25 that named a "first bad commit" of a
	// +0.006% change: GOOD and BAD are the same to the gate.
	good := []float64{160289706, 160289512, 160290011}
	bad := []float64{160299370, 160299302, 160299811}
	_, err := Lab.NewBoundary("own_instructions", "instructions", false, good, bad)
	if !errors.Is(err, ErrNothingToBisect) || !strings.Contains(err.Error(), "160,289,706") || !strings.Contains(err.Error(), "+0.0060%") ||
		!strings.Contains(err.Error(), "threshold 0.5% (the floor: 5 × noise 0.0003% of 3 reruns is under it)") {
		t.Errorf("a +0.006%% change: %v", err)
	}

	// 10% more instructions: a boundary midway.
	bad = []float64{176318677, 176318700, 176318650}
	b, err := Lab.NewBoundary("own_instructions", "instructions", false, good, bad)
	if err != nil {
		t.Fatal(err)
	}
	if !b.HigherIsBad || b.Threshold < good[2] || b.Threshold > bad[2] {
		t.Errorf("boundary %+v", b)
	}
	if isBad, clear := b.Bad([]float64{176318600, 176318700}); !isBad || !clear {
		t.Errorf("a bad commit: bad %v clear %v", isBad, clear)
	}
	if isBad, clear := b.Bad([]float64{160289000, 160290000, 176318700}); isBad || clear {
		t.Errorf("runs on both sides, median good: bad %v clear %v", isBad, clear)
	}
	if !strings.Contains(b.Rule(), "above 168,304,") {
		t.Errorf("rule: %s", b.Rule())
	}

	// An improvement is bisected the other way round.
	b, err = Lab.NewBoundary("own_instructions", "instructions", false, bad, good)
	if err != nil || b.HigherIsBad {
		t.Errorf("improvement: %+v, %v", b, err)
	}

	// Past the threshold and GOOD's noise, yet overlapping runs: no clear
	// boundary.
	_, err = Lab.NewBoundary("x", "u", false, []float64{100, 100, 105}, []float64{105, 106, 106})
	if !errors.Is(err, ErrNothingToBisect) || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping: %v", err)
	}
}

func TestBoundaryOfAnExactCount(t *testing.T) {
	// havlak6cc's instructions, the same in every run.
	const good = 234584917
	same := func(x float64) []float64 { return []float64{x, x, x} }
	// Half a percent more: a boundary at the floor's precision.
	b, err := Lab.NewBoundary("instructions", "instructions", true, same(good), same(good*1.005))
	if err != nil || !b.HigherIsBad || b.Verdict.Rule.Threshold != ExactCountFloor {
		t.Errorf("+0.5%%: %+v, %v; want a boundary at the exact count's floor", b, err)
	}
	if !strings.Contains(b.Rule(), "threshold 0.25% (the floor") {
		t.Errorf("rule: %s", b.Rule())
	}
	// Unchanged, and a difference of the noise's size: nothing to bisect.
	for name, bad := range map[string][]float64{"unchanged": same(good), "+0.1%": same(good * 1.001),
		"one run +0.5%, another under": {good * 1.005, good, good * 1.0001}} {
		if _, err := Lab.NewBoundary("instructions", "instructions", true, same(good), bad); !errors.Is(err, ErrNothingToBisect) {
			t.Errorf("%s: %v, want nothing to bisect", name, err)
		}
	}
}

func TestGrossFactor(t *testing.T) {
	rule := TimingRule(TimingThreshold, true)
	for _, c := range []struct {
		name     string
		old, new []float64
		better   bool
		want     Outcome
	}{
		{"one round, 3x slower: noise of these machines", []float64{1}, []float64{3}, false, NotComparable},
		{"one round, 20x slower", []float64{1}, []float64{20}, false, Regressed},
		{"one round, 20x faster", []float64{20}, []float64{1}, false, Improved},
		// The router night of issue 25: 190 req/s against 19,076.
		{"throughput a hundredth", []float64{19076}, []float64{190}, true, Regressed},
		{"throughput 3x", []float64{190}, []float64{570}, true, NotComparable},
	} {
		r := rule
		r.HigherIsBetter = c.better
		if v := Judge("x", "u", c.old, c.new, r); v.Outcome != c.want || v.Warning == "" {
			t.Errorf("%s: %s (warning %q), want %s", c.name, v, v.Warning, c.want)
		}
	}
}

func TestMissing(t *testing.T) {
	v := MissingFigure("instructions", "instructions", []float64{5}, CountRule(CountThreshold, true), "tonight's result has no such figure")
	if !v.Fails() || Worst([]Verdict{v, {Outcome: Unchanged, Rule: Rule{Gated: true}}}) != Missing || !strings.Contains(v.String(), "MISSING") {
		t.Errorf("a missing gated figure: %s, fails %v", v, v.Fails())
	}
	v.Rule.Gated = false
	if v.Fails() {
		t.Errorf("a missing figure that is not gated fails")
	}
}
