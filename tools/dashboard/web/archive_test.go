package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
)

// lastNight is the archive's directory of the test history's last night.
const lastNight = "20261106T020000Z-cf0000000000"

// secret is what the tests put outside the archive: no answer may hold it.
const secret = "not for the dashboard's visitors"

// lastProfiles are the flame graphs of havlak6's last result, as the
// series' points give them, by kind.
func lastProfiles(t *testing.T, srvURL string) map[string]string {
	t.Helper()
	_, body := get(t, srvURL, "/api/series?"+seriesQuery("havlak6", "real_seconds", "s"))
	var got seriesJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range got.Points[len(got.Points)-1].Profiles {
		out[p.Kind] = p.Flamegraph
	}
	return out
}

// A night's report is served from the archive, sandboxed: its own
// scripts run with an opaque origin, apart from the dashboard's. What is
// not in the archive's reports is a 404 that names it: a missing night,
// file or archive, a name that climbs out (../, encoded), a symlink out
// of the report.
func TestNightReport(t *testing.T) {
	db, path := testHistory(t)
	srv := serve(t, db)
	dir := filepath.Dir(path)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.html"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, history.NightsDir, lastNight, nightdir.Report)
	for link, target := range map[string]string{
		"out.html":     filepath.Join(outside, "secret.html"),
		"results.zip":  filepath.Join(dir, history.NightsDir, lastNight, "havlak6_quick_test", result.ZipName),
		"history.html": path,
	} {
		if err := os.Symlink(target, filepath.Join(report, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, history.NightsDir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outside, nightdir.Report), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, nightdir.Report, "index.html"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, page := range []string{"/nights/" + lastNight + "/report/", "/nights/" + lastNight + "/report/index.html"} {
		resp, body := get(t, srv.URL, page)
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<h1 id=night-report>The night of `+commitOf(nights-1)) {
			t.Errorf("%s: %s, want the night's report", page, resp.Status)
		}
		if !strings.HasPrefix(csp, "sandbox allow-scripts;") || strings.Contains(csp, "allow-same-origin") ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: served with %q, %q, %q; want a sandbox without the dashboard's origin, nosniff", page, csp,
				resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Content-Type"))
		}
	}
	if resp, _ := get(t, srv.URL, "/nights/"+lastNight+"/report"); resp.StatusCode != http.StatusMovedPermanently ||
		resp.Header.Get("Location") != "/nights/"+lastNight+"/report/" {
		t.Errorf("the report without its slash: %s to %q", resp.Status, resp.Header.Get("Location"))
	}

	for page, says := range map[string]string{
		"/nights/" + lastNight + "/report/stages/havlak6/cpu-diff.svg":           "stages/havlak6/cpu-diff.svg",
		"/nights/20991231T000000Z-ff0000000000/report/":                          "no report of the night 20991231T000000Z-ff0000000000",
		"/nights/" + lastNight + ".tmp/report/":                                  "names no night",
		"/nights/" + lastNight + "/report/out.html":                              "out.html",
		"/nights/" + lastNight + "/report/results.zip":                           "results.zip",
		"/nights/" + lastNight + "/report/history.html":                          "history.html",
		"/nights/elsewhere/report/":                                              "no report of the night elsewhere",
		"/nights/" + lastNight + "/report/..%2f..%2fhistory.sqlite":              "names no file",
		"/nights/" + lastNight + "/report/%2e%2e/havlak6_quick_test/outputs.zip": "",
		"/nights/..%2f" + lastNight + "/report/index.html":                       "names no night",
		"/nights/.." + "/report/index.html":                                      "",
		"/nights/" + lastNight + "/report/.hidden":                               "names no file",
		"/nights/" + lastNight + "/report/" + hostile:                            "names no file",
	} {
		resp, body := get(t, srv.URL, page)
		if strings.Contains(body, secret) || strings.Contains(body, "SQLite format") || strings.Contains(body, "PK\x03\x04") {
			t.Errorf("%s: served what is outside the night's report", page)
		}
		if resp.StatusCode == http.StatusMovedPermanently || resp.StatusCode == http.StatusTemporaryRedirect {
			// The server's own cleaning of a path of .. : what it points
			// to is served, or not, like any other address.
			resp, body = get(t, srv.URL, resp.Header.Get("Location"))
		}
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, says) || strings.Contains(body, "<img") {
			t.Errorf("%s: %s, want 404 saying %q:\n%s", page, resp.Status, says, body)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); strings.Contains(csp, "sandbox") {
			t.Errorf("%s: the dashboard's own error page is sandboxed: %q", page, csp)
		}
	}

	// The alert's page links the night's report and the nightly job's
	// profile diff, in the archive; to a reader not signed in it names
	// them from the archive's nights/ on, never by the server's path.
	_, body := get(t, srv.URL, "/alerts/1")
	for _, want := range []string{`<a class="report" href="/nights/` + lastNight + `/report/index.html">nights/` + lastNight + `/report/index.html</a>`,
		`<a class="profile-diff" href="/nights/` + lastNight + `/report/stages/havlak6/cpu-diff.svg">nights/` + lastNight + `/report/stages/havlak6/cpu-diff.svg</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("alert 1's page lacks %s", want)
		}
	}
	if strings.Contains(body, "/var/lab") {
		t.Errorf("alert 1's page shows a reader not signed in the server's path /var/lab/...")
	}

	// No archive: every page of it says so.
	for archive, says := range map[string]string{"": "serves no archive", filepath.Join(dir, "nosuch"): "the archive cannot be opened"} {
		s, err := New(db, Options{Archive: archive})
		if err != nil {
			t.Fatal(err)
		}
		for _, page := range []string{"/nights/" + lastNight + "/report/", lastProfiles(t, srv.URL)["cpu"]} {
			req, _ := http.NewRequest("GET", page, nil)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			// Its path on the server is the server's: never said to a reader.
			if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), says) || dir != "" && strings.Contains(w.Body.String(), dir) {
				t.Errorf("archive %q, %s: %d, want 404 saying %q", archive, page, w.Code, says)
			}
		}
	}
}

// A result's profiles are served by pprof's own UI under the result's
// address, its links staying there; pprof's pages that read the server's
// files or write its settings are not served; a diff is pprof's
// -diff_base of two results' profiles. A result the history or the
// archive lacks, a profile it does not keep, an outputs.zip that is a
// symlink out of the archive and a profile over the limits are each a 404
// that names them.
func TestProfiles(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // pprof reads its settings there
	db, _ := testHistory(t)
	srv := serve(t, db)
	flames := lastProfiles(t, srv.URL)
	cpu, heap := flames["cpu"], flames["heap"]
	if cpu == "" || heap == "" {
		t.Fatalf("the last night's profiles: %v, want cpu and heap", flames)
	}
	for _, page := range []string{cpu, heap} {
		resp, body := get(t, srv.URL, page)
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="stack-chart"`) || !strings.Contains(body, `href="./top"`) {
			t.Errorf("%s: %s, want pprof's flame graph with its relative links:\n%.500s", page, resp.Status, body)
		}
		if !strings.HasPrefix(csp, "sandbox allow-scripts;") || strings.Contains(csp, "allow-same-origin") {
			t.Errorf("%s: served with %q, want a sandbox", page, csp)
		}
	}
	prefix := strings.TrimSuffix(cpu, "flamegraph")
	if resp, _ := get(t, srv.URL, prefix); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "flamegraph" {
		t.Errorf("%s: %s to %q, want pprof's relative redirect to its flame graph", prefix, resp.Status, resp.Header.Get("Location"))
	}
	if resp, _ := get(t, srv.URL, strings.TrimSuffix(prefix, "/")); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != prefix {
		t.Errorf("%s without its slash: %s to %q", prefix, resp.Status, resp.Header.Get("Location"))
	}
	if resp, body := get(t, srv.URL, prefix+"top"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "main.") {
		t.Errorf("%stop: %s, want pprof's top table of havlak6's functions", prefix, resp.Status)
	}
	if resp, body := get(t, srv.URL, prefix+"download"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, "\x1f\x8b") {
		t.Errorf("%sdownload: %s, want the profile", prefix, resp.Status)
	}
	for _, page := range []string{"source?f=.", "disasm?f=.", "saveconfig?config=x", "deleteconfig?config=x", "nosuch"} {
		if resp, body := get(t, srv.URL, prefix+page); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "is not served here") {
			t.Errorf("%s%s: %s, want 404", prefix, page, resp.Status)
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "pprof")); err == nil {
		t.Errorf("pprof wrote its settings")
	}

	// The diff of the compare page's regression: B's CPU profile against
	// A's.
	_, _, _, body := compareRows(t, srv.URL, "a="+commitOf(0)+"&b="+commitOf(nights-1))
	m := regexp.MustCompile(`href="(/results/[0-9a-f]{64}/diff/[0-9a-f]{64}/cpu/flamegraph)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the compare page links no profile diff")
	}
	if resp, body := get(t, srv.URL, m[1]); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="stack-chart"`) {
		t.Errorf("%s: %s, want pprof's flame graph of the diff", m[1], resp.Status)
	}

	id := regexp.MustCompile(`[0-9a-f]{64}`).FindString(cpu)
	found, err := db.Results(context.Background(), history.ResultQuery{SHA256: id}, 1)
	if err != nil || len(found) != 1 {
		t.Fatal(err)
	}
	// havlak6cc's result of the first night: its outputs.zip becomes a
	// symlink to a copy outside the archive.
	first, err := db.Results(context.Background(), history.ResultQuery{Benchmark: "havlak6cc", Commit: commitOf(0)}, 1)
	if err != nil || len(first) != 1 {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), result.ZipName)
	if err := os.Rename(first[0].Source, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, first[0].Source); err != nil {
		t.Fatal(err)
	}
	// havlak6's of the second night: gone from the archive.
	second, err := db.Results(context.Background(), history.ResultQuery{Benchmark: "havlak6", Commit: commitOf(1)}, 1)
	if err != nil || len(second) != 1 {
		t.Fatal(err)
	}
	if err := os.Remove(second[0].Source); err != nil {
		t.Fatal(err)
	}
	forged, err := db.Results(context.Background(), history.ResultQuery{Commit: commitOf(0), Benchmark: hostile}, 1)
	if err != nil || len(forged) != 1 {
		t.Fatal(err)
	}
	for page, says := range map[string]string{
		"/results/" + strings.Repeat("0", 64) + "/profiles/cpu/":    "the history has no result " + strings.Repeat("0", 64),
		"/results/" + id + "/profiles/mutex/":                       "keeps no mutex profile",
		"/results/" + id + "/profiles/%3Cimg%20src=x%3E/":           "names no kind of profile",
		"/results/" + id + "/profiles/..%2f..%2fhistory.sqlite/":    "names no kind of profile",
		"/results/" + strings.ToUpper(id) + "/profiles/cpu/":        "a sha256 in hex",
		"/results/" + id + "/diff/" + id[:63] + "x/cpu/":            "a sha256 in hex",
		"/results/" + first[0].SHA256 + "/profiles/cpu/flamegraph":  "outputs.zip in the archive",
		"/results/" + second[0].SHA256 + "/profiles/cpu/flamegraph": "no such file",
		"/results/" + id + "/diff/" + second[0].SHA256 + "/cpu/":    "no such file",
		"/results/" + forged[0].SHA256 + "/profiles/cpu/":           "keeps no cpu profile",
	} {
		resp, body := get(t, srv.URL, page)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, says) || strings.Contains(body, "<img") {
			t.Errorf("%s: %s, want 404 saying %q:\n%s", page, resp.Status, says, body)
		}
	}

	// A profile over the limits: a gzip that inflates past them.
	if _, err := parseProfile(bomb(t)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a gzip that inflates past the limit: %v", err)
	}
}

// bomb is a gzip of a few hundred KiB that inflates past
// maxInflatedProfileBytes.
func bomb(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	zeros := make([]byte, 1<<20)
	for range maxInflatedProfileBytes>>20 + 1 {
		z.Write(zeros)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A reader not signed in finds no path of the server's in anything the
// dashboard serves: not the archive's directory, which an inconsistent
// measurement's evidence names (its results' sources), nor the baseline's
// directory, which a night's report and its summary name; a reader signed
// in sees them whole. A script of the report is left as it is.
func TestNoServerPathForReaders(t *testing.T) {
	db, path := testHistory(t)
	archiveDir := filepath.Dir(path)
	// havlak6cc's binary and run of the nights before, counted otherwise.
	cc := program("havlak6cc", 6, nights, 0.8, 2.4e8, fmt.Sprintf("%064x", 100+nights-3))
	cc.Benchmark.Language = "C++"
	archive(t, db, cc, nil)
	const baseline = "/home/ann/.cache/havlak-lab/nightly-baseline"
	report := filepath.Join(archiveDir, history.NightsDir, lastNight, nightdir.Report)
	page := "<!DOCTYPE html><title>night</title><p class=note>Baseline: " + baseline + ".</p><script>var re = /a/g, p = '/x/y';</script>"
	for name, data := range map[string]string{"index.html": page, "summary.json": `{"baseline": "` + baseline + `"}`} {
		if err := os.WriteFile(filepath.Join(report, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := serve(t, db)
	night := nightTime(nights).Format(time.DateOnly)
	pages := []string{"/", "/?night=" + night, "/compare?a=" + commitOf(nights-1) + "&b=" + commitOf(nights), "/alerts", "/alerts/1",
		"/series?" + seriesQuery("havlak6", "real_seconds", "s"), "/api/series?" + seriesQuery("havlak6", "real_seconds", "s"),
		"/series/multiples?figure=real_seconds&unit=s&workload=quick",
		"/nights/" + lastNight + "/report/", "/nights/" + lastNight + "/report/summary.json"}
	for _, p := range pages {
		resp, body := get(t, srv.URL, p)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s", p, resp.Status)
		}
		for _, server := range []string{archiveDir, baseline} {
			if strings.Contains(body, server) {
				t.Errorf("%s shows a reader not signed in the server's path %s", p, server)
			}
		}
	}
	_, body := get(t, srv.URL, "/compare?a="+commitOf(nights-1)+"&b="+commitOf(nights))
	if !strings.Contains(body, "inconsistent measurement: nights/") {
		t.Errorf("the inconsistent measurement does not name its results from nights/ on")
	}
	if _, body := get(t, srv.URL, "/nights/"+lastNight+"/report/"); !strings.Contains(body, "Baseline: .../nightly-baseline.") ||
		!strings.Contains(body, "var re = /a/g, p = '/x/y';") {
		t.Errorf("the report, to a reader not signed in: %s; want the baseline's last name, the script as it is", body)
	}
	ann := newBrowser(t, srv)
	ann.signIn(addUser(t, db, "ann"))
	if _, body := ann.do(http.MethodGet, "/nights/"+lastNight+"/report/", nil, nil); !strings.Contains(body, "Baseline: "+baseline+".") {
		t.Errorf("signed in, the report does not show the baseline's path: %s", body)
	}
}
