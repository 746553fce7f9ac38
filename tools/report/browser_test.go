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

// script runs JavaScript in the page and decodes its result into v.
func (d *webDriver) script(v any, js string) {
	d.t.Helper()
	if err := json.Unmarshal(d.call("POST", "/execute/sync", map[string]any{"script": js, "args": []any{}}), v); err != nil {
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
			"--disable-quic", "--no-first-run", "--window-size=1280,1800",
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
	var checkbox map[string]string
	if err := json.Unmarshal(d.call("POST", "/element", map[string]string{"using": "css selector", "value": "#log-scale"}), &checkbox); err != nil {
		t.Fatal(err)
	}
	for _, id := range checkbox {
		d.call("POST", "/element/"+id+"/click", map[string]any{})
	}
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

	var png string
	if err := json.Unmarshal(d.call("GET", "/screenshot", nil), &png); err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(png)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("TEST_UNDECLARED_OUTPUTS_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, "index.png"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, "index.png"))
}
