package page

// Growth charts: how each benchmark's counted figure grows with its
// workload (its result's sweep), a small chart per benchmark drawn in the
// page by uPlot: the counts measured at each size as points, the fitted
// order as a curve through them.

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"havlak-lab/internal/uplot"
	"havlak-lab/tools/reporting/model"
)

// curveSteps is how many segments draw a fitted curve.
const curveSteps = 40

// A growthChart is what the page's script draws for one sweep.
type growthChart struct {
	ID        string `json:"id"`
	Benchmark string `json:"benchmark"`
	Figure    string `json:"figure"`
	Unit      string `json:"unit"`
	N         string `json:"n"`
	Order     string `json:"order"`
	// X are the sizes drawn: the sweep's and the curve's, in order;
	// Counts the measured count at each of the sweep's sizes (null
	// elsewhere), Fit the fitted count at every one.
	X      []float64  `json:"x"`
	Counts []*float64 `json:"counts"`
	Fit    []float64  `json:"fit"`
	// Caption is the fit in words, under the chart.
	Caption string `json:"-"`
}

// growthCharts lays out a study's growth charts; id is the study's.
func growthCharts(s model.Study, id string) []growthChart {
	var charts []growthChart
	for i, g := range s.GrowthRows() {
		c := growthChart{
			ID: fmt.Sprintf("growth%s-%d", id, i), Benchmark: g.Benchmark, Figure: g.Sweep.Figure,
			Unit: g.Sweep.Unit, N: g.Sweep.N, Order: string(g.Sweep.Fit.Order),
		}
		curve, _ := g.Curve(curveSteps)
		c.X = slices.Compact(slices.Sorted(slices.Values(slices.Concat(curve, g.Sweep.Sizes()))))
		for _, x := range c.X {
			c.Fit = append(c.Fit, g.Sweep.Fit.At(x))
			var measured *float64
			for _, p := range g.Sweep.Points {
				if p.N == x {
					v := p.Value
					measured = &v
				}
			}
			c.Counts = append(c.Counts, measured)
		}
		c.Caption = fmt.Sprintf("%s: %s, coefficient %s, RMS %s (next best %s, %s)",
			g.Sweep.Figure, g.Sweep.Fit.Order, g.CoefficientText(), model.RMSText(g.Sweep.Fit), g.Next.Order, model.RMSText(g.Next))
		if text := g.VerdictText(); text != "" {
			c.Caption += "; vs baseline " + text
		}
		charts = append(charts, c)
	}
	return charts
}

// growthScript is what draws the growth charts, once in the page: their
// data, uPlot (unless the trends carry it already) and the script.
type growthScript struct {
	Charts            []growthChart
	UPlot             template.JS // "" when the trends' copy serves
	UPlotStyle, Style template.CSS
	Script            template.JS
}

// newGrowthScript is the page's growth script, nil without charts.
func newGrowthScript(studies []studyView, withTrends bool) *growthScript {
	g := &growthScript{
		Style:  template.CSS(asset("growth.css")),
		Script: template.JS(asset("growth.js")),
	}
	for _, s := range studies {
		g.Charts = append(g.Charts, s.Growth...)
	}
	if len(g.Charts) == 0 {
		return nil
	}
	if !withTrends {
		// The licence goes with every copy of uPlot.
		g.UPlot = template.JS("/*! uPlot's licence:\n" + strings.ReplaceAll(uplot.License, "*/", "* /") + "*/\n" + uplot.Script)
		g.UPlotStyle = template.CSS(uplot.Style)
	}
	return g
}
