package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Debian's chromium and chromium-driver; tools/bazel installs them for tests.
const (
	chromium     = "/usr/bin/chromium"
	chromedriver = "/usr/bin/chromedriver"
)

// webDriver is just enough of a W3C WebDriver client for one session.
type webDriver struct {
	t       *testing.T
	base    string // http://127.0.0.1:PORT/session/ID
	timeout time.Duration
}

func (d *webDriver) call(method, path string, body any) json.RawMessage {
	d.t.Helper()
	var in bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&in).Encode(body); err != nil {
			d.t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, &in)
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		d.t.Fatalf("%s %s: %s: %v %s", method, path, resp.Status, err, out.Value)
	}
	return out.Value
}

// script runs JavaScript in the page and decodes its result into v, unless
// v is nil.
func (d *webDriver) script(v any, js string) {
	d.t.Helper()
	value := d.call("POST", "/execute/sync", map[string]any{"script": js, "args": []any{}})
	if v == nil {
		return
	}
	if err := json.Unmarshal(value, v); err != nil {
		d.t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// windowWidth is the browser window's width, in CSS pixels: the page's
// main tables must fit it.
const windowWidth = 1400

// startBrowser starts chromedriver and a headless Chromium session, both
// stopped when the test ends.
func startBrowser(t *testing.T) *webDriver {
	for _, tool := range []string{chromium, chromedriver} {
		if _, err := os.Stat(tool); err != nil {
			if os.Getenv("TEST_SRCDIR") == "" {
				t.Skipf("%s: %v (tools/bazel test installs it)", tool, err)
			}
			t.Fatalf("%s: %v: Debian's chromium and chromium-driver should have been installed by tools/bazel", tool, err)
		}
	}
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	driver := exec.CommandContext(ctx, chromedriver, fmt.Sprintf("--port=%d", port))
	var log bytes.Buffer
	driver.Stdout, driver.Stderr = &log, &log
	if err := driver.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		driver.Wait()
	})
	d := &webDriver{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), timeout: 60 * time.Second}
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(d.base + "/status"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("chromedriver did not start:\n%s", log.String())
		}
	}
	// The flags keep Chromium off the network, which this machine does not
	// have, and out of a sandbox it cannot set up inside Bazel's.
	session := d.call("POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{"binary": chromium, "args": []string{
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--disable-quic", "--no-first-run", fmt.Sprintf("--window-size=%d,1800", windowWidth),
			"--user-data-dir=" + t.TempDir(),
		}},
	}}})
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(session, &s); err != nil || s.SessionID == "" {
		t.Fatalf("no session: %v %s", err, session)
	}
	d.base += "/session/" + s.SessionID
	t.Cleanup(func() { d.call("DELETE", "", nil) })
	return d
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
	d.call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})

	var rows []string
	d.script(&rows, `return Array.from(document.querySelectorAll("#results-havlak-loop-finding tbody tr")).map(r => r.dataset.stage)`)
	if strings.Join(rows, ",") != strings.Join(havlakStages, ",") {
		t.Errorf("table rows %v, want %v", rows, havlakStages)
	}

	// Bars as drawn: their widths on screen, per chart.
	barWidths := func() map[string][]float64 {
		var widths map[string][]float64
		d.script(&widths, `const widths = {};
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
	d.script(&box, `const r = document.getElementById("chart-time-havlak-loop-finding").getBoundingClientRect(); return {width: r.width, height: r.height}`)
	if box.Width < 300 || box.Height < 50 {
		t.Errorf("the time chart takes %vx%v pixels", box.Width, box.Height)
	}

	// On a log scale the shortest bar grows relative to the longest.
	d.call("POST", "/element/"+d.element("#log-scale")+"/click", map[string]any{})
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

	d.screenshot("/screenshot", "index.png")
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
	d.call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})

	var window float64
	d.script(&window, `return window.innerWidth`)
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
	d.script(&tables, `return Array.from(document.querySelectorAll("table.results, table.servers")).map(table => {
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
	d.screenshot("/screenshot", "tables.png")
}

// screenshot keeps a PNG that WebDriver takes (of the window, or of an
// element's box) in the test's undeclared outputs, as name.
func (d *webDriver) screenshot(path, name string) {
	d.t.Helper()
	var png string
	if err := json.Unmarshal(d.call("GET", path, nil), &png); err != nil {
		d.t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(png)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		d.t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("TEST_UNDECLARED_OUTPUTS_DIR")
	if dir == "" {
		dir = d.t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		d.t.Fatal(err)
	}
	d.t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// element finds the page's element for a CSS selector, as WebDriver's id.
func (d *webDriver) element(selector string) string {
	d.t.Helper()
	var found map[string]string
	if err := json.Unmarshal(d.call("POST", "/element", map[string]string{"using": "css selector", "value": selector}), &found); err != nil {
		d.t.Fatal(err)
	}
	for _, id := range found {
		return id
	}
	d.t.Fatalf("no element %s", selector)
	return ""
}

// mouse performs mouse actions at points of the viewport: "move", "down"
// and "up", each at its x, y.
func (d *webDriver) mouse(steps ...mouseStep) {
	d.t.Helper()
	var actions []map[string]any
	for _, s := range steps {
		actions = append(actions, map[string]any{"type": "pointerMove", "origin": "viewport", "x": int(s.X), "y": int(s.Y), "duration": 50})
		switch s.Do {
		case "down":
			actions = append(actions, map[string]any{"type": "pointerDown", "button": 0})
		case "up":
			actions = append(actions, map[string]any{"type": "pointerUp", "button": 0})
		}
	}
	d.call("POST", "/actions", map[string]any{"actions": []any{map[string]any{
		"type": "pointer", "id": "mouse", "parameters": map[string]string{"pointerType": "mouse"}, "actions": actions,
	}}})
}

type mouseStep struct {
	Do   string // "move", "down" or "up"
	X, Y float64
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
	d.call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})

	// What each chart drew: its points, how much of its canvas is painted,
	// and its change-point markers with where they are.
	type marker struct {
		Text    string
		Visible bool
		X       float64 // on the chart's plot, in CSS pixels
	}
	var charts map[string]struct {
		Benchmark, Metric string
		Points            int
		Painted           int // pixels of the plot not left blank
		Markers           []marker
		Between           [2]float64 // the x of the two points around the step
	}
	d.script(&charts, `const charts = {};
		for (const figure of document.querySelectorAll("#trends figure.trend")) {
			const u = window.trendCharts[figure.id];
			const canvas = figure.querySelector("canvas");
			const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
			let painted = 0;
			for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
			charts[figure.id] = {
				benchmark: figure.dataset.benchmark, metric: figure.dataset.metric,
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
		if c.Benchmark != s.Benchmark || c.Metric != s.Metric || c.Points != len(s.Points) {
			t.Errorf("%s: %s %s with %d points, want %s %s with %d", id, c.Benchmark, c.Metric, c.Points, s.Benchmark, s.Metric, len(s.Points))
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
	d.script(nil, `document.getElementById("trends").scrollIntoView()`)
	pointAt := func(night int) mouseStep {
		var p mouseStep
		d.script(&p, `const u = window.trendCharts["trend-0"];
			const box = u.over.getBoundingClientRect();
			return {x: box.left + u.valToPos(`+fmt.Sprint(night)+`, "x"), y: box.top + u.valToPos(u.data[1][`+fmt.Sprint(night)+`], "y")};`)
		return p
	}
	tooltip := func() string {
		var text string
		d.script(&text, `const tip = document.querySelector("#trend-0 .trend-tooltip");
			return tip.style.display === "none" ? "" : tip.innerText;`)
		return text
	}

	// Hovering the first night after the step shows it.
	hovered := pointAt(stepAt)
	hovered.Do = "move"
	d.mouse(hovered)
	tip := tooltip()
	for _, want := range []string{stepCommit(stepAt), trends.Series[0].Points[stepAt].Time.Format("2006-01-02"), "median", "5 runs", "change point: +3.0%"} {
		if !strings.Contains(tip, want) {
			t.Errorf("the tooltip of night %d says %q, want %q in it", stepAt, tip, want)
		}
	}
	d.screenshot("/element/"+d.element("#trends")+"/screenshot", "trends.png")

	// Dragging from night 5 to night 15 zooms in on them.
	from, to := pointAt(5), pointAt(15)
	from.Do, to.Do = "down", "up"
	d.mouse(from, to)
	var scale struct{ Min, Max float64 }
	d.script(&scale, `const x = window.trendCharts["trend-0"].scales.x; return {min: x.min, max: x.max};`)
	if scale.Min < 4 || scale.Min > 6 || scale.Max < 14 || scale.Max > 16 {
		t.Errorf("after dragging from night 5 to 15, the chart shows nights %v to %v", scale.Min, scale.Max)
	}

	// A click on a point opens its night's profiles.
	click := pointAt(10)
	click.Do = "down"
	up := click
	up.Do = "up"
	d.mouse(click, up)
	var url string
	for range 50 {
		if json.Unmarshal(d.call("GET", "/url", nil), &url); strings.HasSuffix(url, "/"+trends.Series[0].Points[10].Profiles) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if want := "file://" + out + "/" + trends.Series[0].Points[10].Profiles; url != want {
		t.Errorf("clicking night 10 went to %s, want %s", url, want)
	}
}
