package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"havlak-lab/tools/result"
)

// A Policy is the lab's thresholds: the one place where the rule of a
// figure is chosen from what the figure is (its class, tools/result) and
// what its benchmark declares. Every command that compares asks a Policy
// for its rules; none builds a Rule of its own.
type Policy struct {
	// Count, Timing and Memory are the thresholds of a figure of each
	// class that declares none.
	Count, Timing, Memory float64
	// AllowEnvironmentChange compares figures whose environments differ
	// in what can change them (result.DifferencesFor): a person's choice
	// (the report's --allow-env-change), never the gate's.
	AllowEnvironmentChange bool
	// GatedTimings are the timings and memory figures (tools/result's
	// Figures) that the gate judges: what the program is measured for.
	// Their producers (xtime, the load generator) measure every program
	// alike and declare nothing; the others are shown.
	GatedTimings []string
	// Floors, NoiseFactor and CalibrationRuns calibrate a figure's
	// threshold from its noise (Calibrate); a NoiseFactor of 0 leaves
	// every threshold at its ceiling.
	Floors          Floors
	NoiseFactor     float64
	CalibrationRuns int
	// HistoryResults is how many of the history's newest results of a
	// base's identity a caller with a history reads for its noise
	// (Side.History).
	HistoryResults int
}

// Lab is the policy the lab's gates judge by (docs/regressions.md,
// docs/noise.md): a command changes a threshold of it only where its user
// said so (the report's -threshold, say). CPU time is shown beside real
// time, not gated: when real time worsens and CPU time does not, the
// runner was not alone.
var Lab = Policy{Count: CountThreshold, Timing: TimingThreshold, Memory: MemoryThreshold,
	GatedTimings: []string{"real_seconds", "max_rss_kib", "throughput", "latency_p99"},
	Floors:       LabFloors, NoiseFactor: NoiseFactor, CalibrationRuns: CalibrationRuns, HistoryResults: HistoryResults}

// gates tells whether the policy gates figure f whatever it declares.
func (p Policy) gates(f result.Figure) bool {
	return (f.Class == result.ClassTiming || f.Class == result.ClassMemory) && slices.Contains(p.GatedTimings, f.Name)
}

// Rule is the rule of a figure of class that its base declares gated with
// threshold (0: the policy's for the class).
func (p Policy) Rule(class result.Class, threshold float64, gated bool, better string) Rule {
	var r Rule
	switch class {
	case result.ClassTiming:
		r = TimingRule(p.Timing, gated)
	case result.ClassMemory:
		r = TimingRule(p.Memory, gated)
	case result.ClassSampledCount:
		// Go benchmark lines' allocations: the same from run to run of
		// the same code but for the runtime's background work, so any
		// change the U test confirms counts.
		r = Rule{UTest: true, Gated: gated}
	case result.ClassSampledTiming:
		r = Rule{Threshold: p.Timing, BeyondNoise: true, UTest: true, Gated: gated}
	default:
		r = CountRule(p.Count, gated)
	}
	if threshold > 0 {
		r.Threshold = threshold
	}
	r.HigherIsBetter = better == result.HigherIsBetter
	return r
}

// ShiftRegresses tells whether a shift of a figure's mean, which a
// change-point search (tools/changepoint, Otava) has already found real
// and large enough, is for the worse: all that is left to judge.
func ShiftRegresses(figure string, before, after float64, higherIsBetter bool) bool {
	rule := Rule{HigherIsBetter: higherIsBetter, Gated: true}
	return Judge(figure, "", []float64{before}, []float64{after}, rule).Outcome == Regressed
}

// A Side is one side of a comparison of one benchmark: the figures and
// sweeps to compare, and what was measured where: the identity of the
// binary and its run, the environment, and the result's source, for
// messages (each "" or nil when unknown).
type Side struct {
	Figures     []result.Figure
	Sweeps      []result.Sweep
	Identity    *result.Identity
	Environment *result.Environment
	Source      string
	// History has, by figure, its medians in the history's recent results
	// of this side's identity and environment key (tools/history's
	// Recent), when the caller has a history: of the base, they calibrate
	// the figure's threshold with its runs (Calibrate).
	History map[result.FigureKey][]float64
	// HistorySweeps has, by figure swept, the sweeps of the same recent
	// results: of the base, they calibrate its growth's threshold with
	// its own sweep's fit (CalibrateGrowth).
	HistorySweeps map[string][]result.Sweep
}

// environmentChange names what differs between the sides' environments
// that can change a figure exact or not (result.DifferencesFor), or "".
func environmentChange(base, change Side, exact bool) string {
	if base.Environment == nil || change.Environment == nil {
		return ""
	}
	var names []string
	for _, d := range result.DifferencesFor(*base.Environment, *change.Environment, exact) {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}

// Compare is the lab's one pairing of a benchmark's figures at its base
// with the same figures at a change (or tonight): each figure the base
// has values of is judged against the change's by the rule its base
// declares, in the base's order, then the sweeps' growth.
//
// The base decides the gate: a figure gated at the base stays gated and
// keeps the base's threshold; the change may tighten either (gate a figure
// the base does not, declare a smaller threshold), never loosen them, and a
// change that tries is shown so (Verdict.Loosened). A gated figure of the
// base that the change lacks is missing. Figures only the change has are
// not judged: they have no baseline.
//
// A figure is compared only between environments that cannot change it:
// an exact count survives another machine (result.DifferencesFor), a
// timing does not; otherwise it is not comparable, saying what changed,
// unless the policy allows it.
//
// When both sides measured the same binary and run (their identity), no
// change of theirs can be a regression: every verdict is the noise floor
// (SameIdentity). An exact count that differs all the same is an
// inconsistent measurement, which fails: a broken measurement or a forged
// result.
func (p Policy) Compare(base, change Side) []Verdict {
	byName := make(map[[2]string]*result.Figure, len(change.Figures))
	for i := range change.Figures {
		f := &change.Figures[i]
		byName[[2]string{f.Name, f.Unit}] = f
	}
	// What differs between the sides' environments that can change a
	// figure, exact or not: found once, not per figure.
	moved := map[bool]string{false: environmentChange(base, change, false), true: environmentChange(base, change, true)}
	same := base.Identity != nil && change.Identity != nil && *base.Identity == *change.Identity
	// settle is a judged verdict again for where it was measured: unjudged
	// in an environment that can change it, else, of the same identity,
	// what sameID makes of it.
	settle := func(v Verdict, exact bool, sameID func(Verdict) Verdict) Verdict {
		switch {
		case moved[exact] != "" && !p.AllowEnvironmentChange:
			return notComparable(v, "another environment than the baseline's: "+moved[exact])
		case same:
			return sameID(v)
		}
		return v
	}
	exact := map[string]bool{}
	var judged []Verdict
	for _, o := range base.Figures {
		exact[o.Name] = o.Exact
		if len(o.Values) == 0 {
			continue
		}
		n := byName[[2]string{o.Name, o.Unit}]
		var v Verdict
		rule, loosened := p.pair(o.Class, o.Better, o.Gated || p.gates(o), o.Threshold, n)
		switch {
		case n == nil && !rule.Gated, n != nil && len(n.Values) == 0 && !rule.Gated:
			continue
		case n == nil:
			v = MissingFigure(o.Name, o.Unit, o.Values, rule, "the baseline has it, this result does not")
		case len(n.Values) == 0:
			why := "the baseline has it, this result has no values"
			if n.Unavailable != "" {
				why += ": " + n.Unavailable
			}
			v = MissingFigure(o.Name, o.Unit, o.Values, rule, why)
		default:
			// The base's noise sets the threshold, under its ceiling: the
			// change's own runs cannot loosen the gate (its noise still
			// counts for a count's BeyondNoise).
			var calibration Calibration
			rule, calibration = p.Calibrate(rule, o.Class, o.Exact, Noise{Reruns: o.Values, History: base.History[result.FigureKey{Name: o.Name, Unit: o.Unit}]})
			v = Judge(o.Name, o.Unit, o.Values, n.Values, rule)
			v.Calibration = &calibration
			v.Loosened = loosened
			v.Exact = o.Exact && n.Exact
			v = settle(v, v.Exact, func(v Verdict) Verdict { return sameIdentity(v, v.Exact, base.Source, change.Source) })
		}
		v.Class, v.Cost = o.Class, o.Cost
		if n != nil && n.Cost != "" {
			v.Cost = n.Cost
		}
		judged = append(judged, v)
	}
	for _, v := range p.compareSweeps(base, change.Sweeps, exact) {
		if v.Outcome != Missing {
			v = settle(v, exact[strings.TrimSuffix(v.Figure, GrowthSuffix)], SameIdentity)
		}
		judged = append(judged, v)
	}
	return judged
}

// notComparable is v left unjudged, saying why.
func notComparable(v Verdict, why string) Verdict {
	v.Outcome, v.Reason, v.P, v.Warning = NotComparable, why, 0, ""
	return v
}

// sameIdentity is the verdict on a figure of two measurements of the same
// binary and run: the noise floor, or, for an exact count that differs,
// an inconsistent measurement naming both.
func sameIdentity(v Verdict, exact bool, base, change string) Verdict {
	if exact && (v.Old.Min != v.New.Min || v.Old.Max != v.New.Max) {
		v.Outcome = Inconsistent
		v.Reason = fmt.Sprintf("inconsistent measurement: %s and %s measured the same binary and run, and this exact count differs "+
			"(%s → %s %s): a broken measurement or a forged result", cmp.Or(base, "the baseline"), cmp.Or(change, "this result"),
			Number(v.Old.Median), Number(v.New.Median), v.Unit)
		return v
	}
	return SameIdentity(v)
}

// pair is the rule of a figure that the base declares (gated, threshold)
// and the change declares as it does (nil: the change lacks it), and, when
// the change's declaration is looser than the base's, what it tried.
func (p Policy) pair(class result.Class, better string, gated bool, threshold float64, change *result.Figure) (Rule, string) {
	rule := p.Rule(class, threshold, gated, better)
	if change == nil {
		return rule, ""
	}
	var loosened string
	changeGated := change.Gated || gated && p.gates(*change)
	asked := p.Rule(class, change.Threshold, changeGated, better)
	switch {
	case asked.Threshold < rule.Threshold:
		rule.Threshold = asked.Threshold // a change may tighten its gate
	case asked.Threshold > rule.Threshold:
		loosened = fmt.Sprintf("the change declares a threshold of %.1f%%, the base %.1f%%: the base's applies",
			100*asked.Threshold, 100*rule.Threshold)
	}
	switch {
	case changeGated && !gated:
		rule.Gated = true
	case gated && !changeGated:
		loosened = join(loosened, "the change no longer gates it: the base's gate applies")
	}
	return rule, loosened
}

// compareSweeps judges the sweeps of a change against its base's, as
// Compare does the figures: each sweep both have by JudgeGrowth, the base
// deciding its gate and its noise the threshold (CalibrateGrowth; exact
// says, by figure, whether the base declares the swept count exact); a
// gated sweep of the base that the change lacks is missing.
func (p Policy) compareSweeps(baseSide Side, change []result.Sweep, exact map[string]bool) []Verdict {
	base := baseSide.Sweeps
	byFigure := make(map[string]*result.Sweep, len(change))
	for i := range change {
		byFigure[change[i].Figure] = &change[i]
	}
	var judged []Verdict
	for _, o := range base {
		n := byFigure[o.Figure]
		if n == nil {
			if o.Gated {
				rule := p.Rule(result.ClassCount, o.Threshold, true, result.LowerIsBetter)
				judged = append(judged, MissingFigure(o.Figure+GrowthSuffix, o.Unit, nil, rule,
					"the baseline has a sweep of "+o.Figure+", this result does not"))
			}
			continue
		}
		rule, loosened := p.pair(result.ClassCount, result.LowerIsBetter, o.Gated, o.Threshold,
			&result.Figure{Gated: n.Gated, Threshold: n.Threshold})
		// Growth is judged by its threshold alone: the rule's noise and U
		// test belong to a figure's runs, not to a fit.
		rule = Rule{Threshold: rule.Threshold, Gated: rule.Gated}
		rule, calibration := p.CalibrateGrowth(rule, exact[o.Figure], o, baseSide.HistorySweeps[o.Figure])
		v := JudgeGrowth(o, *n, rule)
		v.Calibration = &calibration
		v.Loosened = loosened
		judged = append(judged, v)
	}
	return judged
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
