package verdict

import (
	"testing"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/result"
)

// A quadratic pass injected into a copy of havlak7
// (testdata/havlak7_quadratic.patch: after each FindLoops, a double loop
// over every 420th block), measured: the own instructions of the quick
// workload (-dummy=1000 -trees=3 -loops=50 -baseloops=25 -iterations=10)
// and of the quick and full-size sweeps (-dummy=0 -loops=50 -baseloops=25
// -iterations=1 -trees=1,2,4,8 and 5,10,20,40), under Cachegrind
// (GOGC=off GODEBUG=memprofilerate=0, the Go runtime's functions left
// out, as the runner counts them).
var injected = struct {
	quickBase, quickPatched         float64
	sweepBase, sweepPatched         []float64
	fullSweepBase, fullSweepPatched []float64
	sweepSizes, fullSweepSizes      []float64
}{
	quickBase:        160300302,
	quickPatched:     161690107,
	sweepBase:        []float64{11568481, 23060349, 46047427, 92023086},
	sweepPatched:     []float64{11607510, 23181865, 46463254, 93543734},
	fullSweepBase:    []float64{57540848, 115007955, 229945293, 459808325},
	fullSweepPatched: []float64{58168656, 117345329, 238932418, 495070141},
	sweepSizes:       []float64{3800, 7600, 15200, 30400},
	fullSweepSizes:   []float64{19000, 38000, 76000, 152000},
}

func measuredSweep(t *testing.T, sizes, counts []float64) result.Sweep {
	t.Helper()
	s := result.Sweep{Figure: "own_instructions", Unit: "instructions", N: "loops found", Gated: true, Threshold: CountThreshold}
	for i, n := range sizes {
		s.Points = append(s.Points, result.SweepPoint{N: n, Value: counts[i]})
	}
	var err error
	if s.Fit, _, err = complexity.Best(sizes, counts); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInjectedQuadraticPass(t *testing.T) {
	rule := CountRule(CountThreshold, true)
	// The counted figure passes it: +0.87% at the quick size.
	if v := Judge("own_instructions", "instructions", []float64{injected.quickBase}, []float64{injected.quickPatched}, rule); v.Outcome != Unchanged {
		t.Fatalf("the quick counted figure: %v, want unchanged (under the 1%% threshold)", v)
	}
	// The quick sweep catches it by its coefficient, the full-size sweep
	// by its order.
	for _, tc := range []struct {
		name                 string
		sizes, base, patched []float64
		orderChanged         bool
	}{
		{"quick sweep", injected.sweepSizes, injected.sweepBase, injected.sweepPatched, false},
		{"full-size sweep", injected.fullSweepSizes, injected.fullSweepBase, injected.fullSweepPatched, true},
	} {
		base, patched := measuredSweep(t, tc.sizes, tc.base), measuredSweep(t, tc.sizes, tc.patched)
		if base.Fit.Order != complexity.ON {
			t.Errorf("%s: havlak7 fitted as %v, want O(N)", tc.name, base.Fit)
		}
		v := JudgeGrowth(base, patched, rule)
		if !v.Fails() || v.Growth.OrderChanged != tc.orderChanged {
			t.Errorf("%s: %v, want a failure, order changed %v", tc.name, v, tc.orderChanged)
		}
		t.Logf("%s: %v", tc.name, v)
		// And as the gate judges it, its threshold calibrated by the
		// base's fit: the floor of a count that is not exact.
		side := func(s result.Sweep) Side {
			return Side{Figures: []result.Figure{count("own_instructions", false, s.Points[0].Value)}, Sweeps: []result.Sweep{s}}
		}
		gate := growthVerdict(t, side(base), side(patched))
		if !gate.Fails() || gate.Rule.Threshold != GrowthFloor || gate.Calibration.Source != Floor {
			t.Errorf("%s, by the lab's policy: %v, want a failure at the growth floor", tc.name, gate)
		}
		// The unpatched sweep against itself raises no alarm.
		if same := growthVerdict(t, side(base), side(base)); same.Outcome != Unchanged {
			t.Errorf("%s unpatched: %v", tc.name, same)
		}
	}
}
