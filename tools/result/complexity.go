package result

import (
	"fmt"
	"math"

	"havlak-lab/internal/complexity"
)

// A Sweep is how a counted figure grows with the size of the workload
// (result.json's "sweeps"): the figure counted once at each of several
// sizes N, and the order fitted to the counts (package
// internal/complexity). The counted runs measure the quick workload only,
// where work that grows faster than the rest can stay under the gate's
// threshold; the sweep's fit shows it.
//
//	figure     the counted figure swept ("own_instructions", a Metric's name)
//	unit       its unit ("instructions")
//	n          what N counts, for people ("loops found")
//	source     how it was measured (Cachegrind, the program and the flags
//	           common to every size)
//	points     {n, args, value} at each size, in increasing n: the
//	           program's arguments at that size and the figure's count
//	fit        the best fit: order ("O(1)", "O(N)", "O(N log N)", "O(N^2)",
//	           "O(N^3)"), coefficient and constant (count ≈ constant +
//	           coefficient·f(N)) and rms (the residuals' root mean square
//	           over the mean count)
//	gated      whether the gate judges its growth, and threshold, the
//	           smallest relative change of the coefficient it reports
//
// Sweeps were added to version 2 as an optional field: a result without
// one has no sweep.
type Sweep struct {
	Figure    string         `json:"figure"`
	Unit      string         `json:"unit"`
	N         string         `json:"n"`
	Source    string         `json:"source"`
	Points    []SweepPoint   `json:"points"`
	Fit       complexity.Fit `json:"fit"`
	Gated     bool           `json:"gated"`
	Threshold float64        `json:"threshold,omitempty"`
}

// A SweepPoint is the swept figure at one size.
type SweepPoint struct {
	N     float64  `json:"n"`
	Args  []string `json:"args,omitempty"`
	Value float64  `json:"value"`
}

// Sizes and Values are the points' sizes and counts.
func (s *Sweep) Sizes() []float64  { return s.column(func(p SweepPoint) float64 { return p.N }) }
func (s *Sweep) Values() []float64 { return s.column(func(p SweepPoint) float64 { return p.Value }) }

func (s *Sweep) column(f func(SweepPoint) float64) []float64 {
	var c []float64
	for _, p := range s.Points {
		c = append(c, f(p))
	}
	return c
}

// Sweep returns the sweep of figure, or nil.
func (r *Result) Sweep(figure string) *Sweep {
	for i := range r.Sweeps {
		if r.Sweeps[i].Figure == figure {
			return &r.Sweeps[i]
		}
	}
	return nil
}

// problems lists what is wrong with the sweep: besides its fields, its
// fit must be the best fit of its points, so that a reader may trust the
// order it records (a hand-edited order would change what the gate
// compares).
func (s *Sweep) problems() []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if s.Figure == "" || s.Unit == "" || s.N == "" {
		bad("figure %q, unit %q, n %q: want all three", s.Figure, s.Unit, s.N)
	}
	if s.Gated && s.Threshold <= 0 {
		bad("gated without a positive threshold")
	}
	best, _, err := complexity.Best(s.Sizes(), s.Values())
	switch {
	case err != nil:
		bad("points: %v", err)
	case best.Order != s.Fit.Order || !near(best.Coefficient, s.Fit.Coefficient) || !near(best.Constant, s.Fit.Constant) || !near(best.RMS, s.Fit.RMS):
		bad("fit %v is not the best fit of its points, %v", s.Fit, best)
	}
	return p
}

// near tells whether a recorded figure is the computed one, but for the
// last digits JSON's decimal form may change.
func near(a, b float64) bool {
	d := math.Abs(a - b)
	return d <= 1e-9*max(math.Abs(a), math.Abs(b), 1e-300) || d < 1e-12
}
