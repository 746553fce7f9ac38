package verdict

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"havlak-lab/internal/numfmt"
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
	// in what can change them (result.DifferencesFor), or that another
	// version of the lab measured (LabChange): a person's choice (the
	// report's --allow-env-change), never the gate's.
	AllowEnvironmentChange bool
	// GatedUnits are units whose figures the gate judges whatever they
	// declare: benchgate's -units, a person's choice of what to gate
	// among a Go benchmark's measures (time per op, say).
	GatedUnits []string
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
	// LayoutFactor times a figure's layout noise (Side.Layout) is the
	// least threshold of a figure compared between different binaries,
	// over its ceiling if need be (Calibrate); 0 leaves layout noise out.
	LayoutFactor float64
}

// Lab is the policy the lab's gates judge by (docs/regressions.md,
// docs/noise.md): a command changes a threshold of it only where its user
// said so (the report's -threshold, say). Which figures are gated is
// their declaration's: a metric's, or tools/result's table of the figures
// of every run and round (result.Declared).
var Lab = Policy{Count: CountThreshold, Timing: TimingThreshold, Memory: MemoryThreshold,
	Floors: LabFloors, NoiseFactor: NoiseFactor, CalibrationRuns: CalibrationRuns, HistoryResults: HistoryResults,
	LayoutFactor: LayoutFactor}

// gates tells whether the policy gates figure f whatever it declares.
func (p Policy) gates(f result.Figure) bool {
	return slices.Contains(p.GatedUnits, f.Unit)
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
	// Layout has, by figure, its medians in the base's own count and in
	// each of the base's layout variants (the same code built to land at
	// other addresses), when the caller counted them: of the base, when
	// the sides are different binaries, they calibrate the figure's
	// threshold too (Calibrate). Of the same binary and run they loosen
	// nothing: its inconsistency is judged without them.
	Layout map[result.FigureKey][]float64
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

// AnotherLab is the reason every figure of two results measured by
// different versions of the lab (result.Identity.LabSHA256) is not
// comparable: the tools that ran, counted and read them differ, so a
// difference between them may be the tools', whatever the code did. The
// baseline moves to the new version's results, as it does for another
// environment (docs/noise.md). Its words are result.AnotherLab, which
// tells a lab's change from an environment's for every reader of what a
// comparison says differs (result.MovedBy).
const AnotherLab = result.AnotherLab

// LabChange says how the versions of the lab that measured the sides
// differ, AnotherLab with the two versions, or "" when they are one or
// either side has no identity to say. A side whose identity records no
// version was measured before the lab recorded it (schema version 2), by
// another version than any that records one.
func LabChange(base, change Side) string {
	if base.Identity == nil || change.Identity == nil || base.Identity.LabSHA256 == change.Identity.LabSHA256 {
		return ""
	}
	version := func(sum string) string {
		if sum == "" {
			return "none recorded"
		}
		return sum[:min(len(sum), 12)]
	}
	return fmt.Sprintf("%s (the lab's version %s → %s)", AnotherLab, version(base.Identity.LabSHA256), version(change.Identity.LabSHA256))
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
// not judged: they have no baseline (OnlyInChange). Between two different binaries, the
// base's layout noise (Side.Layout, measured on the base's own code)
// raises a threshold it is over, past the ceiling if need be (Calibrate).
//
// A figure is compared only between environments that cannot change it:
// an exact count survives another machine (result.DifferencesFor), a
// timing does not; otherwise it is not comparable, saying what changed,
// unless the policy allows it. Nothing is compared between results that
// different versions of the lab measured (LabChange): every figure is not
// comparable, AnotherLab, never regressed nor inconsistent, unless the
// policy allows it.
//
// When both sides measured the same binary and run (their identity), no
// change of theirs can be a regression: every verdict is the noise floor
// (SameIdentity). In an environment that cannot change the figure, a
// change that one measurement cannot make is an inconsistent measurement,
// which fails: a broken measurement or a forged result (inconsistency
// says which changes those are), its calibration without layout noise:
// one binary has one layout. The base's declaration says what is
// exact: a change cannot escape the check by declaring its counts
// otherwise, and one that calls inexact what the base measured exactly is
// inconsistent for that alone (exactnessDropped), so that it does not
// become a baseline that holds the next night to less.
func (p Policy) Compare(base, change Side) []Verdict {
	byName, callsInexact := indexFigures(change.Figures)
	// What differs between the sides' environments that can change a
	// figure, exact or not: found once, not per figure.
	moved := map[bool]string{false: environmentChange(base, change, false), true: environmentChange(base, change, true)}
	// The same identity is the same binary and run measured by the same
	// version of the lab.
	same := base.Identity != nil && change.Identity != nil && *base.Identity == *change.Identity
	lab := LabChange(base, change)
	// settle is a judged verdict again for where it was measured: unjudged
	// when another version of the lab measured it, or in an environment
	// that can change it; of the same identity, the noise floor, or
	// inconsistent where the environment cannot change it and inconsistent
	// says what differs. An environment that changed, as a person allowed,
	// explains a difference: no inconsistency then.
	settle := func(v Verdict, exact bool, inconsistent func(Verdict) string) Verdict {
		switch {
		case lab != "" && !p.AllowEnvironmentChange:
			return notComparable(v, lab)
		case moved[exact] != "" && !p.AllowEnvironmentChange:
			return notComparable(v, result.AnotherEnvironment+": "+moved[exact])
		case !same:
			return v
		case moved[exact] == "":
			if what := inconsistent(v); what != "" {
				return inconsistentMeasurement(v, what, base.Source, change.Source)
			}
		}
		return SameIdentity(v)
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
		baseGated := o.Gated || p.gates(o)
		rule, loosened := p.pair(o.Class, o.Better, baseGated, o.Threshold, n)
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
			key := result.FigureKey{Name: o.Name, Unit: o.Unit}
			noise := Noise{Reruns: o.Values, History: base.History[key]}
			if !same && result.MovedByLayout(o.Cost) {
				// Another binary: where its code and data land moved too.
				noise.Layout = base.Layout[key]
			}
			rule, calibration = p.Calibrate(rule, o.Class, o.Exact, noise)
			v = Judge(o.Name, o.Unit, o.Values, n.Values, rule)
			v.Calibration = &calibration
			v.Loosened = loosened
			v.Exact = o.Exact && n.Exact
			if same {
				v.Exact = o.Exact
			}
			v = settle(v, v.Exact, func(v Verdict) string {
				return JoinNotes(inconsistency(v, o.Class, v.Exact, baseGated), exactnessDropped(o.Name, o.Exact, n.Exact))
			})
		}
		v.Class, v.Cost = o.Class, o.Cost
		if n != nil && n.Cost != "" {
			v.Cost = n.Cost
		}
		judged = append(judged, v)
	}
	sweepGated := map[string]bool{}
	for _, s := range base.Sweeps {
		sweepGated[s.Figure] = s.Gated
	}
	for _, v := range p.compareSweeps(base, change.Sweeps, exact) {
		if v.Outcome != Missing {
			figure := strings.TrimSuffix(v.Figure, GrowthSuffix)
			v = settle(v, exact[figure], func(v Verdict) string {
				return JoinNotes(inconsistency(v, result.ClassCount, exact[figure], sweepGated[figure]),
					exactnessDropped(figure, exact[figure], !callsInexact[figure]))
			})
		}
		judged = append(judged, v)
	}
	return judged
}

// indexFigures indexes a side's figures by name and unit, and says by name
// which it declares inexact, for their sweeps' growth: a figure it lacks it
// calls nothing.
func indexFigures(figures []result.Figure) (byName map[[2]string]*result.Figure, callsInexact map[string]bool) {
	byName = make(map[[2]string]*result.Figure, len(figures))
	callsInexact = make(map[string]bool, len(figures))
	for i := range figures {
		f := &figures[i]
		byName[[2]string{f.Name, f.Unit}] = f
		callsInexact[f.Name] = !f.Exact
	}
	return byName, callsInexact
}

// OnlyInChange are the verdicts on the figures with values that change
// has and base has none of, which Compare leaves out (they have no
// baseline): each not comparable, with the change's values and its
// declaration of the figure, for a page that shows every figure of both
// sides.
func OnlyInChange(base, change Side) []Verdict {
	inBase := map[result.FigureKey]bool{}
	for _, f := range base.Figures {
		if len(f.Values) > 0 {
			inBase[result.FigureKey{Name: f.Name, Unit: f.Unit}] = true
		}
	}
	var only []Verdict
	for _, f := range change.Figures {
		if len(f.Values) == 0 || inBase[result.FigureKey{Name: f.Name, Unit: f.Unit}] {
			continue
		}
		only = append(only, Verdict{Figure: f.Name, Unit: f.Unit, Outcome: NotComparable, New: result.NewSample(f.Values),
			Class: f.Class, Cost: f.Cost, Exact: f.Exact, Reason: "only the change has it: the baseline has no values of it"})
	}
	return only
}

// notComparable is v left unjudged, saying why.
func notComparable(v Verdict, why string) Verdict {
	v.Outcome, v.Reason, v.P, v.Warning = NotComparable, why, 0, ""
	return v
}

// inconsistentMeasurement is v, of two measurements of the same binary
// and run, failing as inconsistent: what says how it differs, base and
// change name the two results.
func inconsistentMeasurement(v Verdict, what, base, change string) Verdict {
	v.Outcome, v.Warning = Inconsistent, ""
	v.Reason = fmt.Sprintf("inconsistent measurement: %s and %s measured the same binary and run, and %s: a broken measurement or a forged result",
		cmp.Or(base, "the baseline"), cmp.Or(change, "this result"), what)
	return v
}

// inconsistency says how a figure (or a growth) of class, judged in v,
// differs between two measurements of the same binary and run in the same
// environment by more than one measurement can, or "" when it does not:
// exact and gated as its base declares it.
//
//   - An exact count: any difference of its runs' extremes. An exact count
//     is the same to the last unit run after run, gated or not.
//   - Another count the base gates: a change of the median beyond its
//     noise, as the calibration measured it in the base's reruns and the
//     history's results of its identity (v.Calibration): NoiseFactor
//     times that noise, never under the floor of its kind. The threshold
//     the gate judges by is the same, but held under a ceiling: what a
//     regression is worth, not how far noise goes, so the ceiling does not
//     bound this. Go's own instructions (noise up to 0.0012%, the floor
//     0.5%): a change beyond 0.5% is no noise of theirs, 0.001% is. Only
//     the base's noise counts: runs of the change spread wide cannot hide
//     a change. Without a measured noise, InconsistentFactor bounds a
//     count as it does a timing.
//   - A timing the base gates: medians apart by more than
//     InconsistentFactor, either way (GrossTimingFactor with too few
//     runs for a median).
//
// A growth (a sweep's fit) is a count: its coefficient against the noise
// CalibrateGrowth measured, exact when its swept count is.
//
// Figures the base shows only are left out, counts and timings alike:
// what moves with the runner's load or the collector's timing (CPU time,
// a Go program's allocations in its timed runs, GC cycles, perf's
// counters) is why they are not gated.
func inconsistency(v Verdict, class result.Class, exact, gated bool) string {
	old, new := v.Old.Median, v.New.Median
	switch {
	case v.Old.Runs == 0 || v.New.Runs == 0, !finite(old) || !finite(new):
		return "" // nothing judged: Judge says why
	case exact:
		switch {
		case v.Old.Min == v.New.Min && v.Old.Max == v.New.Max:
			return ""
		case v.Growth != nil:
			return "the growth of this exact count differs (" + v.ChangeText(4) + ")"
		}
		return fmt.Sprintf("this exact count differs (%s → %s %s)", sampleRange(v.Old), sampleRange(v.New), v.Unit)
	case !gated:
		return ""
	case class == result.ClassTiming || class == result.ClassMemory || class == result.ClassSampledTiming:
		factor := float64(InconsistentFactor)
		if v.Old.Runs < MinTimingRuns || v.New.Runs < MinTimingRuns {
			factor = GrossTimingFactor
		}
		if apart(old, new) <= factor {
			return ""
		}
		return fmt.Sprintf("this timing's medians are %s apart (%s → %s %s, %d and %d runs), more than the factor of %g that noise moves them by",
			factorText(apart(old, new)), numfmt.Number(old), numfmt.Number(new), v.Unit, v.Old.Runs, v.New.Runs, factor)
	}
	change := math.Abs(float64(v.Change))
	if c := v.Calibration; c != nil && c.Factor > 0 && (c.Reruns > 0 || c.Points > 0 || c.Sizes > 0) {
		bound := max(c.Floor, c.Factor*c.Noise)
		if change <= bound {
			return ""
		}
		return fmt.Sprintf("this count moved %s (%s → %s %s), beyond its noise: %g × noise %s of %s, never under the floor %s, is %s",
			v.ChangeText(4), numfmt.Number(old), numfmt.Number(new), v.Unit, c.Factor, Percent(c.Noise), c.measured(), Percent(c.Floor), Percent(bound))
	}
	if apart(old, new) <= InconsistentFactor {
		return ""
	}
	return fmt.Sprintf("this count's medians are %s apart (%s → %s %s), more than the factor of %d of a count whose noise was not measured",
		factorText(apart(old, new)), numfmt.Number(old), numfmt.Number(new), v.Unit, InconsistentFactor)
}

// exactnessDropped says that a change of the same binary and run as its
// base calls inexact the figure the base measured exactly (baseExact and
// changeExact as each declares it), or "". Whether a figure is exact is
// its producer's knowledge of how it is measured: the same binary run the
// same way in an environment that cannot change the count is measured the
// same way, so a result that drops the declaration is broken or forged,
// even with the base's very values. Let through, it would become the
// baseline and the next night of the same binary would be judged as an
// inexact count, within its noise, instead of to the last unit.
//
// The reverse, a base's inexact count that the change calls exact, is no
// inconsistency: the base's declaration is what the change is judged by,
// so declaring more cannot loosen tonight's gate, and as the next baseline
// it only holds later nights to the last unit, where a false claim fails
// at the first count that differs. Failing it would also fail every night
// after the lab's measurement learns that a count is exact (the identity
// is the binary's and the run's, not the measuring tool's).
func exactnessDropped(figure string, baseExact, changeExact bool) string {
	if !baseExact || changeExact {
		return ""
	}
	return "the baseline measured " + figure + " exactly and this result calls it inexact"
}

// apart is how many times the larger of two values is the smaller: +Inf
// when one is 0 or below and the other not, 1 when they are equal.
func apart(a, b float64) float64 {
	lo, hi := min(a, b), max(a, b)
	switch {
	case lo == hi:
		return 1
	case lo <= 0:
		return math.Inf(1)
	}
	return hi / lo
}

// factorText is a factor for people: "5.00×", or "infinitely far".
func factorText(f float64) string {
	if math.IsInf(f, 1) {
		return "infinitely far"
	}
	return fmt.Sprintf("%.2f×", f)
}

// sampleRange is a sample's value, or its range when its runs differ.
func sampleRange(s result.Sample) string {
	if s.Min == s.Max {
		return numfmt.Number(s.Median)
	}
	return numfmt.Number(s.Min) + "–" + numfmt.Number(s.Max)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

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
		loosened = JoinNotes(loosened, "the change no longer gates it: the base's gate applies")
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

// JoinNotes joins two notes (a verdict's, a benchmark's): b after a, if
// there is an a.
func JoinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
