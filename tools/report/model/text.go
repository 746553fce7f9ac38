package model

import (
	"fmt"

	"havlak-lab/tools/result"
)

// The figures as text, the same in every format.

// Seconds is a time's median and range: "0.51 (0.49–0.62)".
func Seconds(s result.Sample) string {
	if s.Runs == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", s.Median, s.Min, s.Max)
}

// Mebibytes is a memory size's median and range: "45 (44–48)".
func Mebibytes(s result.Sample) string {
	if s.Runs == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", s.Median, s.Min, s.Max)
}

// Ratio is a speed-up or a pair's ratio, "" for none.
func Ratio(x float64) string {
	if x == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", x)
}

// Millis shows a latency in milliseconds.
func Millis(seconds float64) string { return fmt.Sprintf("%.3f", seconds*1e3) }
