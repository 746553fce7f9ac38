package verdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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
)

// LabFloors are the lab's floors.
var LabFloors = Floors{ExactCount: ExactCountFloor, Count: CountFloor, Timing: TimingFloor, Memory: MemoryFloor,
	SampledTiming: TimingFloor}

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
	// that calibrated it (0: too few to).
	Reruns int `json:"reruns,omitempty"`
	Points int `json:"points,omitempty"`
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
	if c.Reruns == 0 && c.Points == 0 {
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
	var measured string
	switch {
	case c.Reruns > 0 && c.Points > 0:
		measured = fmt.Sprintf("%d reruns and %d results of the same binary and run", c.Reruns, c.Points)
	case c.Reruns > 0:
		measured = fmt.Sprintf("%d reruns", c.Reruns)
	default:
		measured = fmt.Sprintf("%d results of the same binary and run", c.Points)
	}
	noise := fmt.Sprintf("%g × noise %s of %s", c.Factor, Percent(c.Noise), measured)
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
