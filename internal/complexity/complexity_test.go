package complexity

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// sizes are those of a sweep like the Havlak stages': a doubling ladder.
var sizes = []float64{3800, 7600, 15200, 30400}

func counts(f func(n float64) float64) []float64 {
	var c []float64
	for _, n := range sizes {
		c = append(c, f(n))
	}
	return c
}

func TestBestRecoversEachOrder(t *testing.T) {
	const constant = 2e6
	for _, tc := range []struct {
		order Order
		coef  float64
	}{
		{O1, 0},
		{ON, 1234.5},
		{ONLogN, 97.25},
		{ON2, 0.75},
		{ON3, 3e-5},
	} {
		c := counts(func(n float64) float64 { return constant + tc.coef*tc.order.Of(n) })
		best, all, err := Best(sizes, c)
		if err != nil {
			t.Fatal(err)
		}
		if best.Order != tc.order {
			t.Errorf("%s data: fitted %s (%v)", tc.order, best.Order, all)
			continue
		}
		if math.Abs(best.Coefficient-tc.coef) > 1e-6*math.Max(tc.coef, 1) || math.Abs(best.Constant-constant) > 1e-3*constant {
			t.Errorf("%s data: fit %v, want coefficient %g and constant %g", tc.order, best, tc.coef, constant)
		}
		if best.RMS > 1e-9 {
			t.Errorf("%s data: RMS %g of an exact model, want ~0", tc.order, best.RMS)
		}
		for _, f := range all {
			// Constant counts are fitted exactly by every order with a
			// coefficient of 0: the slowest growth wins the tie.
			if f.Order != tc.order && f.RMS <= best.RMS && tc.order != O1 {
				t.Errorf("%s data: %s fits as well (%v)", tc.order, f.Order, f)
			}
		}
	}
}

func TestNoisyLinearStaysLinear(t *testing.T) {
	// Go's own instructions move by up to 0.01% from run to run
	// (docs/noise.md): that noise must not pass for another order.
	noise := []float64{1, -1, -1, 1}
	c := counts(func(n float64) float64 { return 5e6 + 900*n })
	for i := range c {
		c[i] *= 1 + 1e-4*noise[i]
	}
	best, all, err := Best(sizes, c)
	if err != nil {
		t.Fatal(err)
	}
	if best.Order != ON || math.Abs(best.Coefficient-900)/900 > 0.005 {
		t.Errorf("noisy linear counts: %v, want O(N) with a coefficient near 900 (%v)", best, all)
	}
}

func TestRMSIsRelativeToTheMeanCount(t *testing.T) {
	// O(1) fitted to 10, 20, 30, 40: the mean 25, residuals ±15 and ±5,
	// RMS sqrt((225+25+25+225)/4) = 11.18 over 25.
	f, err := FitOrder(O1, []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40})
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(125) / 25; math.Abs(f.RMS-want) > 1e-12 || f.Constant != 25 || f.Coefficient != 0 {
		t.Errorf("O(1) fit %v, want constant 25, RMS %g", f, want)
	}
}

func TestNoNegativeTerms(t *testing.T) {
	// Quadratic counts with no fixed work: a linear model with a free
	// constant would take a negative one; it goes through the origin.
	n := []float64{1, 2, 3, 4}
	c := []float64{1, 4, 9, 16}
	f, err := FitOrder(ON, n, c)
	if err != nil {
		t.Fatal(err)
	}
	if f.Constant != 0 || math.Abs(f.Coefficient-100.0/30) > 1e-12 {
		t.Errorf("O(N) fit of N²: %v, want 0 + (100/30)·N", f)
	}
	// Counts that fall with N: the constant alone.
	f, err = FitOrder(ON2, n, []float64{16, 9, 4, 1})
	if err != nil {
		t.Fatal(err)
	}
	if f.Coefficient != 0 || f.Constant != 7.5 {
		t.Errorf("O(N²) fit of falling counts: %v, want 7.5 + 0·N²", f)
	}
}

func TestCheckRefusesBadSweeps(t *testing.T) {
	for _, tc := range []struct {
		n, c []float64
		want string
	}{
		{[]float64{1, 2}, []float64{1, 2}, "at least 3"},
		{[]float64{1, 2, 3}, []float64{1, 2}, "3 sizes and 2 counts"},
		{[]float64{1, 3, 2}, []float64{1, 2, 3}, "increasing"},
		{[]float64{0, 1, 2}, []float64{1, 2, 3}, "1 or more"},
		{[]float64{1, 2, 3}, []float64{1, math.NaN(), 3}, "finite count"},
		{[]float64{1, 2, 3}, []float64{1, -2, 3}, "finite count"},
		{[]float64{1, 2, 3}, []float64{0, 0, 0}, "every count is 0"},
	} {
		_, _, err := Best(tc.n, tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Best(%v, %v): %v, want an error saying %q", tc.n, tc.c, err, tc.want)
		}
	}
	if _, err := FitOrder("O(2^N)", []float64{1, 2, 3}, []float64{1, 2, 3}); err == nil {
		t.Error("FitOrder of an unknown order: no error")
	}
}

func TestRelativeErrorByHand(t *testing.T) {
	// 10, 21, 29, 40 at 1 to 4: 0.5 + 9.8·N, residuals -0.3, 0.9, -0.9,
	// 0.3; their variance over 2 degrees of freedom 0.9, over Sxx 5 the
	// coefficient's 0.18: an error of sqrt(0.18)/9.8.
	n, c := []float64{1, 2, 3, 4}, []float64{10, 21, 29, 40}
	f, err := FitOrder(ON, n, c)
	if err != nil {
		t.Fatal(err)
	}
	rel, dof, err := RelativeError(f, n, c)
	if want := math.Sqrt(0.18) / 9.8; err != nil || dof != 2 || math.Abs(rel-want) > 1e-12 {
		t.Errorf("RelativeError(%v) = %g, %d, %v; want %g with 2 degrees of freedom", f, rel, dof, err, want)
	}
	// O(1): the constant's error, the residuals' deviation over sqrt(k):
	// 10, 20, 30, 40 about 25, variance 500/3, over 4.
	f, _ = FitOrder(O1, n, []float64{10, 20, 30, 40})
	if rel, dof, err := RelativeError(f, n, []float64{10, 20, 30, 40}); err != nil || dof != 3 || math.Abs(rel-math.Sqrt(500.0/3/4)/25) > 1e-12 {
		t.Errorf("O(1): %g, %d, %v", rel, dof, err)
	}
	// Exact counts: no error. A fit whose growing term was clamped to 0
	// has nothing to compare by.
	exact := counts(func(n float64) float64 { return 2e6 + 1234.5*n })
	f, _ = FitOrder(ON, sizes, exact)
	if rel, _, err := RelativeError(f, sizes, exact); err != nil || rel > 1e-9 {
		t.Errorf("exact linear counts: %g, %v, want ~0", rel, err)
	}
	f, _ = FitOrder(ON2, n, []float64{16, 9, 4, 1})
	if _, _, err := RelativeError(f, n, []float64{16, 9, 4, 1}); err == nil {
		t.Errorf("a clamped coefficient %v: no error", f)
	}
}

func TestRelativeErrorIsTheCoefficientsSpread(t *testing.T) {
	// Counts with Gaussian noise of 2,000 instructions whatever the size
	// (a Go program's own instructions moved so in havlak7's reruns:
	// docs/noise.md), refitted many times: the coefficients' relative
	// deviation is what RelativeError estimates from each fit's residuals
	// alone (as a root mean square: one fit's estimate, of 2 degrees of
	// freedom, scatters). Noise proportional to the count would weigh the
	// largest size more than least squares assumes, and the estimate would
	// fall short of the spread.
	r := rand.New(rand.NewPCG(35, 1))
	const trials = 4000
	var sum, sum2, estimates float64
	for range trials {
		c := counts(func(n float64) float64 { return 660_000 + 3077*n + 2000*r.NormFloat64() })
		f, err := FitOrder(ON, sizes, c)
		if err != nil {
			t.Fatal(err)
		}
		rel, _, err := RelativeError(f, sizes, c)
		if err != nil {
			t.Fatal(err)
		}
		sum += f.Coefficient
		sum2 += f.Coefficient * f.Coefficient
		estimates += rel * rel
	}
	mean := sum / trials
	measured := math.Sqrt(sum2/trials-mean*mean) / mean
	estimated := math.Sqrt(estimates / trials)
	if math.Abs(estimated/measured-1) > 0.1 {
		t.Errorf("the coefficients spread by %.5f%%, RelativeError says %.5f%%", 100*measured, 100*estimated)
	}
	t.Logf("the coefficients spread by %.5f%%, RelativeError says %.5f%%", 100*measured, 100*estimated)
}
