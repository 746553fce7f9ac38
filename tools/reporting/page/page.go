// Package page renders the report's model as index.html: a self-contained
// page (it works offline, from file://) with each study's table and bar
// charts, the servers' tables, the regressions' profile diffs and the
// trend charts. Its HTML templates, style sheets and scripts are the files
// under assets/, embedded; this package fills the templates.
package page

import (
	"embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/reporting/model"
)

//go:embed assets
var assets embed.FS

// asset is an embedded file's content.
func asset(name string) string {
	data, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded: it is there
	}
	return string(data)
}

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"ratio":   model.Ratio,
	"stage":   nightdir.Stage,
	"change":  changeText,
	"studyID": studyID,
	// Contention's text marks functions as Markdown code; the page shows
	// them plain.
	"plain": func(s string) string { return strings.ReplaceAll(s, "`", "") },
	// An SVG length, in pixels.
	"px": func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) },
}).ParseFS(assets, "assets/*.html"))

// view is what the page's template shows: the report, with each study's
// charts and the page's style and script.
type view struct {
	*model.Report
	Studies []studyView
	Legend  []legendEntry
	Trends  *trendsView // nil without trends
	Style   template.CSS
	Script  template.JS
	// Growth draws the studies' growth charts; nil without any.
	Growth *growthScript
}

// A studyView is a study with its id in the page and its charts.
type studyView struct {
	model.Study
	ID     string
	Charts []barChart
	Growth []growthChart
}

// Write writes index.html, which links to each stage's graphs under
// stages/NAME/.
//
// html/template escapes what HTML would take as markup, but passes a
// control character (ESC), a C1 control (U+009B) or a bidi override
// (U+202E) from a result as it is: the page goes through cli.Printable,
// which shows each as an escape (\x1b, \u202e). That is visible text in
// the page's HTML, and in its scripts' strings the same character (JSON
// and JavaScript read \u202e as U+202E); the page's own files hold none.
func Write(w io.Writer, r *model.Report) error {
	v := view{
		Report: r,
		Legend: legend(r.Rows),
		Trends: newTrendsView(r.Trends),
		Style:  template.CSS(asset("report.css")),
		Script: template.JS(asset("report.js")),
	}
	classes := languageClasses(r.Rows)
	for _, s := range r.Studies {
		id := studyID(s.Title)
		v.Studies = append(v.Studies, studyView{Study: s, ID: id, Charts: studyCharts(s, classes), Growth: growthCharts(s, id)})
	}
	v.Growth = newGrowthScript(v.Studies, v.Trends != nil)
	var page strings.Builder
	if err := templates.ExecuteTemplate(&page, "index.html", v); err != nil {
		return err
	}
	_, err := io.WriteString(w, cli.Printable(page.String()))
	return err
}

// studyID is a name for a study's elements in the page, made of its title:
// "-havlak-loop-finding".
func studyID(title string) string {
	var id strings.Builder
	for _, c := range strings.ToLower(title) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			id.WriteRune(c)
		case id.Len() > 0 && !strings.HasSuffix(id.String(), "-"):
			id.WriteByte('-')
		}
	}
	return "-" + strings.TrimSuffix(id.String(), "-")
}
