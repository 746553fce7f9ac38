package page

// Trend charts: each benchmark's figures over commits or nights, drawn in
// the page by uPlot (//internal/uplot, inlined so the page works
// offline). The report takes the series as they are given (--trends FILE):
// it neither stores history nor detects change points, so a page can be
// made from any source of history.

import (
	"fmt"
	"html/template"
	"strings"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/uplot"
	"havlak-lab/tools/result"
	"havlak-lab/tools/trends"
)

// A trendChart is what the page's script draws for one series.
type trendChart struct {
	ID        string          `json:"id"`
	Benchmark string          `json:"benchmark"`
	Figure    string          `json:"metric"`
	Unit      string          `json:"unit"`
	Commits   []string        `json:"commits"`
	Times     []int64         `json:"times"` // milliseconds since 1970
	Runs      []int           `json:"runs"`
	Median    []float64       `json:"median"`
	Min       []float64       `json:"min"`
	Max       []float64       `json:"max"`
	Links     []string        `json:"links"`
	Changes   []trends.Change `json:"changes"`
}

// A trendGroup is one benchmark's charts.
type trendGroup struct {
	Benchmark string
	Charts    []trendChart
}

// trendGroups groups the series by benchmark, in the order of the file.
func trendGroups(series []trends.Series) []trendGroup {
	var groups []trendGroup
	index := map[string]int{}
	for i, s := range series {
		c := trendChart{
			ID:        fmt.Sprintf("trend-%d", i),
			Benchmark: s.Benchmark,
			Figure:    s.Figure,
			Unit:      s.Unit,
			Changes:   s.ChangePoints,
		}
		if c.Changes == nil {
			c.Changes = []trends.Change{}
		}
		for _, p := range s.Points {
			sample := result.NewSample(p.Values)
			lo, median, hi := sample.Min, sample.Median, sample.Max
			c.Commits = append(c.Commits, p.Commit)
			c.Times = append(c.Times, p.Time.UnixMilli())
			c.Runs = append(c.Runs, len(p.Values))
			c.Median = append(c.Median, median)
			c.Min = append(c.Min, lo)
			c.Max = append(c.Max, hi)
			c.Links = append(c.Links, p.Profiles)
		}
		g, ok := index[s.Benchmark]
		if !ok {
			g = len(groups)
			index[s.Benchmark] = g
			groups = append(groups, trendGroup{Benchmark: s.Benchmark})
		}
		groups[g].Charts = append(groups[g].Charts, c)
	}
	return groups
}

// changeText says what a change point is, in words.
func changeText(c trends.Change) string {
	kind := "improvement"
	if c.Regression {
		kind = "regression"
	}
	return fmt.Sprintf("%+.1f%% (%s) between %s and %s", 100*c.Change, kind, gitwork.Short(c.From), gitwork.Short(c.To))
}

// trendsView is what the trends template shows: the charts, which its
// script draws from their data, and the change points in words.
type trendsView struct {
	Groups []trendGroup
	Charts []trendChart // the data of every chart, for the script
	UPlot  template.JS
	// UPlotStyle is uPlot's style sheet, Style the trend charts' own.
	UPlotStyle, Style template.CSS
	Script            template.JS
}

// newTrendsView lays out the trend charts; nil without trends.
func newTrendsView(series []trends.Series) *trendsView {
	if len(series) == 0 {
		return nil
	}
	v := &trendsView{
		Groups: trendGroups(series),
		// The licence goes with every copy of uPlot.
		UPlot:      template.JS("/*! uPlot's licence:\n" + strings.ReplaceAll(uplot.License, "*/", "* /") + "*/\n" + uplot.Script),
		UPlotStyle: template.CSS(uplot.Style),
		Style:      template.CSS(asset("trends.css")),
		Script:     template.JS(asset("trends.js")),
	}
	for _, g := range v.Groups {
		v.Charts = append(v.Charts, g.Charts...)
	}
	return v
}
