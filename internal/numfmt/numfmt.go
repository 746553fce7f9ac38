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

// Share is part as a whole percentage of total ("97%"), "<1%" for a part
// that rounds to none, negative when part moved against total; "" when
// either is zero.
func Share(part, total int64) string {
	if part == 0 || total == 0 {
		return ""
	}
	p := math.Round(100 * float64(part) / float64(total))
	switch {
	case p == 0 && (part < 0) != (total < 0):
		return "-<1%"
	case p == 0:
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// Cut is text made valid UTF-8 and cut to n runes, "…" marking the cut:
// a name or message from a result, kept short where it is printed.
func Cut(text string, n int) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	if r := []rune(text); len(r) > n {
		return string(r[:n]) + "…"
	}
	return text
}

// Signed is a count's change with its sign: "+1,231,721", "-533", "0".
func Signed(v int64) string {
	if v > 0 {
		return "+" + Number(float64(v))
	}
	return Number(float64(v))
}
