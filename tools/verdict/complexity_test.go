package verdict

import (
	"strings"
	"testing"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/result"
)

// havlak7cc's own sweep, as the runner records it: instructions at 1, 2,
// 4 and 8 trees of 3,800 loops (Cachegrind, --cache-sim=no).
var sweepSizes = []float64{3800, 7600, 15200, 30400}

// sweep makes a sweep of counts at sweepSizes, with its fit.
func sweep(t *testing.T, count func(n float64) float64) result.Sweep {
	t.Helper()
	s := result.Sweep{Figure: "instructions", Unit: "instructions", N: "loops found", Gated: true, Threshold: CountThreshold}
	for _, n := range sweepSizes {
		s.Points = append(s.Points, result.SweepPoint{N: n, Value: count(n)})
	}
	var err error
	if s.Fit, _, err = complexity.Best(s.Sizes(), s.Values()); err != nil {
		t.Fatal(err)
	}
	return s
}

func linear(n float64) float64 { return 660_000 + 3077*n }

func TestGrowthUnchanged(t *testing.T) {
	base := sweep(t, linear)
	// The same counts, and counts 0.01% apart as a Go program's are: no
	// change.
	for _, other := range []result.Sweep{base, sweep(t, func(n float64) float64 { return linear(n) * (1 + 1e-4*float64(int(n)%3-1)) })} {
		v := JudgeGrowth(base, other, CountRule(CountThreshold, true))
		if v.Outcome != Unchanged || v.Growth == nil || v.Growth.OrderChanged {
			t.Errorf("the same growth: %v", v)
		}
	}
}

// quadratic adds to linear a pass quadratic in N that costs the fraction
// quick of the count at the quick workload's size (3 trees of 50 loops,
// 11,400 loops).
func quadratic(quick float64) func(n float64) float64 {
	const q = 11400
	e := quick * linear(q) / (q * q)
	return func(n float64) float64 { return linear(n) + e*n*n }
}

func TestGrowthOrderChangeRegresses(t *testing.T) {
	base := sweep(t, linear)
	worse := sweep(t, quadratic(0.05))
	v := JudgeGrowth(base, worse, CountRule(CountThreshold, true))
	if v.Outcome != Regressed || !v.Fails() || !v.Growth.OrderChanged || v.Growth.New.Order.Rank() <= complexity.ON.Rank() {
		t.Fatalf("linear to quadratic: %v", v)
	}
	if got := v.ChangeText(2); !strings.HasPrefix(got, "O(N) → ") {
		t.Errorf("ChangeText %q: want the orders", got)
	}
	if v.Figure != "instructions_growth" || !strings.Contains(v.String(), "the order changed") {
		t.Errorf("verdict %q: want the figure instructions_growth and the order's change", v.String())
	}
	// And back: an improvement.
	if back := JudgeGrowth(worse, base, CountRule(CountThreshold, true)); back.Outcome != Improved {
		t.Errorf("quadratic to linear: %v, want improved", back)
	}
}

func TestGrowthCatchesAQuadraticPassUnderTheThreshold(t *testing.T) {
	// A quadratic pass that adds 0.5% at the quick size, which the counted
	// figure (threshold 1%) passes: the sweep's fit still sees it, as a
	// linear coefficient 1.6% larger (the constant term absorbs the rest;
	// from about 5% on, the order itself changes).
	base := sweep(t, linear)
	v := JudgeGrowth(base, sweep(t, quadratic(0.005)), CountRule(CountThreshold, true))
	if v.Outcome != Regressed || float64(v.Change) < CountThreshold {
		t.Errorf("a 0.5%% quadratic pass: %v, want regressed", v)
	}
}

func TestGrowthCoefficientChange(t *testing.T) {
	base := sweep(t, linear)
	for _, tc := range []struct {
		slope float64
		want  Outcome
	}{
		{3077 * 1.03, Regressed},
		{3077 * 1.005, Unchanged},
		{3077 * 0.97, Improved},
	} {
		other := sweep(t, func(n float64) float64 { return 660_000 + tc.slope*n })
		v := JudgeGrowth(base, other, CountRule(CountThreshold, true))
		if v.Outcome != tc.want || v.Growth.OrderChanged {
			t.Errorf("slope 3077 → %g: %v, want %s at the same order", tc.slope, v, tc.want)
		}
	}
	// Not gated: shown, never failing.
	worse := sweep(t, func(n float64) float64 { return 660_000 + 4000*n })
	if v := JudgeGrowth(base, worse, CountRule(CountThreshold, false)); v.Outcome != Regressed || v.Fails() {
		t.Errorf("an ungated worse growth: %v, want regressed and not failing", v)
	}
}

func TestCompareSweeps(t *testing.T) {
	sweeps := func(s ...result.Sweep) Side { return Side{Sweeps: s} }
	base := sweep(t, linear)
	other := base
	other.Points = other.Points[1:]
	other.Points = append(other.Points, result.SweepPoint{N: 60800, Value: linear(60800)})
	v := Lab.Compare(sweeps(base), sweeps(other))
	if len(v) != 1 || v[0].Outcome != NotComparable || !strings.Contains(v[0].Reason, "other sizes") {
		t.Errorf("sweeps at other sizes: %v, want not comparable", v)
	}
	v = Lab.Compare(sweeps(base), sweeps())
	if len(v) != 1 || v[0].Outcome != Missing || !v[0].Fails() {
		t.Errorf("a gated sweep gone: %v, want missing", v)
	}
	if v := Lab.Compare(sweeps(), sweeps(base)); len(v) != 0 {
		t.Errorf("a sweep the baseline lacks: %v, want nothing judged", v)
	}
}
