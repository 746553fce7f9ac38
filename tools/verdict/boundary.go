package verdict

import (
	"errors"
	"fmt"

	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/result"
)

// A Boundary tells the commits of a bisection apart: a commit is bad when
// its median is on BAD's side of a threshold midway between GOOD's median
// and BAD's.
//
// That is only meaningful when GOOD and BAD differ as the gate would judge
// it — by more than the rule's threshold and noise — and when their runs
// do not overlap, so that every run of either side lies on its side of the
// threshold, at least half the gap from it.
type Boundary struct {
	// Verdict is BAD judged against GOOD.
	Verdict Verdict
	// Threshold is the midway value; HigherIsBad says which side is BAD's.
	Threshold   float64
	HigherIsBad bool
	// Gap is the distance between the nearest runs of GOOD and BAD.
	Gap float64
}

// ErrNothingToBisect is returned by NewBoundary when GOOD and BAD do not
// differ enough to bisect.
var ErrNothingToBisect = errors.New("nothing to bisect")

// NewBoundary judges BAD's runs against GOOD's by the policy's rule for
// a gated count, exact or not, its threshold calibrated from GOOD's runs
// as a comparison's is from its base's (Calibrate), and, when they differ
// beyond it and do not overlap, places the boundary between them.
// Otherwise it returns an error wrapping ErrNothingToBisect, with the
// figures.
func (p Policy) NewBoundary(figure, unit string, exact bool, good, bad []float64) (Boundary, error) {
	rule, calibration := p.Calibrate(p.Rule(result.ClassCount, 0, true, result.LowerIsBetter), result.ClassCount, exact, Noise{Reruns: good})
	// Either direction may be bisected: the first commit that made a
	// figure better is found as well as the one that made it worse.
	rule.HigherIsBetter = false
	v := Judge(figure, unit, good, bad, rule)
	v.Calibration = &calibration
	b := Boundary{Verdict: v, Threshold: (v.Old.Median + v.New.Median) / 2, HigherIsBad: v.New.Median > v.Old.Median}
	if v.Outcome != Regressed && v.Outcome != Improved {
		why := v.Reason
		if why == "" {
			why = fmt.Sprintf("a change of %s is within the gate's rule (%s)", v.ChangeText(4), v.ruleText())
		}
		return b, fmt.Errorf("GOOD's %s (%s) and BAD's (%s): %s: %w",
			figure, SampleText(v.Old), SampleText(v.New), why, ErrNothingToBisect)
	}
	b.Gap = v.New.Min - v.Old.Max
	if !b.HigherIsBad {
		b.Gap = v.Old.Min - v.New.Max
	}
	if b.Gap <= 0 {
		return b, fmt.Errorf("GOOD's %s (%s) and BAD's (%s) overlap: no threshold between them is clear of their noise (more repetitions, or another figure): %w",
			figure, SampleText(v.Old), SampleText(v.New), ErrNothingToBisect)
	}
	return b, nil
}

// Bad tells whether a commit's runs are bad, and whether all of them fall
// on the same side of the threshold.
func (b Boundary) Bad(values []float64) (bad, clear bool) {
	s := result.NewSample(values)
	bad = s.Median > b.Threshold == b.HigherIsBad
	clear = s.Min > b.Threshold || s.Max < b.Threshold
	return bad, clear
}

// Rule says how commits are judged, in words.
func (b Boundary) Rule() string {
	side := "above"
	if !b.HigherIsBad {
		side = "below"
	}
	v := b.Verdict
	return fmt.Sprintf("BAD is %s against GOOD (%s); a commit is bad when the median of its %s is %s %s, midway between GOOD's median %s and BAD's %s; "+
		"GOOD's runs (spread %.4f%%) and BAD's (spread %.4f%%) are %s apart, the threshold at least %s from any of them",
		v.ChangeText(3), v.ruleText(), v.Figure, side, numfmt.Number(b.Threshold), numfmt.Number(v.Old.Median), numfmt.Number(v.New.Median),
		100*v.Old.Spread(), 100*v.New.Spread(), numfmt.Number(b.Gap), numfmt.Number(b.Gap/2))
}
