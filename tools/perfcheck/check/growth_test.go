package check

import (
	"strings"
	"testing"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// swept is counted's result with a sweep of its instructions at 1, 2, 4
// and 8 trees of 3,800 loops: a linear count, plus quadratic·N².
func swept(t *testing.T, quadratic float64) *result.Result {
	t.Helper()
	r := counted("havlak7cc", 1e8, 1e8)
	s := result.Sweep{Figure: "instructions", Unit: "instructions", N: "loops found", Gated: true, Threshold: verdict.CountThreshold}
	for _, n := range []float64{3800, 7600, 15200, 30400} {
		s.Points = append(s.Points, result.SweepPoint{N: n, Value: 1.7e6 + 2343*n + quadratic*n*n})
	}
	var err error
	if s.Fit, _, err = complexity.Best(s.Sizes(), s.Values()); err != nil {
		t.Fatal(err)
	}
	r.Sweeps = []result.Sweep{s}
	return r
}

// perfcheck judges how the count grows, as the report does: a change of
// the same quick count whose growth turns superlinear fails, naming the
// orders; the same growth passes; a sweep the change lacks is missing.
func TestCompareGrowth(t *testing.T) {
	base := swept(t, 0)
	if b := compareOne(t, base, swept(t, 0), nil); b.Fails() {
		t.Errorf("the same growth: %+v", b)
	}
	b := compareOne(t, base, swept(t, 0.02), nil)
	if !b.Fails() || b.Outcome != verdict.Regressed {
		t.Fatalf("a quadratic term: %+v", b)
	}
	v := b.Figures[len(b.Figures)-1]
	if v.Figure != "instructions_growth" || !strings.HasPrefix(v.ChangeText(2), "O(N) → ") {
		t.Errorf("a quadratic term: %v, want instructions_growth with the orders", v)
	}
	gone := swept(t, 0)
	gone.Sweeps = nil
	if b := compareOne(t, base, gone, nil); !b.Fails() || b.Outcome != verdict.Missing {
		t.Errorf("no sweep at the change: %+v", b)
	}
}
