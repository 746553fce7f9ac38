package page

import (
	"fmt"
	"math"

	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
)

// Chart geometry, in SVG pixels.
const (
	chartLabelWidth = 150
	chartBarArea    = 520
	chartValueWidth = 110
	chartRow        = 24
)

// A barChart is one bar per value, drawn by the bar-chart template with
// both scales in the bars' data attributes; the page's script switches
// between them.
type barChart struct {
	ID, Title     string
	Width, Height int
	Bars          []bar
}

// A bar of a chart, with its width on a linear and on a log scale, and
// where its value's text goes on each.
type bar struct {
	Label, Value, Class   string
	LabelX, TextY         int
	BarX, BarY, BarHeight int
	Linear, Log           float64 // widths in pixels
	ValueLinear, ValueLog float64
}

// newBarChart lays out one bar per value.
func newBarChart(id, title string, labels, values []string, numbers []float64, classes []string) barChart {
	lo, hi := math.Inf(1), 0.0
	for _, v := range numbers {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	// The log scale starts at half the smallest value, so that its bar
	// shows too.
	logLo := math.Log(lo / 2)
	c := barChart{ID: id, Title: title, Width: chartLabelWidth + chartBarArea + chartValueWidth, Height: 40 + len(numbers)*chartRow}
	for i, v := range numbers {
		y := 30 + i*chartRow
		b := bar{Label: labels[i], Value: values[i], Class: classes[i],
			LabelX: chartLabelWidth - 8, TextY: y + 15, BarX: chartLabelWidth, BarY: y + 2, BarHeight: chartRow - 6}
		if v > 0 && hi > 0 {
			b.Linear = chartBarArea * v / hi
			b.Log = chartBarArea * (math.Log(v) - logLo) / (math.Log(hi) - logLo)
		}
		b.ValueLinear = float64(chartLabelWidth) + b.Linear + 6
		b.ValueLog = float64(chartLabelWidth) + b.Log + 6
		c.Bars = append(c.Bars, b)
	}
	return c
}

// languageColors are the bars' colours, by language in order of first
// appearance; the style sheet gives the classes lang-0 to lang-3 the same.
var languageColors = []string{"#00add8", "#f34b7d", "#7b5ea7", "#e3a21a"}

// languageClasses gives each language its bars' CSS class: its place
// among the report's languages.
func languageClasses(rows []*model.Row) map[string]string {
	classes := map[string]string{}
	for _, row := range rows {
		if _, ok := classes[row.Language]; !ok {
			classes[row.Language] = fmt.Sprintf("lang-%d", len(classes)%len(languageColors))
		}
	}
	return classes
}

// A legendEntry is a language and the colour of its bars.
type legendEntry struct{ Language, Color string }

// legend lists the report's languages with their colours.
func legend(rows []*model.Row) []legendEntry {
	var entries []legendEntry
	seen := map[string]bool{}
	for _, row := range rows {
		if !seen[row.Language] {
			seen[row.Language] = true
			entries = append(entries, legendEntry{row.Language, languageColors[len(entries)%len(languageColors)]})
		}
	}
	return entries
}

// studyCharts lays out a study's charts: real time and max RSS per
// benchmark and, when it has benchmarks with counterparts, each pair side
// by side.
func studyCharts(s model.Study, class map[string]string) []barChart {
	var labels, times, rsses, classes []string
	var timeValues, rssValues []float64
	for _, row := range s.Rows {
		labels = append(labels, row.Name)
		times = append(times, fmt.Sprintf("%.2f s", row.Real.Median))
		rss := row.Cell(result.FigureMaxRSSKiB).Median // MiB, as its column shows it
		rsses = append(rsses, fmt.Sprintf("%.0f MiB", rss))
		timeValues = append(timeValues, row.Real.Median)
		rssValues = append(rssValues, rss)
		classes = append(classes, class[row.Language])
	}
	id := studyID(s.Title)
	charts := []barChart{
		newBarChart("chart-time"+id, "Real time (median, seconds)", labels, times, timeValues, classes),
		newBarChart("chart-rss"+id, "Maximum RSS (median, MiB)", labels, rsses, rssValues, classes),
	}
	header := s.PairHeader()
	if header == "" {
		return charts
	}

	// Each pair side by side, in the order of its first benchmark.
	labels, times, classes, timeValues = nil, nil, nil, nil
	for i, row := range s.Rows {
		for _, other := range s.Rows[i+1:] {
			if row.PairRatio == 0 || other.Name != row.Counterpart {
				continue
			}
			for _, r := range []*model.Row{row, other} {
				labels = append(labels, fmt.Sprintf("%s (%s)", r.Name, r.Language))
				times = append(times, fmt.Sprintf("%.2f s", r.Real.Median))
				timeValues = append(timeValues, r.Real.Median)
				classes = append(classes, class[r.Language])
			}
		}
	}
	return append(charts, newBarChart("chart-pairs"+id, header+", stage by stage (median real time, seconds)", labels, times, timeValues, classes))
}
