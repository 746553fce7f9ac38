// Package numfmt formats the lab's figures for people: one way, in every
// table, comment, page and log line that shows a figure.
package numfmt

import (
	"fmt"
	"math"
	"strings"
)

// Number formats a figure: whole, with thousands separators, from 1,000
// on (a count); four significant digits below, unless whole.
func Number(x float64) string {
	if math.Abs(x) < 1000 && x != math.Trunc(x) || math.Abs(x) >= 1e18 {
		return fmt.Sprintf("%.4g", x)
	}
	s := fmt.Sprintf("%.0f", math.Abs(math.Round(x)))
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
