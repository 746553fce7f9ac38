package markdown

import (
	"fmt"
	"io"

	md "havlak-lab/internal/markdown"
	"havlak-lab/tools/reporting/model"
)

// writeGrowth writes each study's sweeps: how its benchmarks' counted
// figures grow with the workload, the order fitted, its coefficient and
// RMS error, and the verdict against the baseline's.
func writeGrowth(w io.Writer, r *model.Report) {
	header := false
	for _, s := range r.Studies {
		rows := s.GrowthRows()
		if len(rows) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\n## How cost grows")
			fmt.Fprintln(w, "\nEach benchmark counted under Cachegrind at several workload sizes N, once a size; the order is the best least-squares fit of count = constant + coefficient × f(N) among O(1), O(N), O(N log N), O(N^2) and O(N^3), by RMS error (over the mean count). The gate fails a higher order, or a coefficient worse than the threshold (docs/regressions.md).")
			header = true
		}
		fmt.Fprintf(w, "\n**%s**\n\n| benchmark | figure | sizes N | order | coefficient | constant | RMS | next best | gate |", md.Escape(s.Title))
		columns := "|---|---|---|---|---:|---:|---:|---|---|"
		if r.Baseline != "" {
			fmt.Fprint(w, " vs baseline |")
			columns += "---|"
		}
		fmt.Fprintf(w, "\n%s\n", columns)
		for _, g := range rows {
			f := g.Sweep.Fit
			gate := "shown"
			if g.Sweep.Gated {
				gate = fmt.Sprintf("gated, %.1f%%", 100*g.Sweep.Threshold)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.4g | %s | %s %s | %s |", md.Escape(g.Benchmark), md.Escape(g.Sweep.Figure),
				md.Escape(g.SizesText()), f.Order, g.CoefficientText(), f.Constant, model.RMSText(f), g.Next.Order, model.RMSText(g.Next), gate)
			if r.Baseline != "" {
				fmt.Fprintf(w, " %s |", compareCell(g.VerdictText()))
			}
			fmt.Fprintln(w)
		}
	}
}
