package web

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"havlak-lab/internal/webdrivertest"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
)

// sameRange adds to testHistory's alerts a second regression of havlak6
// in alert 1's commit range, its instructions: alert 3, new, as the last
// night would record it with alert 1.
func sameRange(t *testing.T, db *history.DB) {
	t.Helper()
	last := alert.Night{Time: nightTime(nights - 1), Commit: commitOf(nights - 1), By: "nightly"}
	f := alert.Finding{Kind: alert.Regression, Series: alert.Series{Benchmark: "havlak6", Figure: "own_instructions",
		Unit: "instructions", Workload: result.WorkloadQuick, EnvKey: envKey}, Size: 0.05, Before: 1.69e8, After: 1.69e8 * 1.05,
		Evidence: "5% more instructions", Report: nightReport,
		Range: alert.Range{From: commitOf(nights - 2), To: commitOf(nights - 1), FromTime: nightTime(nights - 2), ToTime: nightTime(nights - 1)}}
	got, err := db.RecordAlerts(context.Background(), last, []alert.Finding{f}, func(alert.Alert) string { return "" })
	if err != nil || len(got) != 1 || got[0].ID != 3 {
		t.Fatalf("recording alert 3: %+v, %v", got, err)
	}
}

// signedIn is a browser signed in as a new user of db, and the CSRF token
// of its session.
func signedIn(t *testing.T, srv *httptest.Server, db *history.DB, name string) (*browser, string) {
	t.Helper()
	b := newBrowser(t, srv)
	b.signIn(addUser(t, db, name))
	return b, b.csrf("/alerts")
}

// One action on the alerts ticked changes each as its own triage would
// (Transition's rules, with who and when), all in one: without the CSRF
// token, or with one alert that may not take it or changed since it was
// shown, none changes.
func TestBulkTriage(t *testing.T) {
	db, _ := testHistory(t)
	sameRange(t, db)
	srv := serve(t, db)
	ann, csrf := signedIn(t, srv, db, "ann")
	before := [][]alert.Change{changes(t, db, 1), changes(t, db, 2), changes(t, db, 3)}
	unchanged := func(when string) {
		t.Helper()
		for i, want := range before {
			if got := changes(t, db, int64(i+1)); len(got) != len(want) {
				t.Errorf("%s: alert %d changed: %+v", when, i+1, got)
			}
		}
	}
	ack := url.Values{"id": {"1", "3"}, "seen-1": {"1"}, "seen-3": {"1"}, "text": {"one change: <b>reverted</b>"}}
	if resp, _ := newBrowser(t, srv).do(http.MethodPost, "/alerts/bulk/ack", ack, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a bulk triage by nobody: %s, want 401", resp.Status)
	}
	if resp, _ := ann.do(http.MethodPost, "/alerts/bulk/ack", ack, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a bulk triage without the CSRF token: %s, want 403", resp.Status)
	}
	with := func(form url.Values, pairs ...string) url.Values {
		out := url.Values{"csrf": {csrf}}
		for k, v := range form {
			out[k] = v
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			out[pairs[i]] = []string{pairs[i+1]}
		}
		return out
	}
	for _, c := range []struct {
		path   string
		form   url.Values
		status int
		says   string
	}{
		{"/alerts/bulk/ack", with(ack, "seen-3", "0"), http.StatusConflict, "changed since it was shown"},
		{"/alerts/bulk/accept", with(url.Values{"id": {"1", "2"}, "text": {"intended"}}), http.StatusConflict, "only a change of level"},
		{"/alerts/bulk/ack", with(url.Values{"id": {"1", "9"}, "text": {"x"}}), http.StatusNotFound, "no alert among 1, 9"},
		{"/alerts/bulk/ack", with(url.Values{"text": {"x"}}), http.StatusBadRequest, "no alert picked"},
		{"/alerts/bulk/ignore", with(url.Values{"id": {"1", "3"}}), http.StatusBadRequest, "ignore needs a reason"},
		{"/alerts/bulk/ack", with(ack, "assignee", "bob"), http.StatusBadRequest, "ack takes no assignee"},
		{"/alerts/bulk/close", with(ack), http.StatusNotFound, "close"},
	} {
		resp, body := ann.do(http.MethodPost, c.path, c.form, nil)
		if resp.StatusCode != c.status || !strings.Contains(html.UnescapeString(body), c.says) {
			t.Errorf("%s %v: %s, want %d saying %q:\n%s", c.path, c.form, resp.Status, c.status, c.says, body)
		}
	}
	unchanged("refused bulk triages")

	resp, body := ann.do(http.MethodPost, "/alerts/bulk/ack", with(ack, "state", "all"), nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts?state=all" {
		t.Fatalf("bulk acknowledgement: %s to %q:\n%s", resp.Status, resp.Header.Get("Location"), body)
	}
	one, three := changes(t, db, 1), changes(t, db, 3)
	for id, got := range map[int][]alert.Change{1: one, 3: three} {
		c := got[len(got)-1]
		if len(got) != 2 || c.State != alert.Acknowledged || c.By != "ann" || c.Note != "one change: <b>reverted</b>" {
			t.Errorf("alert %d after the bulk acknowledgement: %+v; want acknowledged by ann with the note", id, got)
		}
	}
	if !one[1].At.Equal(three[1].At) || len(changes(t, db, 2)) != len(before[1]) {
		t.Errorf("the bulk acknowledgement: not one change of 1 and 3, or 2 changed too")
	}
	// A reason in the one field, for the action that takes one; a script
	// gets the changed alerts.
	resp, body = ann.do(http.MethodPost, "/alerts/bulk/ignore", url.Values{"id": {"1", "3"}, "text": {"noise"}},
		map[string]string{csrfHeader: csrf})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"state":"ignored"`) {
		t.Errorf("bulk ignore from a script: %s:\n%s", resp.Status, body)
	}
	if got := changes(t, db, 3); got[len(got)-1].State != alert.Ignored || got[len(got)-1].Note != "noise" {
		t.Errorf("alert 3 after the bulk ignore: %+v", got)
	}
}

// An alert is assigned, on its page or in bulk, with who assigned it and
// when in its record; both pages show the assignee, as text.
func TestAssign(t *testing.T) {
	db, _ := testHistory(t)
	sameRange(t, db)
	srv := serve(t, db)
	ann, csrf := signedIn(t, srv, db, "ann")
	if resp, _ := ann.do(http.MethodPost, "/alerts/1/assign", url.Values{"assignee": {"bob"}, "seen": {"1"}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("an assignment without the CSRF token: %s, want 403", resp.Status)
	}
	resp, body := ann.do(http.MethodPost, "/alerts/1/assign", url.Values{"csrf": {csrf}, "assignee": {"bob"}, "seen": {"1"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts/1" {
		t.Fatalf("assigning alert 1: %s:\n%s", resp.Status, body)
	}
	a, err := db.Alert(context.Background(), 1)
	if err != nil || a.Assignee() != "bob" || a.State() != alert.New || len(a.Changes) != 2 || a.Changes[1].By != "ann" || !a.Assigned(1) {
		t.Fatalf("alert 1 assigned: %+v, %v; want new, assigned to bob by ann", a, err)
	}
	if resp, body := ann.do(http.MethodPost, "/alerts/1/assign", url.Values{"csrf": {csrf}, "assignee": {"bob"}}, nil); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "assigned to bob already") {
		t.Errorf("assigning to the assignee again: %s:\n%s", resp.Status, body)
	}
	_, page := ann.do(http.MethodGet, "/alerts/1", nil, nil)
	for _, want := range []string{`<td id="alert-assignee">bob</td>`, `<td class="assigned">assigned to <span class="assignee">bob</span></td><td class="by">ann</td>`,
		`<input type="text" name="assignee" maxlength="200" value="bob">`} {
		if !strings.Contains(page, want) {
			t.Errorf("alert 1's page lacks %s", want)
		}
	}
	// In bulk, a hostile name: text on both pages.
	resp, body = ann.do(http.MethodPost, "/alerts/bulk/assign", url.Values{"csrf": {csrf}, "id": {"1", "3"}, "assignee": {hostile}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bulk assignment: %s:\n%s", resp.Status, body)
	}
	for _, id := range []int64{1, 3} {
		if a, err := db.Alert(context.Background(), id); err != nil || a.Assignee() != hostile || a.Changes[len(a.Changes)-1].By != "ann" {
			t.Errorf("alert %d after the bulk assignment: %+v, %v", id, a, err)
		}
	}
	_, list := get(t, srv.URL, "/alerts")
	if n := strings.Count(list, `<td class="assignee">`+html.EscapeString(hostile)+`</td>`); n != 2 || strings.Contains(list, hostile) {
		t.Errorf("the alerts page shows the assignee %d times, want 2, as text", n)
	}
	if _, page := get(t, srv.URL, "/alerts/3"); !strings.Contains(page, `<td id="alert-assignee">`+html.EscapeString(hostile)+`</td>`) || strings.Contains(page, hostile) {
		t.Errorf("alert 3's page lacks its assignee, as text")
	}
}

// The alerts of one commit range are one group, under a header that
// names the range (a link to the forge's comparison, with --range-url)
// and links its compare page.
func TestAlertsGroupedByRange(t *testing.T) {
	db, _ := testHistory(t)
	sameRange(t, db)
	s, err := New(db, Options{Archive: filepath.Dir(db.Name()), Links: Links{Range: "https://forge.example/r/compare/{base}...{change}"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	from, to := commitOf(nights-2), commitOf(nights-1)
	_, body := get(t, srv.URL, "/alerts")
	groups := regexp.MustCompile(`(?s)<tbody class="range-group">(.*?)</tbody>`).FindAllStringSubmatch(body, -1)
	if len(groups) != 2 {
		t.Fatalf("the alerts page has %d groups, want the range's and one of no range:\n%s", len(groups), body)
	}
	ranged := groups[0][1]
	for _, want := range []string{`<a class="range" href="https://forge.example/r/compare/` + from + `...` + to + `"`,
		`<a class="compare-range" href="/compare?a=` + from + `&amp;b=` + to + `">compare this range</a>`, "2 alerts",
		`<a href="/alerts/3">3</a>`, `<a href="/alerts/1">1</a>`} {
		if !strings.Contains(ranged, want) {
			t.Errorf("the range's group lacks %s:\n%s", want, ranged)
		}
	}
	if !strings.Contains(groups[1][1], "No commit range") || !strings.Contains(groups[1][1], `<a href="/alerts/2">2</a>`) {
		t.Errorf("the group of no range: %s", groups[1][1])
	}
	if strings.Count(body, `<tr class="group">`) != 2 {
		t.Errorf("the alerts page has %d group headers, want 2", strings.Count(body, `<tr class="group">`))
	}
	// Signed in: a box per alert, one for the range, a button per action.
	ann, _ := signedIn(t, srv, db, "ann")
	_, body = ann.do(http.MethodGet, "/alerts", nil, nil)
	for _, want := range []string{`<input type="checkbox" name="id" value="1"`, `<input type="hidden" name="seen-1" value="1">`,
		`class="pick-group"`, `formaction="/alerts/bulk/ack"`, `formaction="/alerts/bulk/assign"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the alerts page, signed in, lacks %s", want)
		}
	}
}

// An alert's page draws its series' chart, links the compare page of its
// range, and keeps the report and profile diff of the night that opened
// it when a later night finds it again.
func TestAlertPageChartCompareAndFirstReport(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	from, to := commitOf(nights-2), commitOf(nights-1)
	again := alert.Night{Time: nightTime(nights), Commit: commitOf(nights), By: "nightly"}
	f := alert.Finding{Kind: alert.Regression, Series: alert.Series{Benchmark: "havlak6", Figure: "real_seconds", Unit: "s",
		Workload: result.WorkloadQuick, EnvKey: envKey}, Size: 0.5, Before: 1, After: 1.5, Evidence: "1 → 1.5 s",
		Report:       "/var/lab/history/nights/20261107T020000Z-cg0000000000/report/index.html",
		ProfileDiffs: []string{"/var/lab/history/nights/20261107T020000Z-cg0000000000/report/stages/havlak6/cpu-diff.svg"},
		Range:        alert.Range{From: from, To: to, FromTime: nightTime(nights - 2), ToTime: nightTime(nights - 1)}}
	got, err := db.RecordAlerts(context.Background(), again, []alert.Finding{f}, func(alert.Alert) string { return "" })
	if err != nil || len(got) != 1 || got[0].ID != 1 {
		t.Fatalf("the next night: %+v, %v; want alert 1 found again", got, err)
	}
	_, page := get(t, srv.URL, "/alerts/1")
	for _, want := range []string{
		`<a id="compare-range" href="/compare?a=` + from + `&amp;b=` + to + `">compare this range</a>`,
		`<figure id="series-chart" data-points="/api/series?benchmark=havlak6&amp;env=` + url.QueryEscape(envKey) + `&amp;figure=real_seconds&amp;unit=s&amp;workload=quick">`,
		`<script src="/static/series.js"></script>`,
		"20261106T020000Z-cf0000000000/report/index.html", "20261106T020000Z-cf0000000000/report/stages/havlak6/cpu-diff.svg",
		"2026-11-06 to 2026-11-07",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("alert 1's page lacks %s", want)
		}
	}
	if strings.Contains(page, "cg0000000000/report") {
		t.Errorf("alert 1's page links the report of the night that found it again, not the first's")
	}
	// A stale benchmark's alert has no series to draw, nor a range.
	if _, page := get(t, srv.URL, "/alerts/2"); strings.Contains(page, "series-chart") || strings.Contains(page, "compare-range") {
		t.Errorf("alert 2's page draws a chart or links a compare")
	}
}

// With --issue-url, an alert's page offers to file an issue titled from
// the alert (what, how big, where), its title query-escaped; without, it
// does not.
func TestFileAnIssue(t *testing.T) {
	db, _ := testHistory(t)
	if _, page := get(t, serve(t, db).URL, "/alerts/1"); strings.Contains(page, "file-issue") {
		t.Errorf("the alert's page offers an issue with no template")
	}
	s, err := New(db, Options{Archive: filepath.Dir(db.Name()), Links: Links{Issue: "https://forge.example/r/issues/new?title={title}"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, page := get(t, srv.URL, "/alerts/1")
	m := regexp.MustCompile(`<a id="file-issue" href="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the alert's page lacks the file-an-issue link:\n%s", page)
	}
	u, err := url.Parse(html.UnescapeString(m[1]))
	want := "regression: havlak6 real_seconds (quick) +50.00% (1 → 1.5 s), ce0000000000..cf0000000000"
	if err != nil || u.Host != "forge.example" || u.Query().Get("title") != want {
		t.Errorf("file an issue: %s (%v), want the title %q", m[1], err, want)
	}
	// The hostile benchmark's alert: its name is in the title, escaped.
	_, page = get(t, srv.URL, "/alerts/2")
	m = regexp.MustCompile(`<a id="file-issue" href="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || strings.Contains(page, hostile) {
		t.Fatalf("alert 2's issue link: %v, or its name as markup", m)
	}
	if u, err := url.Parse(html.UnescapeString(m[1])); err != nil || !strings.Contains(u.Query().Get("title"), hostile) || u.Host != "forge.example" {
		t.Errorf("alert 2's issue: %s, %v; want the hostile name in the title", m[1], err)
	}
}

// In a browser, signed in: the range's box ticks its two alerts, and one
// Acknowledge with one note acknowledges both.
func TestBulkTriageInBrowser(t *testing.T) {
	db, _ := testHistory(t)
	sameRange(t, db)
	token := addUser(t, db, "ann")
	srv := serve(t, db)
	d := webdrivertest.Start(t, 1400)
	d.Open(srv.URL + "/alerts/1")
	signInBrowser(t, d, token)
	d.Open(srv.URL + "/alerts")
	d.Click("input.pick-group")
	var ticked int
	d.Script(&ticked, `return document.querySelectorAll('input[name="id"]:checked').length`)
	if ticked != 2 {
		t.Fatalf("the range's box ticked %d alerts, want its 2", ticked)
	}
	d.Call("POST", "/element/"+d.Element(`#bulk input[name="text"]`)+"/value", map[string]string{"text": "one change"})
	d.Click(`#bulk button[formaction="/alerts/bulk/ack"]`)
	waitFor(t, d, "the alerts page again, both acknowledged",
		`location.pathname == "/alerts" && document.querySelectorAll("tr.acknowledged").length == 3`)
	d.Screenshot("/screenshot", "alerts.png")
	for _, id := range []int64{1, 3} {
		if got := changes(t, db, id); got[len(got)-1].State != alert.Acknowledged || got[len(got)-1].By != "ann" || got[len(got)-1].Note != "one change" {
			t.Errorf("alert %d: %+v; want acknowledged by ann", id, got)
		}
	}
}
