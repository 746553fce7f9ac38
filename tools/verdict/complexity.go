package verdict

import (
	"fmt"
	"slices"

	"havlak-lab/internal/complexity"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/result"
)

// GrowthSuffix makes the name of a sweep's verdict from its figure's:
// "own_instructions_growth" (a name Perf-Accepted trailers can give).
const GrowthSuffix = "_growth"

// OrderMargin is how much worse the baseline's order must fit the new
// counts than the new best order does (and than it fitted the baseline's)
// for the order to have changed. Between runs of the same Go binary the
// counts move by up to 0.01% and two orders can fit within a hair of each
// other; the old order then still explains the new counts, and the
// coefficients are compared under it.
const OrderMargin = 2

// Growth is the evidence of a sweep's verdict: the fits compared.
type Growth struct {
	// Old and New are the best fits of each side's counts.
	Old complexity.Fit `json:"old"`
	New complexity.Fit `json:"new"`
	// AsOld is the new counts fitted with Old's order: the coefficient
	// compared with Old's when the order did not change.
	AsOld complexity.Fit `json:"as_old"`
	// OrderChanged: the new counts grow at another order.
	OrderChanged bool `json:"order_changed,omitempty"`
	// Sizes are the sizes N both sides were counted at, and N what N
	// counts.
	Sizes []float64 `json:"sizes"`
	N     string    `json:"n"`
}

// JudgeGrowth judges how a figure grows with the workload: a change of
// the fitted order (complexity.Best) is a regression when the order is
// higher, an improvement when it is lower; with the same order, the new
// counts' coefficient under it against the old one's, by the rule's
// threshold (Policy.Compare calibrates it: CalibrateGrowth). Both sweeps
// must have the same sizes: they are fitted again here, the recorded fits
// only shown.
func JudgeGrowth(old, new result.Sweep, rule Rule) Verdict {
	v := Verdict{Figure: new.Figure + GrowthSuffix, Unit: new.Unit, Rule: rule, Outcome: Unchanged}
	oldN, newN := old.Sizes(), new.Sizes()
	if !slices.Equal(oldN, newN) {
		v.Outcome, v.Reason = NotComparable, fmt.Sprintf("swept at other sizes: %v, the baseline at %v", newN, oldN)
		return v
	}
	g := &Growth{Sizes: newN, N: new.N}
	var err error
	if g.Old, _, err = complexity.Best(oldN, old.Values()); err != nil {
		v.Outcome, v.Reason = NotComparable, "the baseline's sweep: "+err.Error()
		return v
	}
	if g.New, _, err = complexity.Best(newN, new.Values()); err != nil {
		v.Outcome, v.Reason = NotComparable, "the sweep: "+err.Error()
		return v
	}
	g.AsOld, _ = complexity.FitOrder(g.Old.Order, newN, new.Values())
	v.Growth = g
	v.Old = result.Sample{Median: g.Old.Coefficient, Min: g.Old.Coefficient, Max: g.Old.Coefficient, Runs: len(oldN)}
	v.New = result.Sample{Median: g.New.Coefficient, Min: g.New.Coefficient, Max: g.New.Coefficient, Runs: len(newN)}
	g.OrderChanged = g.New.Order != g.Old.Order && g.AsOld.RMS > OrderMargin*max(g.New.RMS, g.Old.RMS)
	if g.OrderChanged {
		v.Outcome = Improved
		if g.New.Order.Rank() > g.Old.Order.Rank() {
			v.Outcome = Regressed
		}
		v.Change = Ratio(relativeChange(old.Points[len(oldN)-1].Value, new.Points[len(newN)-1].Value))
		return v
	}
	// The same order: its coefficients, or for O(1) its constants (the
	// quick counted figure judges those already; judged here too).
	before, after := growingTerm(g.Old), growingTerm(g.AsOld)
	v.Old.Median, v.Old.Min, v.Old.Max = before, before, before
	v.New.Median, v.New.Min, v.New.Max = after, after, after
	v.Change = Ratio(relativeChange(before, after))
	switch {
	case float64(v.Change) > rule.Threshold:
		v.Outcome = Regressed
	case -float64(v.Change) > rule.Threshold:
		v.Outcome = Improved
	}
	return v
}

// changeText is ChangeText of a sweep's verdict: the orders when they
// changed ("O(N) → O(N^2)"), else the coefficient's change under the
// baseline's order.
func (g *Growth) changeText(v Verdict, decimals int) string {
	if g.OrderChanged {
		return fmt.Sprintf("%s → %s", g.Old.Order, g.New.Order)
	}
	return fmt.Sprintf("%+.*f%% of %s", decimals, 100*v.Change, g.Old.Order)
}

// evidence is Evidence of a sweep's verdict: the two fits, the sizes.
func (g *Growth) evidence(v Verdict) string {
	text := fmt.Sprintf("%s → %s over N = %s … %s %s; ", fitText(g.Old), fitText(g.New),
		numfmt.Number(g.Sizes[0]), numfmt.Number(g.Sizes[len(g.Sizes)-1]), g.N)
	if g.OrderChanged {
		return text + fmt.Sprintf("%s fits the new counts with RMS %.3f%%: the order changed", g.Old.Order, 100*g.AsOld.RMS)
	}
	return text + fmt.Sprintf("as %s the new coefficient is %s; %s", g.Old.Order, numfmt.Number(v.New.Median), v.ThresholdText())
}

// fitText is a fit in words: "O(N): 3,077·N + 660,000, RMS 0.069%".
func fitText(f complexity.Fit) string {
	growth := map[complexity.Order]string{complexity.ON: "N", complexity.ONLogN: "N log N", complexity.ON2: "N²", complexity.ON3: "N³"}[f.Order]
	if growth == "" {
		return fmt.Sprintf("%s: %s, RMS %.3f%%", f.Order, numfmt.Number(f.Constant), 100*f.RMS)
	}
	return fmt.Sprintf("%s: %s·%s + %s, RMS %.3f%%", f.Order, numfmt.Number(f.Coefficient), growth, numfmt.Number(f.Constant), 100*f.RMS)
}
