package model

import "fmt"

// The figures as text, the same in every format.

// Ratio is a speed-up or a pair's ratio, "" for none.
func Ratio(x float64) string {
	if x == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", x)
}

// Range is the cell's median and range, as a program's table shows it:
// "0.51 (0.49–0.62)"; "–" without values.
func (c Cell) Range() string {
	if c.Runs == 0 {
		return "–"
	}
	d := c.Column.Digits
	return fmt.Sprintf("%.*f (%.*f–%.*f)", d, c.Median, d, c.Min, d, c.Max)
}

// Value is the cell's median alone, as a server's table shows it; "–"
// without values.
func (c Cell) Value() string {
	if c.Runs == 0 {
		return "–"
	}
	return fmt.Sprintf("%.*f", c.Column.Digits, c.Median)
}
