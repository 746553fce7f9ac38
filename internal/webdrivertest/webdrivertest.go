// Package webdrivertest drives a real browser from a Go test: Debian's
// headless Chromium through chromedriver, with just enough of a W3C
// WebDriver client for one session. The report's browser tests and the
// dashboard's share it.
//
// Start skips the test when Chromium or chromedriver is not installed and
// the test runs outside Bazel (go test); under Bazel (TEST_SRCDIR set) it
// fails instead: tools/bazel installs both for tests.
package webdrivertest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"havlak-lab/internal/localport"
)

// Debian's chromium and chromium-driver; tools/bazel installs them for tests.
const (
	Chromium     = "/usr/bin/chromium"
	Chromedriver = "/usr/bin/chromedriver"
)

// A Driver is one WebDriver session of a test.
type Driver struct {
	t       testing.TB
	base    string // http://127.0.0.1:PORT/session/ID
	timeout time.Duration
}

// Call sends one WebDriver command of the session (path "" is the session
// itself: "/url", "/execute/sync", ...) and returns its value; an error
// fails the test.
func (d *Driver) Call(method, path string, body any) json.RawMessage {
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

// Open loads url in the window.
func (d *Driver) Open(url string) {
	d.t.Helper()
	d.Call("POST", "/url", map[string]string{"url": url})
}

// Script runs JavaScript in the page and decodes its result into v, unless
// v is nil.
func (d *Driver) Script(v any, js string) {
	d.t.Helper()
	value := d.Call("POST", "/execute/sync", map[string]any{"script": js, "args": []any{}})
	if v == nil {
		return
	}
	if err := json.Unmarshal(value, v); err != nil {
		d.t.Fatal(err)
	}
}

// Element finds the page's element for a CSS selector, as WebDriver's id.
func (d *Driver) Element(selector string) string {
	d.t.Helper()
	var found map[string]string
	if err := json.Unmarshal(d.Call("POST", "/element", map[string]string{"using": "css selector", "value": selector}), &found); err != nil {
		d.t.Fatal(err)
	}
	for _, id := range found {
		return id
	}
	d.t.Fatalf("no element %s", selector)
	return ""
}

// Click clicks the page's element for a CSS selector.
func (d *Driver) Click(selector string) {
	d.t.Helper()
	d.Call("POST", "/element/"+d.Element(selector)+"/click", map[string]any{})
}

// Screenshot keeps a PNG that WebDriver takes (path "/screenshot" of the
// window, or "/element/ID/screenshot" of an element's box) in the test's
// undeclared outputs (Bazel's outputs.zip), as name.
func (d *Driver) Screenshot(path, name string) {
	d.t.Helper()
	var png string
	if err := json.Unmarshal(d.Call("GET", path, nil), &png); err != nil {
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

// A MouseStep is a move of the mouse to a point of the viewport, then Do:
// "move" (nothing more), "down" or "up" (the left button).
type MouseStep struct {
	Do   string
	X, Y float64
}

// Mouse performs mouse actions at points of the viewport.
func (d *Driver) Mouse(steps ...MouseStep) {
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
	d.Call("POST", "/actions", map[string]any{"actions": []any{map[string]any{
		"type": "pointer", "id": "mouse", "parameters": map[string]string{"pointerType": "mouse"}, "actions": actions,
	}}})
}

// Start starts chromedriver and a headless Chromium session of a window
// width CSS pixels wide and 1800 high, both stopped when the test ends.
func Start(t testing.TB, width int) *Driver {
	t.Helper()
	for _, tool := range []string{Chromium, Chromedriver} {
		if _, err := os.Stat(tool); err != nil {
			if os.Getenv("TEST_SRCDIR") == "" {
				t.Skipf("%s: %v (tools/bazel test installs it)", tool, err)
			}
			t.Fatalf("%s: %v: Debian's chromium and chromium-driver should have been installed by tools/bazel", tool, err)
		}
	}
	port := mustFreePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	driver := exec.CommandContext(ctx, Chromedriver, fmt.Sprintf("--port=%d", port))
	var log bytes.Buffer
	driver.Stdout, driver.Stderr = &log, &log
	if err := driver.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		driver.Wait()
	})
	d := &Driver{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), timeout: 60 * time.Second}
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
	session := d.Call("POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{"binary": Chromium, "args": []string{
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--disable-quic", "--no-first-run", fmt.Sprintf("--window-size=%d,1800", width),
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
	t.Cleanup(func() { d.Call("DELETE", "", nil) })
	return d
}

// mustFreePort is localport.Free, failing the test when there is none.
func mustFreePort(t testing.TB) int {
	t.Helper()
	port, err := localport.Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}
