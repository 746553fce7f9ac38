package result

import (
	"math"
	"slices"
)

// A Sample summarises repeated measurements of one figure: the lab's one
// summary of runs, and its one measure of their noise (Spread).
type Sample struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Runs   int     `json:"runs"`
}

// NewSample summarises values: the median is the mean of the middle two
// for an even number; the zero Sample for none.
func NewSample(values []float64) Sample {
	if len(values) == 0 {
		return Sample{}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return Sample{Median: median, Min: sorted[0], Max: sorted[n-1], Runs: n}
}

// Spread is the sample's noise: its range over its median's magnitude,
// 0.01 for 1%; 0 for fewer than two runs or a zero median.
func (s Sample) Spread() float64 {
	if s.Runs < 2 || s.Median == 0 {
		return 0
	}
	return (s.Max - s.Min) / math.Abs(s.Median)
}

// A FigureKey names a figure of a result: its name and unit (two figures
// of one result never share both).
type FigureKey struct{ Name, Unit string }
