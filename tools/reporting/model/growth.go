package model

import (
	"fmt"
	"strings"

	"havlak-lab/internal/complexity"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// A GrowthRow is how one benchmark's counted figure grows with its
// workload (its result's sweep, tools/result), and the gate's verdict on
// it when compared.
type GrowthRow struct {
	Benchmark, Language string
	Sweep               result.Sweep
	// Next is the order that fits second best, to show how clear the
	// choice was.
	Next complexity.Fit
	// Verdict is the growth judged against the baseline's, or nil.
	Verdict *verdict.Verdict
}

// GrowthRows lists the study's sweeps, benchmark by benchmark.
func (s Study) GrowthRows() []GrowthRow {
	var rows []GrowthRow
	for _, row := range s.Rows {
		for _, sw := range row.Sweeps {
			g := GrowthRow{Benchmark: row.Name, Language: row.Language, Sweep: sw}
			if _, all, err := complexity.Best(sw.Sizes(), sw.Values()); err == nil {
				for _, f := range all {
					if f.Order != sw.Fit.Order && (g.Next.Order == "" || f.RMS < g.Next.RMS) {
						g.Next = f
					}
				}
			}
			if row.Compared != nil {
				for _, v := range row.Compared.Metrics {
					if v.Figure == sw.Figure+verdict.GrowthSuffix {
						g.Verdict = &v
					}
				}
			}
			rows = append(rows, g)
		}
	}
	return rows
}

// Figures of a growth row as text, the same in every format.

// SizesText is the sizes swept: "3,800, 7,600, 15,200, 30,400 loops found".
func (g GrowthRow) SizesText() string {
	var sizes []string
	for _, n := range g.Sweep.Sizes() {
		sizes = append(sizes, numfmt.Number(n))
	}
	return strings.Join(sizes, ", ") + " " + g.Sweep.N
}

// CoefficientText is the fit's coefficient, with the growth it
// multiplies: "3,077 × N", "–" for O(1).
func (g GrowthRow) CoefficientText() string {
	f := g.Sweep.Fit
	if f.Order == complexity.O1 {
		return "–"
	}
	growth := strings.TrimSuffix(strings.TrimPrefix(string(f.Order), "O("), ")")
	return fmt.Sprintf("%.4g × %s", f.Coefficient, growth)
}

// RMSText is an RMS error in percent.
func RMSText(f complexity.Fit) string { return fmt.Sprintf("%.3f%%", 100*f.RMS) }

// VerdictText is the growth against the baseline's: "" without one.
func (g GrowthRow) VerdictText() string {
	if g.Verdict == nil {
		return ""
	}
	v := *g.Verdict
	if v.Outcome == verdict.NotComparable {
		return "not compared: " + v.Reason
	}
	if v.Label() == "~" {
		return "~ (" + v.ChangeText(2) + ")"
	}
	return v.Label() + ": " + v.ChangeText(2)
}

// Curve is the fit drawn through the sweep's range: steps+1 sizes from
// the first to the last, and the fitted count at each.
func (g GrowthRow) Curve(steps int) (n, count []float64) {
	sizes := g.Sweep.Sizes()
	if len(sizes) == 0 || steps < 1 {
		return nil, nil
	}
	lo, hi := sizes[0], sizes[len(sizes)-1]
	for i := 0; i <= steps; i++ {
		x := lo + (hi-lo)*float64(i)/float64(steps)
		n = append(n, x)
		count = append(count, g.Sweep.Fit.At(x))
	}
	return n, count
}
