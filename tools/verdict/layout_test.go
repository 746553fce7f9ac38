package verdict

import (
	"math"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// llMisses is a C++ program's LL misses as the runner declares them:
// exact, gated at the declared 1%.
func llMisses(values ...float64) result.Figure {
	return result.Figure{Name: "ll_misses", Unit: "misses", Class: result.ClassCount, Better: result.LowerIsBetter,
		Gated: true, Threshold: CountThreshold, Exact: true, Cost: result.CostLocality, Values: values}
}

// withLayout is a base of one figure whose medians in the base and its
// layout variants are layout.
func withLayout(f result.Figure, id *result.Identity, layout []float64) Side {
	side := Side{Figures: []result.Figure{f}, Identity: id}
	if layout != nil {
		side.Layout = map[result.FigureKey][]float64{{Name: f.Name, Unit: f.Unit}: layout}
	}
	return side
}

var (
	baseID   = &result.Identity{BinarySHA256: "base", RunSHA256: "run"}
	changeID = &result.Identity{BinarySHA256: "change", RunSHA256: "run"}
)

// A neutral change moved C++ ll_misses by 2.15%, which reruns of one
// binary never move: where the base's layout variants spread the figure
// 1.5%, a 2% move is noise of layout; without them it fails at the
// floor; a 5% regression still fails.
func TestLayoutNoise(t *testing.T) {
	const base = 1_000_000
	layout := runs(base, 0.015, 6) // the base and 5 variants
	for _, tc := range []struct {
		name      string
		layout    []float64
		change    float64
		want      Outcome
		threshold float64
		source    ThresholdSource
	}{
		{"2% with layout variants spreading 1.5%", layout, 1.02, Unchanged, 0.03, Layout},
		{"2% without layout variants", nil, 1.02, Regressed, ExactCountFloor, Floor},
		{"5% with layout variants spreading 1.5%", layout, 1.05, Regressed, 0.03, Layout},
		// One build is no spread, nor are builds that are no numbers.
		{"2% with the base's count alone", []float64{base}, 1.02, Regressed, ExactCountFloor, Floor},
		{"2% with a variant that is no number", []float64{base, 1.015 * base, math.NaN()}, 1.02, Regressed, ExactCountFloor, Floor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeLayout(t, withLayout(llMisses(runs(base, 0, 3)...), baseID, tc.layout),
				llMisses(runs(base*tc.change, 0, 3)...), changeID)
			if v.Outcome != tc.want || !near(v.Rule.Threshold, tc.threshold) || v.Calibration == nil || v.Calibration.Source != tc.source {
				t.Fatalf("%v (calibration %+v), want %s at %v from %s", v, v.Calibration, tc.want, tc.threshold, tc.source)
			}
			if tc.want == Regressed && !v.Fails() {
				t.Errorf("%v does not fail", v)
			}
			if tc.source != Layout {
				return
			}
			c := v.Calibration
			if c.Layouts != 6 || !near(c.LayoutNoise, 0.015) || c.LayoutFactor != LayoutFactor {
				t.Errorf("calibration %+v: want 6 builds, layout noise 1.5%%", c)
			}
			if want := "threshold 3% (layout variants: 2 × layout noise 1.5% of 6 builds of the base, over the floor 0.25% (5 × noise 0% of 3 reruns is under it))"; !strings.Contains(v.String(), want) {
				t.Errorf("%q does not say %q", v.String(), want)
			}
			if want := "calibrated from 6 layout variants of the base: layout moves it 1.5%"; c.Origin() != want {
				t.Errorf("Origin() = %q, want %q", c.Origin(), want)
			}
		})
	}
}

// judgeLayout compares one figure of a base with layout values against
// the change's of identity id.
func judgeLayout(t *testing.T, base Side, change result.Figure, id *result.Identity) Verdict {
	t.Helper()
	v := Lab.Compare(base, Side{Figures: []result.Figure{change}, Identity: id})
	if len(v) != 1 {
		t.Fatalf("%d verdicts, want 1: %v", len(v), v)
	}
	return v[0]
}

// The layout term may exceed the declared ceiling (the base's code,
// measured by the base's tools), but a change still cannot loosen it, and
// a figure layout does not move keeps its threshold.
func TestLayoutNoiseAndTheCeiling(t *testing.T) {
	const base = 1_000_000
	// Layout spreads it 0.8%: 1.6%, over the declared 1%.
	v := judgeLayout(t, withLayout(llMisses(runs(base, 0, 3)...), baseID, runs(base, 0.008, 4)), llMisses(runs(base*1.012, 0, 3)...), changeID)
	if v.Outcome != Unchanged || !near(v.Rule.Threshold, 0.016) || v.Calibration.Source != Layout || v.Calibration.Ceiling != CountThreshold {
		t.Errorf("1.2%% with a layout noise of 0.8%%: %v (%+v), want unchanged at 1.6%%, over the ceiling", v, v.Calibration)
	}
	// A change declaring 100% is still held to the base's.
	loose := llMisses(runs(base*1.05, 0, 3)...)
	loose.Threshold = 1
	if v := judgeLayout(t, withLayout(llMisses(runs(base, 0, 3)...), baseID, runs(base, 0.008, 4)), loose, changeID); v.Outcome != Regressed || !near(v.Rule.Threshold, 0.016) {
		t.Errorf("5%% of a change declaring 100%%: %v, want regressed at 1.6%%", v)
	}
	// Instructions are work, which layout does not move: they keep their
	// calibrated threshold, the floor, even where the variants differ (a
	// C++ variant's heap padding is work of its own).
	instructions := count("instructions", true, runs(234_584_917, 0, 3)...)
	instructions.Cost = result.CostWork
	v = judgeLayout(t, withLayout(instructions, baseID, runs(234_584_917, 0.01, 6)), count("instructions", true, runs(234_584_917*1.005, 0, 3)...), changeID)
	if v.Outcome != Regressed || v.Rule.Threshold != ExactCountFloor || v.Calibration.Source != Floor || v.Calibration.Layouts != 0 {
		t.Errorf("+0.5%% instructions, no layout noise: %v (%+v), want regressed at the floor", v, v.Calibration)
	}
	if strings.Contains(v.Calibration.Origin(), "layout") || strings.Contains(v.String(), "layout") {
		t.Errorf("a threshold the layout did not set says layout: %q, %q", v.Calibration.Origin(), v.String())
	}
	// A policy without a layout factor leaves layout noise out.
	p := Lab
	p.LayoutFactor = 0
	rule, c := p.Calibrate(CountRule(CountThreshold, true), result.ClassCount, true, Noise{Reruns: runs(base, 0, 3), Layout: runs(base, 0.015, 6)})
	if rule.Threshold != ExactCountFloor || c.Source != Floor || c.Layouts != 0 {
		t.Errorf("without a layout factor: %v from %+v", rule.Threshold, c)
	}
}

// The same binary and run measured twice: layout noise is no excuse, the
// inconsistency check is the one without layout variants.
func TestLayoutNoiseDoesNotLoosenTheSameIdentity(t *testing.T) {
	const base = 1_000_000
	layout := runs(base, 0.015, 6)
	v := judgeLayout(t, withLayout(llMisses(runs(base, 0, 3)...), baseID, layout), llMisses(runs(base*1.01, 0, 3)...), baseID)
	if v.Outcome != Inconsistent || !v.Fails() || !strings.Contains(v.Reason, "this exact count differs") {
		t.Errorf("an exact count 1%% apart, same identity: %v, want INCONSISTENT", v)
	}
	if v.Calibration == nil || v.Calibration.Layouts != 0 || v.Calibration.Source == Layout {
		t.Errorf("same identity: calibration %+v, want none from layout", v.Calibration)
	}
	// A Go program's D1 misses (not exact, gated): 1% apart is beyond 5 ×
	// its 0.05% noise, whatever its layout variants spread.
	d1 := func(values ...float64) result.Figure {
		f := llMisses(values...)
		f.Name, f.Exact = "d1_misses", false
		return f
	}
	v = judgeLayout(t, withLayout(d1(runs(base, 0.0005, 3)...), baseID, layout), d1(runs(base*1.01, 0.0005, 3)...), baseID)
	if v.Outcome != Inconsistent || !strings.Contains(v.Reason, "beyond its noise") {
		t.Errorf("a count 1%% apart, same identity: %v, want INCONSISTENT", v)
	}
	// Equal, same identity: the noise floor.
	if v := judgeLayout(t, withLayout(llMisses(runs(base, 0, 3)...), baseID, layout), llMisses(runs(base, 0, 3)...), baseID); v.Fails() {
		t.Errorf("the same count, same identity: %v", v)
	}
}

// A threshold the layout set says so, and what the other measurements
// would have set: the declared ceiling, their noise, the floor.
func TestLayoutText(t *testing.T) {
	layout := runs(1e6, 0.015, 6)
	for _, tc := range []struct {
		reruns []float64
		want   string
	}{
		{[]float64{1e6}, "over the declared 1%"},
		{runs(1e6, 0.0019, 5), "over 5 × noise 0.19% of 5 reruns (0.95%)"},
		{runs(1e6, 0.01, 3), "over the declared ceiling 1% (5 × noise 1% of 3 reruns is over it)"},
		{runs(1e6, 0, 3), "over the floor 0.5% (5 × noise 0% of 3 reruns is under it)"},
	} {
		rule, c := Lab.Calibrate(CountRule(CountThreshold, true), result.ClassCount, false, Noise{Reruns: tc.reruns, Layout: layout})
		want := "layout variants: 2 × layout noise 1.5% of 6 builds of the base, " + tc.want
		if !near(rule.Threshold, 0.03) || c.Source != Layout || c.String() != want {
			t.Errorf("%v: %v, %q; want 3%%, %q", tc.reruns, rule.Threshold, c.String(), want)
		}
	}
}
