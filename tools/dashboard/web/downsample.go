package web

import (
	"strconv"
)

// maxPoints is the most points /api/series sends of a series: more than a
// chart is wide. A page asks for fewer with width, its chart's width in
// pixels: two points a pixel column.
const maxPoints = 2000

// pointsFor is how many points a chart width (the width parameter, ""
// for none) draws.
func pointsFor(width string) int {
	w, err := strconv.Atoi(width)
	if err != nil || w < 1 || 2*w > maxPoints {
		return maxPoints
	}
	return 2 * w
}

// downsample returns at most n of the points (in time order, n ≥ 2): the
// time they span cut into n/2 buckets of equal length, and of each bucket
// the point of the lowest median and the point of the highest, in time
// order, so that a spike or a dip of one night is still drawn. At most n
// points come back as they are.
func downsample(points []point, n int) []point {
	if len(points) <= n {
		return points
	}
	buckets := n / 2
	first, last := points[0].Time, points[len(points)-1].Time
	span := last.Sub(first)
	out := make([]point, 0, n)
	lo, hi, current := -1, -1, -1
	flush := func() {
		switch {
		case lo < 0:
		case lo == hi:
			out = append(out, points[lo])
		case lo < hi:
			out = append(out, points[lo], points[hi])
		default:
			out = append(out, points[hi], points[lo])
		}
	}
	for i, p := range points {
		b := buckets - 1 // the last point's, and every point's of a series of one time
		if span > 0 {
			b = min(b, int(float64(p.Time.Sub(first))/float64(span)*float64(buckets)))
		}
		if b != current {
			flush()
			lo, hi, current = i, i, b
			continue
		}
		if p.Median < points[lo].Median {
			lo = i
		}
		if p.Median > points[hi].Median {
			hi = i
		}
	}
	flush()
	return out
}
