package result

import (
	"strings"
	"testing"

	"havlak-lab/internal/complexity"
)

func sweepOf(counts ...float64) Sweep {
	s := Sweep{Figure: "instructions", Unit: "instructions", N: "loops found", Source: "cachegrind", Gated: true, Threshold: 0.01}
	for i, c := range counts {
		s.Points = append(s.Points, SweepPoint{N: 3800 * float64(int(1)<<i), Value: c})
	}
	s.Fit, _, _ = complexity.Best(s.Sizes(), s.Values())
	return s
}

func TestSweepValidation(t *testing.T) {
	good := sweepOf(12326851, 24034844, 47474492, 94164510)
	if p := good.problems(); len(p) != 0 {
		t.Fatalf("a good sweep: %v", p)
	}
	if good.Fit.Order != complexity.ON {
		t.Errorf("havlak7's counts: fitted %v, want O(N)", good.Fit)
	}
	forged := good
	forged.Fit.Order = complexity.ON2
	short := sweepOf(1, 2)
	ungated := good
	ungated.Threshold = 0
	for name, tc := range map[string]struct {
		s    Sweep
		want string
	}{
		"a forged order":      {forged, "not the best fit"},
		"two points":          {short, "at least 3"},
		"gated, no threshold": {ungated, "positive threshold"},
		"no figure":           {Sweep{Points: good.Points, Fit: good.Fit}, "want all three"},
	} {
		r := Result{Sweeps: []Sweep{tc.s}}
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
