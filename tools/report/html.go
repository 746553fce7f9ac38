package main

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// A bar of a chart, with its width on a linear and on a log scale.
type bar struct {
	Label, Value, Class string
	Y                   int
	Linear, Log         float64 // widths in pixels
}

// Chart geometry, in SVG pixels.
const (
	chartLabelWidth = 150
	chartBarArea    = 520
	chartValueWidth = 110
	chartRow        = 24
)

// barChart renders one bar per value as an inline SVG, both scales in the
// bars' data attributes; the page's script switches between them.
func barChart(id, title string, labels, values []string, numbers []float64, classes []string) template.HTML {
	lo, hi := math.Inf(1), 0.0
	for _, v := range numbers {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	// The log scale starts at half the smallest value, so that its bar
	// shows too.
	logLo := math.Log(lo / 2)
	var bars []bar
	for i, v := range numbers {
		b := bar{Label: labels[i], Value: values[i], Class: classes[i], Y: 30 + i*chartRow}
		if v > 0 && hi > 0 {
			b.Linear = chartBarArea * v / hi
			b.Log = chartBarArea * (math.Log(v) - logLo) / (math.Log(hi) - logLo)
		}
		bars = append(bars, b)
	}
	height := 40 + len(bars)*chartRow
	width := chartLabelWidth + chartBarArea + chartValueWidth
	var s strings.Builder
	fmt.Fprintf(&s, `<svg id="%s" class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		id, width, height, width, height, template.HTMLEscapeString(title))
	fmt.Fprintf(&s, `<text x="0" y="16" class="title">%s</text>`, template.HTMLEscapeString(title))
	for _, b := range bars {
		fmt.Fprintf(&s, `<g class="row"><text x="%d" y="%d" text-anchor="end" class="label">%s</text>`,
			chartLabelWidth-8, b.Y+15, template.HTMLEscapeString(b.Label))
		fmt.Fprintf(&s, `<rect class="bar %s" x="%d" y="%d" height="%d" width="%.1f" data-linear="%.1f" data-log="%.1f"><title>%s: %s</title></rect>`,
			b.Class, chartLabelWidth, b.Y+2, chartRow-6, b.Linear, b.Linear, b.Log,
			template.HTMLEscapeString(b.Label), template.HTMLEscapeString(b.Value))
		fmt.Fprintf(&s, `<text class="value" x="%.1f" y="%d" data-linear="%.1f" data-log="%.1f">%s</text></g>`,
			float64(chartLabelWidth)+b.Linear+6, b.Y+15, float64(chartLabelWidth)+b.Linear+6,
			float64(chartLabelWidth)+b.Log+6, template.HTMLEscapeString(b.Value))
	}
	s.WriteString("</svg>")
	return template.HTML(s.String())
}

// languageClass is the CSS class of a language's bars: its place among the
// report's languages.
type languageClass map[string]string

func (r *Report) languageClasses() languageClass {
	classes := languageClass{}
	for _, row := range r.Rows {
		if _, ok := classes[row.Language]; !ok {
			classes[row.Language] = fmt.Sprintf("lang-%d", len(classes)%len(languageColors))
		}
	}
	return classes
}

// languageColors are the bars' colours, by language in order of first
// appearance.
var languageColors = []string{"#00add8", "#f34b7d", "#7b5ea7", "#e3a21a"}

// A LegendEntry is a language and the colour of its bars.
type LegendEntry struct{ Language, Color string }

// Legend lists the report's languages with their colours.
func (r *Report) Legend() []LegendEntry {
	var legend []LegendEntry
	seen := map[string]bool{}
	for _, row := range r.Rows {
		if !seen[row.Language] {
			seen[row.Language] = true
			legend = append(legend, LegendEntry{row.Language, languageColors[len(legend)%len(languageColors)]})
		}
	}
	return legend
}

// studyCharts draws a study's charts: real time and max RSS per benchmark
// and, when it has benchmarks with counterparts, each pair side by side.
func (r *Report) studyCharts(s Study) template.HTML {
	class := r.languageClasses()
	var labels, times, rsses, classes []string
	var timeValues, rssValues []float64
	for _, row := range s.Rows {
		labels = append(labels, row.Name)
		times = append(times, fmt.Sprintf("%.2f s", row.Real.Median))
		rsses = append(rsses, fmt.Sprintf("%.0f MiB", row.MaxRSS.Median))
		timeValues = append(timeValues, row.Real.Median)
		rssValues = append(rssValues, row.MaxRSS.Median)
		classes = append(classes, class[row.Language])
	}
	charts := barChart("chart-time"+s.ID(), "Real time (median, seconds)", labels, times, timeValues, classes) +
		barChart("chart-rss"+s.ID(), "Maximum RSS (median, MiB)", labels, rsses, rssValues, classes)
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
			for _, r := range []*Row{row, other} {
				labels = append(labels, fmt.Sprintf("%s (%s)", r.Name, r.Language))
				times = append(times, fmt.Sprintf("%.2f s", r.Real.Median))
				timeValues = append(timeValues, r.Real.Median)
				classes = append(classes, class[r.Language])
			}
		}
	}
	return charts + barChart("chart-pairs"+s.ID(), header+", stage by stage (median real time, seconds)", labels, times, timeValues, classes)
}

var page = template.Must(template.New("index.html").Funcs(template.FuncMap{
	"seconds":   seconds,
	"mebibytes": mebibytes,
	"ratio":     ratio,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>havlak-lab results</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; }
.note { color: #555; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.text { text-align: left; }
tr.regressed td { background: #fde2e2; }
.chart { display: block; margin: 1.5em 0; font-size: 13px; }
.chart .title { font-weight: bold; font-size: 14px; }
.bar.lang-0 { fill: #00add8; }
.bar.lang-1 { fill: #f34b7d; }
.bar.lang-2 { fill: #7b5ea7; }
.bar.lang-3 { fill: #e3a21a; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
ul.problems { color: #a00; }
</style>
</head>
<body>
<h1>havlak-lab results</h1>
<p class="note">{{.WorkloadNote}}
{{.EnvironmentText}}
{{with .Started}}First run {{.}}.{{end}}</p>

<p class="legend"><label><input type="checkbox" id="log-scale"> log scale</label>
{{range .Legend}}<span style="background:{{.Color}}"></span>{{.Language}} {{end}}</p>

{{range .Studies}}{{$study := .}}
<h2>{{.Title}}</h2>
<div class="wide"><table id="results{{.ID}}">
<thead><tr><th>benchmark</th><th>language</th><th>real s, median (min–max)</th><th>user s</th><th>sys s</th><th>max RSS MiB</th><th>{{.SpeedUpHeader}}</th>{{with .PairHeader}}<th>{{.}}</th>{{end}}{{if $.Baseline}}<th>vs baseline</th>{{end}}<th>profiles</th></tr></thead>
<tbody>
{{range .Rows}}{{$row := .}}<tr data-stage="{{.Name}}"{{if and .Compared .Compared.Regressed}} class="regressed"{{end}}>
<td>{{.Name}}</td><td class="text">{{.Language}}</td><td>{{seconds .Real}}</td><td>{{seconds .User}}</td><td>{{seconds .Sys}}</td><td>{{mebibytes .MaxRSS}}</td><td>{{ratio .SpeedUp}}</td>{{if $study.PairHeader}}<td>{{ratio .PairRatio}}</td>{{end}}{{if $.Baseline}}<td class="text">{{.CompareText}}</td>{{end}}
<td class="text">{{if .CPU}}<a href="stages/{{.Name}}/flame.svg">flame</a>{{end}}{{range $file, $_ := .Graphs}} · <a href="stages/{{$row.Name}}/{{$file}}">{{$file}}</a>{{end}}</td></tr>
{{end}}</tbody>
</table></div>
{{with .MetricRows}}<details><summary>Low-noise figures</summary>
<div class="wide"><table class="metrics">
<thead><tr><th>benchmark</th><th>figure</th><th>median</th><th>min–max</th><th>spread</th><th>runs</th><th>gate</th><th>source</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Benchmark}}</td><td class="text">{{.Metric.Name}}</td>{{if .Unavailable}}<td class="text" colspan="6">unavailable: {{.Unavailable}}</td>{{else}}<td>{{.Value .Median}} {{.Metric.Unit}}</td><td>{{.Value .Min}}–{{.Value .Max}}</td><td>{{.SpreadText}}</td><td>{{len .Metric.Values}}</td><td class="text">{{.Gate}}</td><td class="text">{{.Metric.Source}}</td>{{end}}</tr>
{{end}}</tbody></table></div></details>{{end}}
{{$.Charts .}}
{{end}}
{{.ServerSections}}
{{.ProfileDiffSections}}
{{.TrendSection}}
<p class="note">Speed-up: the median real time of the benchmark's reference (named in the column) over its own. A ratio of two languages (Go / C++): the first's median real time over its counterpart's in the second.{{if .Baseline}} Baseline: {{.Baseline}}.{{end}}</p>

{{if .Problems}}<h2>Problems</h2>
<ul class="problems">{{range .Problems}}<li>{{.}}</li>{{end}}</ul>{{end}}

<script>
// Switches the charts between their linear and log scales.
document.getElementById("log-scale").addEventListener("change", function (event) {
  var scale = event.target.checked ? "log" : "linear";
  document.querySelectorAll(".chart .bar").forEach(function (bar) {
    bar.setAttribute("width", bar.dataset[scale]);
  });
  document.querySelectorAll(".chart .value").forEach(function (value) {
    value.setAttribute("x", value.dataset[scale]);
  });
});
</script>
</body>
</html>
`))

// WriteHTML writes index.html, which links to each stage's graphs under
// stages/NAME/.
func (r *Report) WriteHTML(w io.Writer) error {
	return page.Execute(w, r)
}

// Charts draws a study's charts, for the page's template.
func (r *Report) Charts(s Study) template.HTML { return r.studyCharts(s) }
