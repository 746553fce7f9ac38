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
// Reruns of one binary do not see what moves between two builds of
// different code: where functions, data and heap blocks land (the
// layout) moves a program's cache misses by more than its reruns ever do
// (a neutral change moved C++ ll_misses 2.15%). So when the two sides are
// different binaries, the base's layout variants (its code built with
// other padding before its code, data and heap) calibrate the figures
// layout moves (result.MovedByLayout) too: LayoutFactor times the spread
// of the figure over the base and its variants is a threshold the
// figure's is never under, whatever its ceiling.
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
	// LayoutFactor: a figure's threshold between different binaries is
	// never under twice its layout noise, the spread of its medians over
	// the base and the base's layout variants. A neutral change's move is
	// one more draw from the same distribution of layouts, so twice the
	// largest spread the variants showed covers it. This term may exceed
	// the declared ceiling: the ceiling stops a change from loosening the
	// gate, and the layout noise is measured on the base's own code by the
	// base's tools, which a change cannot argue with.
	LayoutFactor = 2
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
// it: the base's runs, the medians of the history's recent results of
// the base's identity and environment key (tools/history's Recent), and
// its medians in the base's own count and in each layout variant of the
// base (Layout: the same code at other addresses), each nil when unknown.
// Layout calibrates only a comparison of two different binaries.
type Noise struct {
	Reruns  []float64
	History []float64
	Layout  []float64
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
	// Layout: LayoutFactor times the layout noise, the spread over the
	// base's layout variants, which was over what the others set (the
	// ceiling too).
	Layout ThresholdSource = "layout"
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
	// Layouts counts the builds of the base whose medians measured its
	// layout noise, LayoutNoise (the base and its layout variants; 0:
	// none); LayoutFactor is what multiplied it.
	Layouts      int     `json:"layouts,omitempty"`
	LayoutNoise  float64 `json:"layout_noise,omitempty"`
	LayoutFactor float64 `json:"layout_factor,omitempty"`
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
	rule, c = p.calibrated(rule, c)
	return p.layoutCalibrated(rule, c, noise.Layout)
}

// calibrated is rule with the threshold that c's noise sets, between its
// floor and its ceiling, when c measured any.
func (p Policy) calibrated(rule Rule, c Calibration) (Rule, Calibration) {
	if c.Reruns == 0 && c.Points == 0 && c.Sizes == 0 {
		return rule, c
	}
	c.Factor = p.NoiseFactor
	c.Source, rule.Threshold = c.bounded()
	return rule, c
}

// bounded is where the threshold comes from, and the threshold, by c's
// noise between its floor and its ceiling, leaving the layout noise out.
func (c Calibration) bounded() (ThresholdSource, float64) {
	if c.Reruns == 0 && c.Points == 0 && c.Sizes == 0 {
		return Declared, c.Ceiling
	}
	t := c.Factor * c.Noise
	switch {
	case max(t, c.Floor) >= c.Ceiling:
		return Ceiling, c.Ceiling
	case t <= c.Floor:
		return Floor, c.Floor
	}
	return Measured, t
}

// layoutCalibrated is rule with its threshold raised to LayoutFactor times
// the figure's layout noise, the spread of layout (its medians in the
// base and in the base's layout variants, 2 or more, all numbers), when
// that is more, even past the ceiling (Layout): the layout noise is the
// base's own code measured by the base's tools, and the ceiling is there
// to stop a change loosening the gate.
func (p Policy) layoutCalibrated(rule Rule, c Calibration, layout []float64) (Rule, Calibration) {
	if p.LayoutFactor <= 0 || len(layout) < 2 || slices.ContainsFunc(layout, func(x float64) bool { return !finite(x) }) {
		return rule, c
	}
	c.Layouts, c.LayoutNoise, c.LayoutFactor = len(layout), result.NewSample(layout).Spread(), p.LayoutFactor
	if t := p.LayoutFactor * c.LayoutNoise; t > rule.Threshold {
		c.Source, rule.Threshold = Layout, t
	}
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
	case Layout:
		return c.layoutText()
	}
	if c.Needed < 2 {
		return "declared"
	}
	return fmt.Sprintf("declared: fewer than %d unchanged measurements to calibrate it", c.Needed)
}

// layoutText is String of a threshold the layout noise set, and what the
// other measurements would have set: "layout variants: 2 × layout noise
// 1.5% of 6 builds of the base, over the floor 0.25% (5 × noise 0% of 3
// reruns is under it)".
func (c Calibration) layoutText() string {
	text := fmt.Sprintf("layout variants: %g × layout noise %s of %d builds of the base, over ", c.LayoutFactor, Percent(c.LayoutNoise), c.Layouts)
	without := c
	source, t := c.bounded()
	without.Source = source
	switch source {
	case Measured:
		return text + without.String() + " (" + Percent(t) + ")"
	case Declared:
		return text + "the declared " + Percent(t)
	}
	// The floor or the ceiling, and why.
	name, why, _ := strings.Cut(without.String(), ": ")
	return text + name + " " + Percent(t) + " (" + why + ")"
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
	case Layout:
		return fmt.Sprintf("calibrated from %d layout variants of the base: layout moves it %s", c.Layouts, Percent(c.LayoutNoise))
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
