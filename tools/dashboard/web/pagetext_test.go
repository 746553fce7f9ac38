package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/result"
)

// pageText changes a page's text only: not its tags' attributes, nor a
// script, a style or a comment, whatever their case or the quotes in them.
func TestPageText(t *testing.T) {
	upper := func(s string) string { return strings.ToUpper(s) }
	for in, want := range map[string]string{
		"a <b>b</b> c": "A <b>B</b> C",
		`<option value="x>y" title='p>q'>label</option>`:              `<option value="x>y" title='p>q'>LABEL</option>`,
		"<script src=x>if (a < b) c()</script>d":                      "<script src=x>if (a < b) c()</script>D",
		"<SCRIPT>x</Script>y<style>p{}</style>z":                      "<SCRIPT>x</Script>Y<style>p{}</style>Z",
		"<!-- a <b> -->c<textarea>note</textarea>":                    "<!-- a <b> -->C<textarea>note</textarea>",
		"<svg><title>f</title><script><![CDATA[a<b]]></script></svg>": "<svg><title>F</title><script><![CDATA[a<b]]></script></svg>",
		"unclosed <a href=\"x":                                        "UNCLOSED <a href=\"x",
	} {
		if got := string(pageText([]byte(in), upper)); got != want {
			t.Errorf("pageText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A reader not signed in sees every absolute path as readerPath shows
// it; URLs, relative paths, units and a script's division are no paths.
func TestHideServerPaths(t *testing.T) {
	for in, want := range map[string]string{
		"Baseline: /home/ann/.cache/havlak-lab/nightly-baseline.":          "Baseline: .../nightly-baseline.",
		"(/var/lab/history/nights/20261106T020000Z-c/t/outputs.zip and x)": "(nights/20261106T020000Z-c/t/outputs.zip and x)",
		`"/srv/a/b"`: `".../b"`,
		"https://forge.example/lab/commit/abc, stages/havlak6/cpu.svg, 12 requests/s, 1/2/3, /tmp": "https://forge.example/lab/commit/abc, stages/havlak6/cpu.svg, 12 requests/s, 1/2/3, /tmp",
	} {
		if got := hideServerPaths(in); got != want {
			t.Errorf("hideServerPaths(%q) = %q, want %q", in, got, want)
		}
	}
}

// reversed is a figure's name and a host's name with bidi controls in
// them, which tools/result accepts: each page shows them as their
// escapes (cli.Printable), and no raw control is in any page's text.
const (
	reversedFigure = "exe.\u202etxt"
	reversedHost   = "perf-\u2067one\u2069"
)

func TestFormatCharactersShowAsEscapes(t *testing.T) {
	db := newHistory(t)
	var env string
	for night := range 2 {
		r := program("havlak6", 6, night, 1, 1.69e8, "", result.Metric{Name: reversedFigure, Unit: "count", Source: "test",
			Values: []float64{float64(7 + night)}, Gated: true, Threshold: 0.01})
		r.Environment.Machine.Hostname = reversedHost
		env = result.EnvironmentKey(r.Environment)
		ingestResult(t, db, r)
	}
	series := alert.Series{Benchmark: "havlak6", Figure: reversedFigure, Unit: "count", Workload: result.WorkloadQuick, EnvKey: env}
	if _, err := db.RecordAlerts(context.Background(), alert.Night{Time: nightTime(1), Commit: commitOf(1), By: "nightly"},
		[]alert.Finding{{Kind: alert.Regression, Series: series, Size: 1 / 7.0, Before: 7, After: 8, Evidence: "7 → 8",
			Range: alert.Range{From: commitOf(0), To: commitOf(1), FromTime: nightTime(0), ToTime: nightTime(1)}}},
		func(alert.Alert) string { return "" }); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, db)
	seriesQuery := url.Values{"benchmark": {"havlak6"}, "figure": {reversedFigure}, "unit": {"count"}, "workload": {result.WorkloadQuick}, "env": {env}}
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, path := range []string{"/", "/compare?a=" + commitOf(0) + "&b=" + commitOf(1), "/series?" + seriesQuery.Encode(),
		"/series/multiples?figure=" + url.QueryEscape(reversedFigure) + "&unit=count&workload=quick", "/alerts", "/alerts/1"} {
		resp, body := get(t, srv.URL, path)
		text := html.UnescapeString(tag.ReplaceAllString(body, ""))
		if resp.StatusCode != http.StatusOK || !strings.Contains(text, cli.Printable(reversedFigure)) {
			t.Errorf("%s: %s; the figure's name not shown as %q", path, resp.Status, cli.Printable(reversedFigure))
		}
		if i := strings.IndexFunc(text, func(r rune) bool { return r != '\n' && r != '\t' && cli.Hidden(r) }); i >= 0 {
			t.Errorf("%s: the page's text has %U raw: %q", path, []rune(text[i:])[0], text[max(0, i-40):min(len(text), i+40)])
		}
	}
	if _, body := get(t, srv.URL, "/series?"+seriesQuery.Encode()); !strings.Contains(html.UnescapeString(body), cli.Printable(reversedHost)) {
		t.Errorf("the series page does not show the host's name as %q", cli.Printable(reversedHost))
	}
}
