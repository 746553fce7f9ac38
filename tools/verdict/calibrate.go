package verdict

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/result"
)

// Calibration: a figure's threshold comes from its own measured noise,
// not from its class alone. What a figure measured when nothing changed —
// its base's reruns (the runs of one binary a result holds) and the
// history's recent results of the base's identity and environment, which
// must measure the same — gives its noise, the larger spread (range over
// median) of the two. Its threshold is then NoiseFactor times that noise,
// but never under the floor of its kind of figure (Floors) and never over
// its ceiling: the threshold its base declares, or its class's (Policy's
// Count, Timing, Memory). With fewer than CalibrationRuns unchanged
// measurements of either kind the noise is not known, and the ceiling
// applies: what was not measured cannot tighten a gate.
//
// The numbers are the policy's (Lab; docs/noise.md has the measurements
// behind them), and every verdict says which applied and why
// (Verdict.Calibration).

// Floors are the smallest thresholds of each kind of figure, however
// little it was seen to move.
type Floors struct {
	// ExactCount: a count its producer declares exact (result.Figure's
	// Exact), the same to the last unit run after run.
	ExactCount float64
	// Count: another count (a Go program's own instructions, cache
	// misses, a server's allocations per request).
	Count float64
	// Timing, Memory: real time, throughput and latency; peak memory.
	Timing, Memory float64
	// SampledCount, SampledTiming: a Go benchmark line's allocations, its
	// other figures.
	SampledCount, SampledTiming float64
	// ExactGrowth, Growth: the coefficient of a sweep's fit
	// (JudgeGrowth), of an exact count and of another.
	ExactGrowth, Growth float64
}

// GrowthFloor is the floor of the growth of a count, exact or not.
func (f Floors) GrowthFloor(exact bool) float64 {
	if exact {
		return f.ExactGrowth
	}
	return f.Growth
}

// Floor is the floor of a figure of class, exact or not.
func (f Floors) Floor(class result.Class, exact bool) float64 {
	switch class {
	case result.ClassTiming:
		return f.Timing
	case result.ClassMemory:
		return f.Memory
	case result.ClassSampledCount:
		return f.SampledCount
	case result.ClassSampledTiming:
		return f.SampledTiming
	}
	if exact {
		return f.ExactCount
	}
	return f.Count
}

// The lab's calibration numbers (Lab).
const (
	// ExactCountFloor: C and C++ instructions, cache misses, allocations
	// and every program's system calls moved by 0.0000% between unchanged
	// runs (docs/noise.md): a quarter of a percent catches a regression of
	// half a percent with room for what a declaration of exactness does
	// not promise (another libc's start-up, a longer path in argv).
	ExactCountFloor = 0.0025
	// CountFloor: a Go program's own instructions moved by at most
	// 0.0012%, but its own D1 misses by up to 0.19% and its counted
	// allocations by up to 0.37%, while three runs can show a tenth of
	// that: half a percent is above every spread measured of a gated
	// count that is not exact.
	CountFloor = 0.005
	// TimingFloor: the longer stages' real times moved by 2 to 4% between
	// idle sessions, which one session's runs do not show.
	TimingFloor = 0.05
	// MemoryFloor: max RSS moved by 1 to 2% between idle sessions.
	MemoryFloor = 0.03
	// NoiseFactor: a threshold is five times the noise measured. A few
	// runs' range underestimates the spread of later comparisons, and the
	// reruns of one binary do not see what moves between two builds of
	// the same code: a Go program's counted allocation bytes moved 0.87%
	// between two binaries whose three reruns spread 0.25% (the perf
	// check's test, a change and its revert), 3.5 times the noise; three
	// times made that a false alarm.
	NoiseFactor = 5
	// CalibrationRuns: the fewest unchanged measurements (a result's
	// reruns, or the history's results of one identity) whose range is
	// taken for noise: the counted runs' default.
	CalibrationRuns = 3
	// HistoryResults: the history's newest results of one identity read
	// for its noise, ten nights of an unchanged binary.
	HistoryResults = 10

	// ExactGrowthFloor: havlak7cc's quick sweep fitted the same
	// coefficient, 2,342.7518 instructions a loop, in 9 reruns (the
	// regression suite's, docs/noise.md): the coefficient of an exact
	// count is as exact as the count, and takes its floor.
	ExactGrowthFloor = ExactCountFloor
	// GrowthFloor: havlak7's quick sweep of its own instructions fitted
	// coefficients of 3,024.511 to 3,024.665 in the same 9 reruns, 0.0051%
	// apart, each fit's residuals putting its noise at 0.0003% to 0.0026%
	// (GrowthSpread standard errors): five times the larger is 0.026%. A
	// count's 0.5% floor answers its D1 misses and allocations, which no
	// sweep counts (the runner sweeps the gated instructions alone), and
	// 0.5% would let through the asymptotic 1% case (+0.46%). The growth of
	// a count that is not exact takes the exact one's quarter percent, 50
	// times what its coefficient was seen to move and 10 times five times
	// that: room for what 9 reruns of one binary do not show.
	GrowthFloor = 0.0025
	// GrowthSpread: a fit's noise is this many standard errors of its
	// coefficient (complexity.RelativeError). The other figures' noise is
	// the range of 3 or more runs, which for 3 is on average 1.7 standard
	// deviations; two puts one sweep's fit on the same footing.
	GrowthSpread = 2
)

// LabFloors are the lab's floors.
var LabFloors = Floors{ExactCount: ExactCountFloor, Count: CountFloor, Timing: TimingFloor, Memory: MemoryFloor,
	SampledTiming: TimingFloor, ExactGrowth: ExactGrowthFloor, Growth: GrowthFloor}

// Noise is what a figure measured when nothing changed, as a caller has
// it: the base's runs, and the medians of the history's recent results of
// the base's identity and environment key (tools/history's Recent), each
// nil when unknown.
type Noise struct {
	Reruns  []float64
	History []float64
}

// A ThresholdSource says where a verdict's threshold came from.
type ThresholdSource string

// The sources of a threshold.
const (
	// Declared: not calibrated, too few unchanged measurements (or a
	// policy without calibration): the ceiling applies.
	Declared ThresholdSource = "declared"
	// Ceiling: calibrated, the noise put the threshold at or over the
	// ceiling, which applies.
	Ceiling ThresholdSource = "ceiling"
	// Floor: calibrated, the noise was below the class's floor, which
	// applies.
	Floor ThresholdSource = "floor"
	// Measured: NoiseFactor times the noise measured.
	Measured ThresholdSource = "noise"
)

// A Calibration is how a verdict's threshold (its Rule's) was set.
type Calibration struct {
	Source ThresholdSource `json:"source"`
	// Ceiling is the declared (or the class's) threshold; Floor the
	// class's floor.
	Ceiling float64 `json:"ceiling"`
	Floor   float64 `json:"floor"`
	// Noise is the larger spread of the reruns and of the history's
	// medians that were enough to calibrate; Factor what multiplied it.
	Noise  float64 `json:"noise"`
	Factor float64 `json:"factor,omitempty"`
	// Reruns and Points count the base's runs and the history's results
	// that calibrated it (0: too few to); Sizes, for a growth, the sizes
	// of the base's sweep whose fit did.
	Reruns int `json:"reruns,omitempty"`
	Points int `json:"points,omitempty"`
	Sizes  int `json:"sizes,omitempty"`
	// Needed is the fewest of either that calibrate.
	Needed int `json:"needed,omitempty"`
}

// Calibrate sets rule's threshold from a figure's noise: rule is the
// figure's as its base declares it (Rule, pair), whose threshold is the
// ceiling; class and exact say which floor applies.
func (p Policy) Calibrate(rule Rule, class result.Class, exact bool, noise Noise) (Rule, Calibration) {
	c := Calibration{Source: Declared, Ceiling: rule.Threshold, Floor: p.Floors.Floor(class, exact), Needed: p.CalibrationRuns}
	if p.NoiseFactor <= 0 || p.CalibrationRuns < 2 {
		return rule, c
	}
	// spread is the noise of unchanged measurements, when there are
	// enough of them and all are numbers.
	spread := func(values []float64) (float64, bool) {
		if len(values) < p.CalibrationRuns {
			return 0, false
		}
		for _, x := range values {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, false
			}
		}
		return result.NewSample(values).Spread(), true
	}
	if s, ok := spread(noise.Reruns); ok {
		c.Noise, c.Reruns = s, len(noise.Reruns)
	}
	if s, ok := spread(noise.History); ok {
		c.Noise, c.Points = max(c.Noise, s), len(noise.History)
	}
	return p.calibrated(rule, c)
}

// calibrated is rule with the threshold that c's noise sets, between its
// floor and its ceiling, when c measured any.
func (p Policy) calibrated(rule Rule, c Calibration) (Rule, Calibration) {
	if c.Reruns == 0 && c.Points == 0 && c.Sizes == 0 {
		return rule, c
	}
	c.Factor = p.NoiseFactor
	t := p.NoiseFactor * c.Noise
	switch {
	case max(t, c.Floor) >= c.Ceiling:
		c.Source, t = Ceiling, c.Ceiling
	case t <= c.Floor:
		c.Source, t = Floor, c.Floor
	default:
		c.Source = Measured
	}
	rule.Threshold = t
	return rule, c
}

// Percent is a fraction in percent, for people: up to two decimals,
// more for a smaller one ("1%", "0.25%", "0.0012%").
func Percent(x float64) string {
	x *= 100
	decimals := 2
	if a := math.Abs(x); a != 0 && a < 0.01 {
		decimals = 4
	}
	text := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(text, ".") {
		text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
	}
	return text + "%"
}

// String says where the threshold came from, after it: "the count floor
// (3 × noise 0.0004% of 3 reruns is under it)".
func (c Calibration) String() string {
	noise := fmt.Sprintf("%g × noise %s of %s", c.Factor, Percent(c.Noise), c.measured())
	switch c.Source {
	case Ceiling:
		return fmt.Sprintf("the declared ceiling: %s is over it", noise)
	case Floor:
		return fmt.Sprintf("the floor: %s is under it", noise)
	case Measured:
		return noise
	}
	if c.Needed < 2 {
		return "declared"
	}
	return fmt.Sprintf("declared: fewer than %d unchanged measurements to calibrate it", c.Needed)
}

// measured says what measured the noise: "3 reruns and 10 results of the
// same binary and run".
func (c Calibration) measured() string { return c.measuredBy("results of the same binary and run") }

// measuredBy lists what measured the noise, the history's results named
// points.
func (c Calibration) measuredBy(points string) string {
	var parts []string
	if c.Reruns > 0 {
		parts = append(parts, fmt.Sprintf("%d reruns", c.Reruns))
	}
	if c.Sizes > 0 {
		parts = append(parts, fmt.Sprintf("the fit over %d sizes", c.Sizes))
	}
	if c.Points > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", c.Points, points))
	}
	return strings.Join(parts, " and ")
}

// Origin says where the threshold came from in the fewest words, for a
// line that names every gated figure of a benchmark (String has the
// numbers): "calibrated from 3 reruns and 10 history results", "the
// floor: what 3 reruns measured is under it", "the declared ceiling:
// what 3 reruns measured is over it", "the declared ceiling: too few
// unchanged measurements to calibrate it".
func (c Calibration) Origin() string {
	measured := c.measuredBy("history results")
	switch c.Source {
	case Ceiling:
		return "the declared ceiling: what " + measured + " measured is over it"
	case Floor:
		return "the floor: what " + measured + " measured is under it"
	case Measured:
		return "calibrated from " + measured
	}
	if c.Needed < 2 {
		return "the declared ceiling"
	}
	return "the declared ceiling: too few unchanged measurements to calibrate it"
}

// CalibrateGrowth sets a growth's threshold (JudgeGrowth) from the noise
// of the base's sweep, as Calibrate does a figure's: rule is the growth's
// as its base declares it, whose threshold is the ceiling; exact says
// whether the swept count is exact (the base's figure of that name).
//
// A sweep counts the figure once a size (result.Sweep holds no
// repetitions), so its noise is read from what there is: the residuals of
// the base's fit, GrowthSpread standard errors of the term JudgeGrowth
// compares (complexity.RelativeError), with at least as many residuals
// left as CalibrationRuns runs have (4 sizes for a fit of two terms and
// 3 runs); and the spread of that term in the history's recent sweeps of
// the base's identity, each fitted with the base's order, when there are
// CalibrationRuns of them at the base's sizes. The larger counts.
func (p Policy) CalibrateGrowth(rule Rule, exact bool, base result.Sweep, history []result.Sweep) (Rule, Calibration) {
	c := Calibration{Source: Declared, Ceiling: rule.Threshold, Floor: p.Floors.GrowthFloor(exact), Needed: p.CalibrationRuns}
	if p.NoiseFactor <= 0 || p.CalibrationRuns < 2 {
		return rule, c
	}
	sizes, counts := base.Sizes(), base.Values()
	fit, _, err := complexity.Best(sizes, counts)
	if err != nil {
		return rule, c // JudgeGrowth says why it cannot judge it
	}
	if rel, dof, err := complexity.RelativeError(fit, sizes, counts); err == nil && dof >= p.CalibrationRuns-1 {
		c.Noise, c.Sizes = GrowthSpread*rel, len(sizes)
	}
	var terms []float64
	for _, h := range history {
		if !slices.Equal(h.Sizes(), sizes) {
			continue
		}
		f, err := complexity.FitOrder(fit.Order, sizes, h.Values())
		if err != nil {
			continue
		}
		terms = append(terms, growingTerm(f))
	}
	if len(terms) >= p.CalibrationRuns && !slices.Contains(terms, 0) {
		c.Noise, c.Points = max(c.Noise, result.NewSample(terms).Spread()), len(terms)
	}
	return p.calibrated(rule, c)
}

// growingTerm is the term of a fit JudgeGrowth compares: the coefficient,
// or for O(1) the constant.
func growingTerm(f complexity.Fit) float64 {
	if f.Order == complexity.O1 {
		return f.Constant
	}
	return f.Coefficient
}
