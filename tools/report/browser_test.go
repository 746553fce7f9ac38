package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/webdrivertest"
)

// windowWidth is the browser window's width, in CSS pixels: the page's
// main tables must fit it.
const windowWidth = 1400

// startBrowser starts a headless Chromium session (internal/webdrivertest),
// stopped when the test ends.
func startBrowser(t *testing.T) *webdrivertest.Driver {
	return webdrivertest.Start(t, windowWidth)
}

// The report page, opened in a real browser: the table and both charts
// render, the log-scale switch redraws the bars, and a screenshot is kept
// (outputs.zip of this test: index.png).
func TestReportInBrowser(t *testing.T) {
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", fixtures, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	d := startBrowser(t)
	d.Call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})

	var rows []string
	d.Script(&rows, `return Array.from(document.querySelectorAll("#results-havlak-loop-finding tbody tr")).map(r => r.dataset.stage)`)
	if strings.Join(rows, ",") != strings.Join(havlakStages, ",") {
		t.Errorf("table rows %v, want %v", rows, havlakStages)
	}

	// Bars as drawn: their widths on screen, per chart.
	barWidths := func() map[string][]float64 {
		var widths map[string][]float64
		d.Script(&widths, `const widths = {};
			for (const chart of document.querySelectorAll("svg.chart")) {
				widths[chart.id] = Array.from(chart.querySelectorAll("rect.bar")).map(b => b.getBoundingClientRect().width);
			}
			return widths;`)
		return widths
	}
	linear := barWidths()
	for _, chart := range []string{"chart-time-havlak-loop-finding", "chart-rss-havlak-loop-finding"} {
		bars := linear[chart]
		if len(bars) != len(havlakStages) {
			t.Errorf("%s: %d bars, want %d", chart, len(bars), len(havlakStages))
		}
		for i, w := range bars {
			if w <= 0 {
				t.Errorf("%s: bar %d is not drawn (width %v)", chart, i, w)
			}
		}
	}

	var box struct{ Width, Height float64 }
	d.Script(&box, `const r = document.getElementById("chart-time-havlak-loop-finding").getBoundingClientRect(); return {width: r.width, height: r.height}`)
	if box.Width < 300 || box.Height < 50 {
		t.Errorf("the time chart takes %vx%v pixels", box.Width, box.Height)
	}

	// On a log scale the shortest bar grows relative to the longest.
	d.Call("POST", "/element/"+d.Element("#log-scale")+"/click", map[string]any{})
	logScale := barWidths()
	shortestShare := func(bars []float64) float64 {
		lo, hi := bars[0], bars[0]
		for _, w := range bars {
			lo, hi = min(lo, w), max(hi, w)
		}
		return lo / hi
	}
	if bars := linear["chart-time-havlak-loop-finding"]; len(bars) > 1 && shortestShare(logScale["chart-time-havlak-loop-finding"]) <= shortestShare(bars) {
		t.Errorf("log scale did not redraw the bars: linear %v, log %v", bars, logScale["chart-time-havlak-loop-finding"])
	}

	d.Screenshot("/screenshot", "index.png")
}

// The main tables fit a 1400-pixel window, the widest of them too: the
// programs' with a baseline column, and the servers' with their
// contention. No table scrolls, and no link is clipped.
func TestTablesFitTheWindow(t *testing.T) {
	dir := t.TempDir()
	for _, name := range fixtureStages(t) {
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(dir, name))
	}
	unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(dir, "router_mutex"))
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", dir, "--baseline", dir, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	d := startBrowser(t)
	d.Call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})

	var window float64
	d.Script(&window, `return window.innerWidth`)
	if window > windowWidth {
		t.Fatalf("the window is %v pixels wide, want at most %d", window, windowWidth)
	}
	type box struct {
		ID                       string
		Right                    float64  // of the table's box
		ScrollWidth, ClientWidth float64  // of its scrolling container
		Clipped                  []string // links not wholly inside the container
	}
	var tables []box
	d.Script(&tables, `return Array.from(document.querySelectorAll("table.results, table.servers")).map(table => {
			const wide = table.closest(".wide"), inside = wide.getBoundingClientRect();
			return {
				id: table.id, right: table.getBoundingClientRect().right,
				scrollWidth: wide.scrollWidth, clientWidth: wide.clientWidth,
				clipped: Array.from(table.querySelectorAll("a")).filter(a => {
					const r = a.getBoundingClientRect();
					return r.left < inside.left || r.right > inside.right || r.width === 0;
				}).map(a => a.getAttribute("href")),
			};
		})`)
	var ids []string
	for _, b := range tables {
		ids = append(ids, b.ID)
		if b.Right > window || b.ScrollWidth > b.ClientWidth || len(b.Clipped) > 0 {
			t.Errorf("table %s does not fit a %v-pixel window: its right edge at %v, %v pixels wide in %v, links clipped: %v",
				b.ID, window, b.Right, b.ScrollWidth, b.ClientWidth, b.Clipped)
		}
	}
	if want := "results-havlak-loop-finding results-word-count servers-http-router-under-load"; strings.Join(ids, " ") != want {
		t.Errorf("tables %q, want %q", strings.Join(ids, " "), want)
	}
	d.Screenshot("/screenshot", "tables.png")
}

// The trend charts, drawn by uPlot from 30 nights with a step: every chart
// has its points and spread, a change-point marker sits between the two
// nights of the step, hovering shows a night's commit and figures, dragging
// zooms, and clicking a point opens its profiles. Screenshot: trends.png.
func TestTrendsInBrowser(t *testing.T) {
	out := t.TempDir()
	trends := stepTrends()
	if stderr, _, err := runReport(t, "--from", fixtures, "--out", out, "--trends", writeTrends(t, trends)); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	d := startBrowser(t)
	d.Call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})

	// What each chart drew: its points, how much of its canvas is painted,
	// and its change-point markers with where they are.
	type marker struct {
		Text    string
		Visible bool
		X       float64 // on the chart's plot, in CSS pixels
	}
	var charts map[string]struct {
		Benchmark, Figure string
		Points            int
		Painted           int // pixels of the plot not left blank
		Markers           []marker
		Between           [2]float64 // the x of the two points around the step
	}
	d.Script(&charts, `const charts = {};
		for (const figure of document.querySelectorAll("#trends figure.trend")) {
			const u = window.trendCharts[figure.id];
			const canvas = figure.querySelector("canvas");
			const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
			let painted = 0;
			for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
			charts[figure.id] = {
				benchmark: figure.dataset.benchmark, figure: figure.dataset.metric,
				points: u.data[0].length, painted: painted,
				markers: Array.from(figure.querySelectorAll(".trend-change")).map(m => ({
					text: m.textContent, visible: m.offsetParent !== null && getComputedStyle(m).display !== "none",
					x: parseFloat(m.style.left)})),
				between: [u.valToPos(`+fmt.Sprint(stepAt-1)+`, "x"), u.valToPos(`+fmt.Sprint(stepAt)+`, "x")],
			};
		}
		return charts;`)
	if len(charts) != len(trends.Series) {
		t.Fatalf("%d charts drawn, want %d: %+v", len(charts), len(trends.Series), charts)
	}
	for i, s := range trends.Series {
		id := fmt.Sprintf("trend-%d", i)
		c := charts[id]
		if c.Benchmark != s.Benchmark || c.Figure != s.Figure || c.Points != len(s.Points) {
			t.Errorf("%s: %s %s with %d points, want %s %s with %d", id, c.Benchmark, c.Figure, c.Points, s.Benchmark, s.Figure, len(s.Points))
		}
		if c.Painted < 5000 {
			t.Errorf("%s: only %d pixels painted: not drawn?", id, c.Painted)
		}
		if len(c.Markers) != len(s.ChangePoints) {
			t.Errorf("%s: %d change-point markers, want %d", id, len(c.Markers), len(s.ChangePoints))
			continue
		}
		for _, m := range c.Markers {
			want := "+3.0% " + stepCommit(stepAt - 1)[:12] + ".." + stepCommit(stepAt)[:12]
			if m.Text != want || !m.Visible || m.X <= c.Between[0] || m.X >= c.Between[1] {
				t.Errorf("%s: change-point marker %+v, want %q shown between x=%v and x=%v", id, m, want, c.Between[0], c.Between[1])
			}
		}
	}

	// Where a night's point of the first chart is on the screen.
	d.Script(nil, `document.getElementById("trends").scrollIntoView()`)
	pointAt := func(night int) webdrivertest.MouseStep {
		var p webdrivertest.MouseStep
		d.Script(&p, `const u = window.trendCharts["trend-0"];
			const box = u.over.getBoundingClientRect();
			return {x: box.left + u.valToPos(`+fmt.Sprint(night)+`, "x"), y: box.top + u.valToPos(u.data[1][`+fmt.Sprint(night)+`], "y")};`)
		return p
	}
	tooltip := func() string {
		var text string
		d.Script(&text, `const tip = document.querySelector("#trend-0 .trend-tooltip");
			return tip.style.display === "none" ? "" : tip.innerText;`)
		return text
	}

	// Hovering the first night after the step shows it.
	hovered := pointAt(stepAt)
	hovered.Do = "move"
	d.Mouse(hovered)
	tip := tooltip()
	for _, want := range []string{stepCommit(stepAt), trends.Series[0].Points[stepAt].Time.Format("2006-01-02"), "median", "5 runs", "change point: +3.0%"} {
		if !strings.Contains(tip, want) {
			t.Errorf("the tooltip of night %d says %q, want %q in it", stepAt, tip, want)
		}
	}
	d.Screenshot("/element/"+d.Element("#trends")+"/screenshot", "trends.png")

	// Dragging from night 5 to night 15 zooms in on them.
	from, to := pointAt(5), pointAt(15)
	from.Do, to.Do = "down", "up"
	d.Mouse(from, to)
	var scale struct{ Min, Max float64 }
	d.Script(&scale, `const x = window.trendCharts["trend-0"].scales.x; return {min: x.min, max: x.max};`)
	if scale.Min < 4 || scale.Min > 6 || scale.Max < 14 || scale.Max > 16 {
		t.Errorf("after dragging from night 5 to 15, the chart shows nights %v to %v", scale.Min, scale.Max)
	}

	// A click on a point opens its night's profiles.
	click := pointAt(10)
	click.Do = "down"
	up := click
	up.Do = "up"
	d.Mouse(click, up)
	var url string
	for range 50 {
		if json.Unmarshal(d.Call("GET", "/url", nil), &url); strings.HasSuffix(url, "/"+trends.Series[0].Points[10].Profiles) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if want := "file://" + out + "/" + trends.Series[0].Points[10].Profiles; url != want {
		t.Errorf("clicking night 10 went to %s, want %s", url, want)
	}
}
