// Package complexity fits how a count grows with the size of a workload:
// the order, among O(1), O(N), O(N log N), O(N²) and O(N³), that best
// explains counts measured at several sizes N, as google/benchmark's
// Complexity() reports it for timings, with its coefficient and its RMS
// error. The runner fits the sweeps it records (tools/perf/runner), the
// gate compares fits (tools/verdict), the report shows them.
//
// Each order's model is count = constant + coefficient·f(N), fitted by
// least squares. google/benchmark fits coefficient·f(N) alone, because it
// times the benchmark's loop body only; a whole program's count also holds
// work that does not grow with N (the process's start, the runtime's
// initialisation, reading its flags), and without a constant term that
// fixed work would bend every fit towards the lower orders. Both terms are
// kept non-negative: no program does negative work, and a negative
// constant would let a linear model pass for a quadratic count.
package complexity

import (
	"errors"
	"fmt"
	"math"
)

// An Order is how a count grows with N.
type Order string

// The orders a fit chooses among, from the slowest growth.
const (
	O1     Order = "O(1)"
	ON     Order = "O(N)"
	ONLogN Order = "O(N log N)"
	ON2    Order = "O(N^2)"
	ON3    Order = "O(N^3)"
)

// Orders are the orders a fit chooses among, from the slowest growth.
var Orders = []Order{O1, ON, ONLogN, ON2, ON3}

// Rank is the order's place in Orders, -1 for none of them.
func (o Order) Rank() int {
	for i, x := range Orders {
		if x == o {
			return i
		}
	}
	return -1
}

// Valid tells whether o is one of Orders.
func (o Order) Valid() bool { return o.Rank() >= 0 }

// Of is the order's growth function f at n.
func (o Order) Of(n float64) float64 {
	switch o {
	case ON:
		return n
	case ONLogN:
		return n * math.Log2(n)
	case ON2:
		return n * n
	case ON3:
		return n * n * n
	}
	return 0 // O(1): no growth, the constant alone
}

// A Fit is one order's model of the counts: count ≈ Constant +
// Coefficient·f(N).
type Fit struct {
	Order       Order   `json:"order"`
	Coefficient float64 `json:"coefficient"`
	Constant    float64 `json:"constant"`
	// RMS is the root mean square of the residuals over the mean count,
	// as google/benchmark normalises it: 0.01 is 1%.
	RMS float64 `json:"rms"`
}

// At is the fit's count at n.
func (f Fit) At(n float64) float64 { return f.Constant + f.Coefficient*f.Order.Of(n) }

// String is "O(N), 1,234.5·N + 6,789, RMS 0.12%".
func (f Fit) String() string {
	return fmt.Sprintf("%s, %.4g·f(N) + %.4g, RMS %.3f%%", f.Order, f.Coefficient, f.Constant, 100*f.RMS)
}

// MinPoints is the fewest sizes a fit takes: two terms need a third point
// to tell one order from another.
const MinPoints = 3

// Check tells what is wrong with counts measured at sizes n, if anything:
// at least MinPoints, sizes of 1 or more in increasing order, counts finite
// and not negative, and not all zero.
func Check(n, counts []float64) error {
	switch {
	case len(n) != len(counts):
		return fmt.Errorf("%d sizes and %d counts", len(n), len(counts))
	case len(n) < MinPoints:
		return fmt.Errorf("%d sizes: want at least %d", len(n), MinPoints)
	}
	sum := 0.0
	for i := range n {
		switch {
		case !(n[i] >= 1) || math.IsInf(n[i], 0):
			return fmt.Errorf("size %v: want a finite size of 1 or more", n[i])
		case i > 0 && !(n[i] > n[i-1]):
			return fmt.Errorf("sizes %v, %v: want increasing sizes", n[i-1], n[i])
		case !(counts[i] >= 0) || math.IsInf(counts[i], 0):
			return fmt.Errorf("count %v at size %v: want a finite count, 0 or more", counts[i], n[i])
		}
		sum += counts[i]
	}
	if sum == 0 {
		return errors.New("every count is 0")
	}
	return nil
}

// FitOrder fits order o to the counts measured at sizes n (Check must
// accept them).
func FitOrder(o Order, n, counts []float64) (Fit, error) {
	if !o.Valid() {
		return Fit{}, fmt.Errorf("order %q: want one of %v", o, Orders)
	}
	if err := Check(n, counts); err != nil {
		return Fit{}, err
	}
	k := float64(len(n))
	var mx, my float64
	for i := range n {
		mx += o.Of(n[i]) / k
		my += counts[i] / k
	}
	var sxy, sxx, sx2 float64
	for i := range n {
		x := o.Of(n[i])
		sxy += (x - mx) * (counts[i] - my)
		sxx += (x - mx) * (x - mx)
		sx2 += x * x
	}
	f := Fit{Order: o, Constant: my}
	if sxx > 0 {
		f.Coefficient = sxy / sxx
		f.Constant = my - f.Coefficient*mx
	}
	switch {
	case f.Coefficient < 0:
		// Counts that fall with N: the best non-negative model is the
		// constant alone.
		f.Coefficient, f.Constant = 0, my
	case f.Constant < 0:
		// The best model through the origin: coefficient·f(N) alone.
		f.Constant = 0
		f.Coefficient = 0
		if sx2 > 0 {
			var s float64
			for i := range n {
				s += o.Of(n[i]) * counts[i]
			}
			f.Coefficient = s / sx2
		}
	}
	var squares float64
	for i := range n {
		r := counts[i] - f.At(n[i])
		squares += r * r
	}
	f.RMS = math.Sqrt(squares/k) / my
	return f, nil
}

// Best fits every order to the counts measured at sizes n and returns the
// one of the smallest RMS error (the slower growth of two that fit equally
// well), with the fits of all the orders, in the order of Orders.
func Best(n, counts []float64) (best Fit, all []Fit, err error) {
	for i, o := range Orders {
		f, err := FitOrder(o, n, counts)
		if err != nil {
			return Fit{}, nil, err
		}
		all = append(all, f)
		if i == 0 || f.RMS < best.RMS*(1-1e-9) {
			best = f
		}
	}
	return best, all, nil
}

// RelativeError is the standard error of the term of f that grows (its
// coefficient; for O(1), its constant) as a fraction of that term, from
// f's residuals on the counts it was fitted to at sizes n: how far
// another measurement of the same program could move it, one standard
// deviation of it. The residuals hold the counts' noise and whatever the
// order does not explain (which does not move between measurements), so
// it errs high. dof is how many residuals were left to estimate it by:
// the points less the terms fitted (one where a clamp left one term).
// There is no error to give when no residual is left, or when the term is
// 0 (a clamped fit: nothing to compare it by).
func RelativeError(f Fit, n, counts []float64) (relative float64, dof int, err error) {
	if err := Check(n, counts); err != nil {
		return 0, 0, err
	}
	var squares, sx2, mx float64
	k := float64(len(n))
	for i := range n {
		r := counts[i] - f.At(n[i])
		squares += r * r
		x := f.Order.Of(n[i])
		sx2 += x * x
		mx += x / k
	}
	var term, spread float64 // the term, and its estimate's spread per unit of the residuals' deviation
	switch {
	case f.Order == O1:
		term, dof, spread = f.Constant, len(n)-1, 1/math.Sqrt(k)
	case f.Constant == 0:
		// Through the origin: the coefficient alone was fitted.
		term, dof, spread = f.Coefficient, len(n)-1, 1/math.Sqrt(sx2)
	default:
		term, dof, spread = f.Coefficient, len(n)-2, 1/math.Sqrt(sx2-k*mx*mx)
	}
	switch {
	case dof < 1:
		return 0, dof, fmt.Errorf("%d sizes: no residual left to estimate a %s fit's error by", len(n), f.Order)
	case !(term > 0) || math.IsInf(spread, 0) || math.IsNaN(spread):
		return 0, dof, fmt.Errorf("%s: no term to estimate the error of", f)
	}
	return math.Sqrt(squares/float64(dof)) * spread / term, dof, nil
}
