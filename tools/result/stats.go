package result

import "slices"

// MinMedianMax returns the smallest, the median and the largest of values
// (the mean of the middle two for an even number), or zeros for none.
func MinMedianMax(values []float64) (lo, median, hi float64) {
	if len(values) == 0 {
		return 0, 0, 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	median = sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return sorted[0], median, sorted[n-1]
}

// Spread is the noise of repeated measurements: their range over their
// median, 0.01 for 1%; 0 for fewer than two or a zero median.
func Spread(values []float64) float64 {
	lo, median, hi := MinMedianMax(values)
	if len(values) < 2 || median == 0 {
		return 0
	}
	return (hi - lo) / median
}
