// Package changepoint finds the points where a benchmark's history shifts,
// slow creep included, with Apache Otava's E-divisive change-point detection
// (the windowed variant of Fleming et al., "Hunter", ICPE 2023), and says
// which of them are regressions.
//
// A Series is one benchmark, metric and environment over time: a Point per
// night or commit, whose Value is the median of that night's runs. Detect
// runs Otava's own command (`otava analyze`, installed by
// `tools/ci/tools.sh otava`) once for any number of series and returns, for
// each, the change points Otava reports: where (the index of the first point
// after the shift, and so the commit range from the last point before it),
// by how much (Otava's means of the stable stretches on either side), how
// surely (Otava's t-test p-value), and whether it is a regression given the
// metric's Direction.
//
// Which part of a series the nightly job searches (its newest
// SearchedPoints, from the level a trailer accepted on, and whether again
// without tonight's point) is NightWindow's policy, here beside the search.
//
// The package knows no database and no result format: the caller builds the
// series (tools/history, the nightly job, the changepoint command).
package changepoint

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"
)

// Direction says which way a metric gets better.
type Direction int

const (
	// LowerIsBetter: time, instructions, bytes, allocations.
	LowerIsBetter Direction = iota + 1
	// HigherIsBetter: throughput.
	HigherIsBetter
)

func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// ParseDirection reads "lower" or "higher" (is better).
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "lower":
		return LowerIsBetter, nil
	case "higher":
		return HigherIsBetter, nil
	}
	return 0, fmt.Errorf("direction %q: want lower or higher (is better)", s)
}

// MarshalText writes a Direction as ParseDirection reads it.
func (d Direction) MarshalText() ([]byte, error) {
	if d != LowerIsBetter && d != HigherIsBetter {
		return nil, fmt.Errorf("invalid direction %d", int(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads "lower" or "higher".
func (d *Direction) UnmarshalText(text []byte) error {
	parsed, err := ParseDirection(string(text))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// A Point is one measurement in a series.
type Point struct {
	// ID names what was measured: a commit, or a night's run.
	ID string `json:"id"`
	// Time orders the points; Otava needs one for each.
	Time time.Time `json:"time"`
	// Value is the median of that point's runs.
	Value float64 `json:"value"`
}

// A Series is one benchmark's metric in one environment, oldest point first.
type Series struct {
	// Name names the series in errors and output, e.g.
	// "havlak6 own_instructions linux-amd64".
	Name      string    `json:"name"`
	Direction Direction `json:"direction"`
	Points    []Point   `json:"points"`
}

// Options are Otava's analysis parameters (docs/regressions.md says why
// these defaults).
type Options struct {
	// Otava is the path of Otava's command, as `tools/ci/tools.sh otava`
	// prints it.
	Otava string
	// Window is how many points Otava's E-divisive looks at at once
	// (otava analyze --window).
	Window int
	// MaxPValue is the largest p-value of a change point Otava keeps
	// (otava analyze -P).
	MaxPValue float64
	// MinMagnitude is the smallest relative change of a change point Otava
	// keeps (otava analyze -M): 0.01 is 1%.
	MinMagnitude float64
}

// Defaults for Options: see docs/regressions.md, "Change points".
const (
	DefaultWindow       = 50
	DefaultMaxPValue    = 0.0001
	DefaultMinMagnitude = 0.01
)

// DefaultOptions are the lab's parameters, with Otava at path otava.
func DefaultOptions(otava string) Options {
	return Options{Otava: otava, Window: DefaultWindow, MaxPValue: DefaultMaxPValue, MinMagnitude: DefaultMinMagnitude}
}

// A ChangePoint is a shift of a series found by Otava.
type ChangePoint struct {
	// Index is the first point after the shift: the change came in with a
	// commit after Before.ID, up to and including After.ID.
	Index  int   `json:"index"`
	Before Point `json:"before"`
	After  Point `json:"after"`
	// MeanBefore and MeanAfter are the means of the stable stretches on
	// either side: from the previous change point (or the start) to this
	// one, and from this one to the next (or the end).
	MeanBefore float64 `json:"mean_before"`
	MeanAfter  float64 `json:"mean_after"`
	// Change is MeanAfter/MeanBefore - 1: +0.03 is 3% more (0 when
	// MeanBefore is 0).
	Change float64 `json:"change"`
	// Regression: the change is for the worse, given the series' Direction.
	Regression bool `json:"regression"`
	// Otava is what Otava said of this change point.
	Otava OtavaStats `json:"otava"`
}

// OtavaStats are Otava's statistics of a change point, as it prints them
// (6 decimals). Otava 0.8.0 computes them on the stretches around the point
// while it merges its candidates, and after dropping a candidate it updates
// the points after it but not the one before: that point's MeanAfter,
// StddevAfter and PValue may describe a shorter stretch than the final one
// (ChangePoint.MeanAfter is the final one's). MeanBefore is always right.
type OtavaStats struct {
	MeanBefore   float64 `json:"mean_before"`
	MeanAfter    float64 `json:"mean_after"`
	StddevBefore float64 `json:"stddev_before"`
	StddevAfter  float64 `json:"stddev_after"`
	// PValue is Otava's two-sided t-test of the two stretches; 0 means
	// below 0.0000005.
	PValue float64 `json:"p_value"`
}

// A Result is the change points of one series, oldest first.
type Result struct {
	Series       string        `json:"series"`
	Direction    Direction     `json:"direction"`
	ChangePoints []ChangePoint `json:"change_points"`
}

// Regressions are the change points that are regressions.
func (r Result) Regressions() []ChangePoint {
	var out []ChangePoint
	for _, cp := range r.ChangePoints {
		if cp.Regression {
			out = append(out, cp)
		}
	}
	return out
}

func (o Options) check() error {
	if o.Otava == "" {
		return errors.New("no Otava command: pass the path that `tools/ci/tools.sh otava` prints")
	}
	info, err := os.Stat(o.Otava)
	if err != nil {
		return fmt.Errorf("Otava command %s: %w (install it with `tools/ci/tools.sh otava`, which prints its path)", o.Otava, err)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("Otava command %s is not an executable file (`tools/ci/tools.sh otava` prints the right path)", o.Otava)
	}
	if o.Window < 2 {
		return fmt.Errorf("window %d: Otava needs at least 2 points a window", o.Window)
	}
	if !(o.MaxPValue > 0 && o.MaxPValue <= 1) {
		return fmt.Errorf("maximum p-value %v: want one in (0, 1]", o.MaxPValue)
	}
	if !(o.MinMagnitude >= 0) || math.IsInf(o.MinMagnitude, 0) {
		return fmt.Errorf("minimum magnitude %v: want a relative change ≥ 0, e.g. 0.01 for 1%%", o.MinMagnitude)
	}
	return nil
}

func (s Series) check() error {
	if s.Name == "" {
		return errors.New("a series has no name")
	}
	if s.Direction != LowerIsBetter && s.Direction != HigherIsBetter {
		return fmt.Errorf("series %s: no direction (lower or higher is better)", s.Name)
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("series %s: no points", s.Name)
	}
	for i, p := range s.Points {
		where := fmt.Sprintf("series %s: point %d (%s)", s.Name, i, p.ID)
		switch {
		case p.ID == "":
			return fmt.Errorf("series %s: point %d has no id (a commit or run)", s.Name, i)
		case p.Time.IsZero():
			return fmt.Errorf("%s has no time", where)
		case p.Time.Unix() <= -1e10 || p.Time.Unix() >= 1e10:
			return fmt.Errorf("%s at %s: want a time within 10 digits of Unix seconds of 1970 (1653 to 2286)", where, p.Time.Format(time.RFC3339))
		case math.IsNaN(p.Value) || math.IsInf(p.Value, 0):
			return fmt.Errorf("%s: value is %v", where, p.Value)
		case i > 0 && p.Time.Before(s.Points[i-1].Time):
			return fmt.Errorf("%s at %s comes before point %d (%s) at %s: points must be oldest first",
				where, p.Time.Format(time.RFC3339), i-1, s.Points[i-1].ID, s.Points[i-1].Time.Format(time.RFC3339))
		}
	}
	return nil
}
