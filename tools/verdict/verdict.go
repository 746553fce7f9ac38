// Package verdict is the lab's one answer to "did this figure get worse?":
// a figure of tonight's (or a change's) runs against the same figure of its
// baseline's, judged by a Rule, gives a Verdict. The report, benchgate, the
// nightly gate and bisect all ask it; none judges on its own. It also
// declares, once, the exit statuses of the commands that judge.
//
// A rule combines up to three kinds of evidence, as the figure's noise
// demands:
//
//   - the relative change of the medians against a threshold (always);
//   - the runs' noise: the change must also exceed the larger spread
//     (range over median) of the two sides' runs — the rule for counts,
//     which hardly move between runs of the same binary;
//   - the Mann-Whitney U test (benchstat's benchmath) at Alpha, with at
//     least MinRuns runs a side — the rule for timings, whose runs on a
//     shared 2-core runner move by 10% and more (docs/noise.md).
package verdict

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/result"
)

// The exit statuses of the commands that judge (report, benchgate): other
// commands read a comparison's summary (tools/summary), not these. Bad
// usage or unreadable input is 2, internal/cli's for every command.
const (
	StatusOK            = 0
	StatusRegressed     = 1 // a gated figure regressed (or the command failed)
	StatusNotComparable = 3 // results of different environments were not compared
)

// Compared tells whether a command's exit status is one a comparison
// ends with (OK, regressed, not comparable), rather than a failure to
// compare at all.
func Compared(status int) bool {
	return status == StatusOK || status == StatusRegressed || status == StatusNotComparable
}

// An Outcome is what a comparison found.
type Outcome string

// The outcomes, from the worst (Outcomes).
const (
	// Inconsistent: two measurements of the same binary and run (the same
	// identity) in the same environment differ by more than one
	// measurement can (Policy.Compare): an exact count that differs or
	// that this side no longer declares exact, a gated count beyond its
	// measured noise, a gated timing beyond InconsistentFactor. A broken
	// measurement or a forged result; it fails, gated or not.
	Inconsistent Outcome = "inconsistent"
	// Missing: the baseline has the figure (or the benchmark) and this
	// side does not, or cannot be read. What a gate cannot see fails it.
	Missing   Outcome = "missing"
	Regressed Outcome = "regressed" // worse beyond the rule
	// NotComparable: the figure could not be judged (no values, too few
	// runs, another environment, another version of the lab:
	// AnotherLab); Verdict.Reason says why.
	NotComparable Outcome = "not_comparable"
	Improved      Outcome = "improved"  // better beyond the rule
	Unchanged     Outcome = "unchanged" // within the rule's threshold, noise or significance
)

// severity is the lab's one order of how bad an outcome is (Outcomes).
var severity = [...]Outcome{Inconsistent, Missing, Regressed, NotComparable, Improved, Unchanged}

// Outcomes are the outcomes from the worst: the order in which Worst
// picks a night's outcome, and so the order every table and count of
// outcomes shows them in, lest a page's first row disagree with the
// night's verdict. A broken measurement comes first: nothing measured
// with it can be believed, and it fails gated or not. Then what fails a
// gate, the unseen before the seen: a figure or benchmark gone may hide a
// regression of any size (the gate fails closed on it), where a
// regression's size is known. Then what could not be judged, which fails
// nothing but leaves the question open; then what moved, better; last
// what did not.
func Outcomes() []Outcome { return slices.Clone(severity[:]) }

// Rank is o's place in Outcomes, 0 the worst: to order outcomes by.
// What is no outcome ranks after them all.
func (o Outcome) Rank() int {
	if i := slices.Index(severity[:], o); i >= 0 {
		return i
	}
	return len(severity)
}

// Valid reports whether o is one of the outcomes.
func (o Outcome) Valid() bool { return o.Rank() < len(severity) }

// Alpha is the significance level of the U test: 5 runs against 5 can
// reach it (the smallest p is 0.008).
const Alpha = 0.05

// The thresholds the lab's figures are judged at by default.
// docs/regressions.md and docs/noise.md have the measurements behind them.
const (
	// TimingThreshold: between two idle sessions the sub-second stages'
	// median real times moved by up to 9%, the longer ones' by 2 to 4%.
	TimingThreshold = 0.15
	// MemoryThreshold: max RSS moved by 1 to 2%.
	MemoryThreshold = 0.10
	// CountThreshold: the smallest change of a count (instructions,
	// allocations) the gate reports; their runs spread by under 0.01%.
	CountThreshold = 0.01
	// MinTimingRuns is the fewest runs a side the U test needs here.
	MinTimingRuns = 5
)

// The smallest changes of a server's figures per request the gate
// reports. They are not exact like a program's counts: a round's requests
// end while others are in flight, sync.Pool's caches empty at each
// collection, and a read of a connection that finds no request yet
// (EAGAIN) counts too, as often as the timing makes it. Over 5 rounds of
// each router stage (docs/noise.md) the allocations per request moved by
// at most 0.24% (CountThreshold covers them), the system calls by up to
// 0.96%.
const (
	ServerSyscallThreshold = 0.03
	// ServerInstructionThreshold: the own instructions per request are
	// counted one request at a time on one P, but net/http still sets and
	// cancels a read deadline per request as its goroutines happen to
	// meet: the router stages' values were at most 0.75% apart, the
	// runner test's router2 (TestInstructionsPerRequestAreCaught) 1.4%
	// over 16 values, so a change must pass 2%.
	ServerInstructionThreshold = 0.02
)

// A Rule is how a figure is judged.
type Rule struct {
	// Threshold: the relative change of the median, as a fraction of the
	// baseline's, past which a figure is worse (or better). 0 counts any
	// change the other evidence confirms.
	Threshold float64 `json:"threshold"`
	// BeyondNoise: the change must also exceed the larger spread of the
	// two sides' runs.
	BeyondNoise bool `json:"beyond_noise,omitempty"`
	// UTest: the U test must find the two samples different at Alpha.
	UTest bool `json:"u_test,omitempty"`
	// MinRuns: with fewer runs on either side the figure is not
	// comparable, unless GrossFactor says otherwise.
	MinRuns int `json:"min_runs,omitempty"`
	// GrossFactor: with too few runs for the rule, a median worse than
	// the baseline's by more than this factor still regresses (0: never).
	GrossFactor float64 `json:"gross_factor,omitempty"`
	// HigherIsBetter: throughput, say; by default lower is better.
	HigherIsBetter bool `json:"higher_is_better,omitempty"`
	// Gated: a regression of this figure fails the comparison; otherwise
	// it is shown only.
	Gated bool `json:"gated"`
}

// CountRule is the rule of a low-noise count (instructions, allocations):
// worse than the threshold and than the runs' noise.
func CountRule(threshold float64, gated bool) Rule {
	return Rule{Threshold: threshold, BeyondNoise: true, Gated: gated}
}

// TimingRule is the rule of a timing (real time, max RSS, a server's
// throughput and latency): worse than the threshold, with the U test's
// confirmation over at least MinTimingRuns runs a side; with fewer runs
// (a quick test's one round), only a change of more than GrossTimingFactor
// counts.
func TimingRule(threshold float64, gated bool) Rule {
	return Rule{Threshold: threshold, UTest: true, MinRuns: MinTimingRuns, GrossFactor: GrossTimingFactor, Gated: gated}
}

// GrossTimingFactor: the sub-second stages' real times moved by up to
// 3.25x between runs of one suite on the 2-core VMs (docs/noise.md); a
// tenfold change is no noise of theirs.
const GrossTimingFactor = 10

// InconsistentFactor: how far apart, either way, the medians of a gated
// timing (real time, max RSS, a server's throughput and p99) of two
// measurements of the same binary and run in the same environment may be
// before they are an inconsistent measurement (Policy.Compare). Between
// idle sessions the medians moved by 2 to 9%, and on a busy 2-core runner
// the quick workloads' runs by a coefficient of variation of up to 32%
// (docs/noise.md): a median three times another's is no load measured
// here, and twice is left to the noise floor, a margin for a runner more
// crowded than any measured. With fewer than MinTimingRuns runs a side
// the median is a run or two, and GrossTimingFactor bounds them as it
// bounds a regression: single runs moved by up to 3.25x. It bounds as
// well a gated count whose noise was not measured (one counted run, no
// history): the widest spread measured of a count, 43% (the counted
// allocations of a program of 14 objects, docs/noise.md), is well within.
const InconsistentFactor = 3

// SampleText is a sample's median and range, for people: "1,234, 3 runs
// 1,230–1,240".
func SampleText(s result.Sample) string {
	if s.Runs <= 1 || s.Min == s.Max {
		return fmt.Sprintf("%s, %d runs", numfmt.Number(s.Median), s.Runs)
	}
	return fmt.Sprintf("%s, %d runs %s–%s", numfmt.Number(s.Median), s.Runs, numfmt.Number(s.Min), numfmt.Number(s.Max))
}

// A Verdict is one figure judged against its baseline, with the evidence.
type Verdict struct {
	Figure  string        `json:"figure"`
	Unit    string        `json:"unit"`
	Outcome Outcome       `json:"outcome"`
	Rule    Rule          `json:"rule"`
	Old     result.Sample `json:"old"`
	New     result.Sample `json:"new"`
	// Change is the relative change of the median: +0.02 is 2% more
	// (worse for a count, better for a throughput). ±Inf from a zero
	// baseline.
	Change Ratio `json:"change"`
	// Noise is the larger spread of the two sides' runs.
	Noise float64 `json:"noise"`
	// P is the U test's p-value; 0 when the rule asks for no U test.
	P float64 `json:"p,omitempty"`
	// Reason says why a figure is not comparable.
	Reason string `json:"reason,omitempty"`
	// Warning qualifies the U test's evidence (too few runs for its
	// significance level, say).
	Warning string `json:"warning,omitempty"`
	// Growth is the evidence of a sweep's verdict (JudgeGrowth), or nil.
	Growth *Growth `json:"growth,omitempty"`
	// Cost is the kind of cost the figure stands for ("locality", ...),
	// when its producer declared one (WithCost).
	Cost string `json:"cost,omitempty"`
	// Class is the figure's class (tools/result), "" for a growth.
	Class result.Class `json:"class,omitempty"`
	// Exact: both sides declare the figure an exact count
	// (result.Figure.Exact); of two measurements of the same identity,
	// the base does (Policy.Compare).
	Exact bool `json:"exact,omitempty"`
	// Calibration says where the rule's threshold came from (Calibrate,
	// CalibrateGrowth): nil for a figure not judged (a missing one).
	Calibration *Calibration `json:"calibration,omitempty"`
	// Loosened says how the change's own declaration of the figure tried
	// to loosen its gate (a larger threshold, no gate), which the base's
	// declaration overrode (Policy.Compare).
	Loosened string `json:"loosened,omitempty"`
}

// Fails reports whether the verdict fails a comparison: a gated figure
// that regressed or is missing, or an inconsistent measurement.
func (v Verdict) Fails() bool {
	return (v.Outcome == Regressed || v.Outcome == Missing) && v.Rule.Gated || v.Outcome == Inconsistent
}

// SameIdentity is the verdict on a figure of two measurements of the same
// binary and declared run (their identity, tools/result): whatever the
// change, it is noise, and it is recorded as this figure's noise floor.
func SameIdentity(v Verdict) Verdict {
	if v.Outcome == Regressed || v.Outcome == Improved {
		v.Outcome = Unchanged
		v.Warning = fmt.Sprintf("the same binary and run as the baseline: %s is the noise floor", v.ChangeText(4))
	}
	return v
}

// MissingFigure is the verdict on a figure the baseline has and this side
// lacks (why says how).
func MissingFigure(figure, unit string, old []float64, rule Rule, why string) Verdict {
	return Verdict{Figure: figure, Unit: unit, Rule: rule, Outcome: Missing, Old: result.NewSample(old), Reason: why}
}

// Judge judges a figure's new runs against its baseline's old ones.
func Judge(figure, unit string, old, new []float64, rule Rule) Verdict {
	v := Verdict{Figure: figure, Unit: unit, Rule: rule, Old: result.NewSample(old), New: result.NewSample(new), Outcome: Unchanged}
	for _, x := range slices.Concat(old, new) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v.Outcome, v.Reason = NotComparable, fmt.Sprintf("a run's value is %v", x)
			return v
		}
	}
	switch {
	case len(old) > 0 && len(new) > 0 && (len(old) < rule.MinRuns || len(new) < rule.MinRuns) && rule.GrossFactor > 0:
		return judgeGross(v, rule, len(old), len(new))
	case len(old) < rule.MinRuns || len(new) < rule.MinRuns:
		v.Outcome, v.Reason = NotComparable, fmt.Sprintf("%d and %d runs: too few to compare (%d each needed)", len(old), len(new), rule.MinRuns)
		if len(old) > 0 && len(new) > 0 {
			// Unjudged, but how far it moved is still what a reader wants.
			v.Change = Ratio(relativeChange(v.Old.Median, v.New.Median))
		}
		return v
	case len(old) == 0 || len(new) == 0:
		v.Outcome, v.Reason = NotComparable, fmt.Sprintf("no runs to compare (%d and %d)", len(old), len(new))
		return v
	}
	v.Noise = max(v.Old.Spread(), v.New.Spread())
	v.Change = Ratio(relativeChange(v.Old.Median, v.New.Median))
	change := v.worsening()
	significant := true
	if rule.UTest {
		thresholds := &benchmath.Thresholds{CompareAlpha: Alpha}
		cmp := benchmath.AssumeNothing.Compare(
			benchmath.NewSample(slices.Clone(old), thresholds),
			benchmath.NewSample(slices.Clone(new), thresholds))
		v.P = cmp.P
		significant = cmp.P < cmp.Alpha
		if len(cmp.Warnings) > 0 {
			v.Warning = cmp.Warnings[0].Error()
		}
	}
	beyond := func(change float64) bool {
		return significant && change > rule.Threshold && (!rule.BeyondNoise || change > v.Noise)
	}
	switch {
	case beyond(change):
		v.Outcome = Regressed
	case beyond(-change):
		v.Outcome = Improved
	}
	return v
}

// judgeGross judges a figure with too few runs for its rule: only a
// change past the rule's GrossFactor counts, either way.
func judgeGross(v Verdict, rule Rule, oldRuns, newRuns int) Verdict {
	v.Change = Ratio(relativeChange(v.Old.Median, v.New.Median))
	v.Noise = max(v.Old.Spread(), v.New.Spread())
	worse, better := v.New.Median, v.Old.Median // lower is better
	if rule.HigherIsBetter {
		worse, better = better, worse
	}
	v.Warning = fmt.Sprintf("%d and %d runs: too few for the U test (%d each); judged by a factor of %g only", oldRuns, newRuns, rule.MinRuns, rule.GrossFactor)
	switch {
	case better >= 0 && worse > rule.GrossFactor*better && worse > 0:
		v.Outcome = Regressed
	case worse >= 0 && better > rule.GrossFactor*worse && better > 0:
		v.Outcome = Improved
	default:
		v.Outcome, v.Reason = NotComparable, v.Warning
	}
	return v
}

// Worsening is the change in the direction that is worse, as the figure's
// rule declares it (Rule.HigherIsBetter: a throughput that fell got
// worse): positive when the figure got worse, whatever its outcome.
func (v Verdict) Worsening() float64 { return v.worsening() }

// worsening is the change in the direction that is worse: positive when
// the figure got worse.
func (v Verdict) worsening() float64 {
	if v.Rule.HigherIsBetter {
		return -float64(v.Change)
	}
	return float64(v.Change)
}

// relativeChange is new against old, +0.01 for 1% more; ±Inf from zero.
func relativeChange(old, new float64) float64 {
	switch {
	case old != 0:
		return (new - old) / math.Abs(old)
	case new > 0:
		return math.Inf(1)
	case new < 0:
		return math.Inf(-1)
	}
	return 0
}

// A Ratio is a relative change. JSON has no infinities: ±Inf, a change
// from zero, is written as the strings "+Inf" and "-Inf".
type Ratio float64

// MarshalJSON writes r as a number, or ±Inf as a string.
func (r Ratio) MarshalJSON() ([]byte, error) {
	switch {
	case math.IsInf(float64(r), 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(float64(r), -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(float64(r))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Ratio) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case `"+Inf"`:
		*r = Ratio(math.Inf(1))
		return nil
	case `"-Inf"`:
		*r = Ratio(math.Inf(-1))
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("a change: want a number, \"+Inf\" or \"-Inf\": %w", err)
	}
	*r = Ratio(f)
	return nil
}

// ChangeText is the change in percent, "+2.00%", or from a zero baseline.
func (v Verdict) ChangeText(decimals int) string {
	if v.Growth != nil {
		return v.Growth.changeText(v, decimals)
	}
	if math.IsInf(float64(v.Change), 0) {
		return fmt.Sprintf("from 0 to %.4g", v.New.Median)
	}
	return fmt.Sprintf("%+.*f%%", decimals, 100*v.Change)
}

// Label is the verdict in a word, for tables: "REGRESSED" (gated),
// "worse" (not gated), "better", "~" unchanged, "not comparable".
func (v Verdict) Label() string {
	switch v.Outcome {
	case Regressed:
		if v.Rule.Gated {
			return "REGRESSED"
		}
		return "worse"
	case Improved:
		return "better"
	case NotComparable:
		return "not comparable"
	case Missing:
		return "MISSING"
	case Inconsistent:
		return "INCONSISTENT"
	}
	return "~"
}

// Evidence says what the verdict rests on, in words.
func (v Verdict) Evidence() string {
	if v.Outcome == NotComparable || v.Outcome == Missing || v.Outcome == Inconsistent {
		return v.Reason
	}
	if v.Growth != nil {
		return v.Growth.evidence(v)
	}
	text := fmt.Sprintf("%s → %s %s, median of %d and %d runs; %s",
		numfmt.Number(v.Old.Median), numfmt.Number(v.New.Median), v.Unit, v.Old.Runs, v.New.Runs, v.ruleText())
	if v.Loosened != "" {
		text += "; " + v.Loosened
	}
	return text
}

// ThresholdText is the threshold the verdict applied and where it came
// from: "threshold 0.25% (the floor: 5 × noise 0% of 3 reruns is under
// it)". Every printer of a verdict's evidence says it so.
func (v Verdict) ThresholdText() string {
	text := "threshold " + Percent(v.Rule.Threshold)
	if v.Calibration != nil {
		text += " (" + v.Calibration.String() + ")"
	}
	return text
}

// ruleText is the rule's evidence: threshold, noise, p-value.
func (v Verdict) ruleText() string {
	text := v.ThresholdText()
	if v.Rule.BeyondNoise {
		text += fmt.Sprintf(", noise %.4f%%", 100*v.Noise)
	}
	if v.Rule.UTest {
		text += fmt.Sprintf(", p=%.3f", v.P)
	}
	return text
}

// String is the figure, its change, its label and the evidence.
func (v Verdict) String() string {
	switch v.Outcome {
	case NotComparable:
		return fmt.Sprintf("%s not comparable: %s", v.Figure, v.Reason)
	case Missing:
		return fmt.Sprintf("%s MISSING: %s", v.Figure, v.Reason)
	case Inconsistent:
		return fmt.Sprintf("%s INCONSISTENT: %s", v.Figure, v.Reason)
	}
	return fmt.Sprintf("%s %s (%s%s: %s)", v.Figure, v.ChangeText(2), v.Label(), v.CostNote(), v.Evidence())
}

// Worst is the worst outcome of verdicts that count: a regression of a
// figure that is not gated counts as unchanged, and so does a figure of
// no values when another figure was judged. Without verdicts it is
// NotComparable.
func Worst(verdicts []Verdict) Outcome {
	outcomes := make([]Outcome, len(verdicts))
	for i, v := range verdicts {
		outcomes[i] = v.Outcome
		if (v.Outcome == Regressed || v.Outcome == Improved || v.Outcome == Missing) && !v.Rule.Gated {
			outcomes[i] = Unchanged
		}
	}
	return WorstOutcome(outcomes)
}

// WorstOutcome is the worst of outcomes, the first of them in Outcomes'
// order, not_comparable ones left out (a figure not judged decides
// nothing when another was): NotComparable when nothing else is among
// them.
func WorstOutcome(outcomes []Outcome) Outcome {
	worst := NotComparable
	for _, o := range outcomes {
		if o != NotComparable && (worst == NotComparable || o.Rank() < worst.Rank()) {
			worst = o
		}
	}
	return worst
}
