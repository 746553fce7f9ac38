package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/webdrivertest"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/result"
)

// waitFor polls the page's JavaScript expression until it is true.
func waitFor(t *testing.T, d *webdrivertest.Driver, what, js string) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		var ok bool
		d.Script(&ok, "return Boolean("+js+")")
		if ok {
			return
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("waited 20 s for %s", what)
		}
	}
}

// The dashboard in a real browser (Chromium): the series chart draws
// every night of the series and hovering a point names its commit; the
// compare page's "only changed" takes rows away; hostile names show as
// text and run nothing. A dialog opened by a script would fail every
// WebDriver command after it ("unexpected alert open").
func TestDashboardInBrowser(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // pprof reads its settings there
	db, _ := testHistory(t)
	srv := serve(t, db)
	d := webdrivertest.Start(t, 1400)

	// The series page, picked as a visitor does: only the benchmark given.
	d.Open(srv.URL + "/series?benchmark=havlak6")
	waitFor(t, d, "the chart", "window.seriesChart")
	var chart struct {
		URL     string
		Points  int
		Painted int
		Count   string
	}
	d.Script(&chart, `const u = window.seriesChart;
		const canvas = document.querySelector("#series-chart canvas");
		const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
		let painted = 0;
		for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
		return {url: location.search, points: u.data[0].length, painted: painted,
			count: document.querySelector("#series-chart .count").textContent};`)
	if !strings.Contains(chart.URL, "figure=real_seconds") || !strings.Contains(chart.URL, "env="+envKey) {
		t.Errorf("the address %s does not name the series shown", chart.URL)
	}
	if chart.Points != nights || chart.Count != fmt.Sprintf("%d points, 1 alert.", nights) || chart.Painted < 2000 {
		t.Errorf("the chart has %d points (%q), %d pixels painted; want %d points drawn", chart.Points, chart.Count, chart.Painted, nights)
	}
	var at webdrivertest.MouseStep
	d.Script(&at, fmt.Sprintf(`const u = window.seriesChart, box = u.over.getBoundingClientRect();
		return {x: box.left + u.valToPos(u.data[0][%d], "x") - 2, y: box.top + u.valToPos(u.data[1][%[1]d], u.series[1].scale)};`, nights-1))
	at.Do = "move"
	d.Mouse(at)
	var tip string
	d.Script(&tip, `const tip = document.querySelector("#series-chart .tooltip"); return tip.hidden ? "" : tip.innerText;`)
	for _, want := range []string{commitOf(nights - 1), nightTime(nights - 1).Format("2006-01-02"), "median 1.5 s", "5 runs"} {
		if !strings.Contains(tip, want) {
			t.Errorf("hovering the last night shows %q, want %q in it", tip, want)
		}
	}
	d.Screenshot("/screenshot", "series.png")
	checkAxes(t, d)

	// The alerts of the series, drawn: as many markers as the page's own
	// data (/api/series) has alerts, each listed with its state.
	var marks struct {
		Drawn, Listed, InData int
		States, Colour        string
	}
	value := d.Call("POST", "/execute/async", map[string]any{"args": []any{}, "script": `
		const done = arguments[0], fig = document.getElementById("series-chart");
		fetch(fig.dataset.points).then(r => r.json()).then(data => done({drawn: window.seriesMarkers.length,
			listed: document.querySelectorAll("#markers li").length, inData: data.markers.length,
			states: window.seriesMarkers.map(m => m.alert.state + " " + m.alert.kind).join(","),
			colour: getComputedStyle(document.querySelector("#markers li")).color}));`})
	if err := json.Unmarshal(value, &marks); err != nil {
		t.Fatal(err)
	}
	if marks.InData != 1 || marks.Drawn != marks.InData || marks.Listed != marks.InData || marks.States != "new regression" {
		t.Errorf("alerts: %+v; want the 1 of the page's data drawn and listed (new regression)", marks)
	}
	// Listed in its state's colour (tools/alert's rules, /states.css):
	// #b00020.
	if marks.Colour != "rgb(176, 0, 32)" || alert.RuleOf(alert.New).Colour != "#b00020" {
		t.Errorf("the new alert is listed in %s, want its state's colour %s", marks.Colour, alert.RuleOf(alert.New).Colour)
	}

	// A click on the last point opens its night: the compare page of its
	// commit against the night before.
	at.Do = "down"
	d.Mouse(at, webdrivertest.MouseStep{Do: "up", X: at.X, Y: at.Y})
	waitFor(t, d, "the night's panel", `!document.getElementById("night").hidden`)
	var compare string
	d.Script(&compare, `return document.querySelector("#night a.compare").getAttribute("href")`)
	if want := "/compare?a=" + commitOf(nights-2) + "&b=" + commitOf(nights-1); compare != want {
		t.Errorf("the last night's compare link is %q, want %q", compare, want)
	}

	// The night's panel links the night's report and the flame graph of
	// each profile its result keeps, from the archive; the CPU profile's
	// link opens pprof's own flame graph, drawn, and pprof's own links
	// stay under the result's address.
	var panel struct {
		Report string
		Kinds  []string
	}
	d.Script(&panel, `return {report: document.querySelector("#night a.report").getAttribute("href"),
		kinds: Array.from(document.querySelectorAll("#night a.flamegraph"), a => a.dataset.kind)}`)
	if panel.Report != "/nights/"+lastNight+"/report/" || fmt.Sprint(panel.Kinds) != "[cpu heap]" {
		t.Errorf("the last night's panel links %+v; want its report and the cpu and heap flame graphs", panel)
	}
	d.Screenshot("/screenshot", "night.png")
	d.Click(`#night a.flamegraph[data-kind="cpu"]`)
	waitFor(t, d, "pprof's flame graph", `document.querySelectorAll("#stack-chart .boxbg").length > 1`)
	var flame struct {
		Path, Origin, Title string
		Boxes               int
	}
	d.Script(&flame, `return {path: location.pathname, origin: window.origin, title: document.title,
		boxes: document.querySelectorAll("#stack-chart .boxbg").length}`)
	if !regexp.MustCompile(`^/results/[0-9a-f]{64}/profiles/cpu/flamegraph$`).MatchString(flame.Path) || flame.Origin != "null" {
		t.Errorf("the flame graph: %+v; want pprof's page of the result's CPU profile, sandboxed (origin null)", flame)
	}
	t.Logf("pprof's flame graph %q: %d boxes", flame.Title, flame.Boxes)
	d.Screenshot("/screenshot", "flamegraph.png")
	d.Script(nil, `document.getElementById("topbtn").click()`)
	waitFor(t, d, "pprof's top table", `location.pathname.endsWith("/profiles/cpu/top") && document.getElementById("toptable")`)

	// The night's report: its own script runs, in a sandbox with no
	// origin of the dashboard's: its cookies are out of its reach.
	d.Open(srv.URL + panel.Report)
	var report struct{ Heading, Title, Origin, Cookie string }
	d.Script(&report, `let cookie;
		try { cookie = "read: " + document.cookie; } catch (e) { cookie = e.name; }
		return {heading: document.getElementById("night-report").textContent, title: document.title,
			origin: window.origin, cookie: cookie};`)
	if report.Heading != "The night of "+commitOf(nights-1) || !strings.HasPrefix(report.Title, "ran") ||
		report.Origin != "null" || report.Cookie != "SecurityError" {
		t.Errorf("the night's report: %+v; want it shown, its script run, sandboxed (origin null, no cookies)", report)
	}

	// Two series overlaid, in two units: two median lines (and their
	// bands) in uPlot, a second value axis.
	d.Open(srv.URL + "/series?" + seriesQuery("havlak6", "real_seconds", "s") + "&s=" +
		url.QueryEscape(strings.Join([]string{"havlak6cc", "own_instructions", "instructions", "quick", envKey}, "|")))
	waitFor(t, d, "the overlaid chart", "window.seriesChart")
	var overlay struct {
		Series  int
		Medians []string
		Axes    int
		Count   string
	}
	d.Script(&overlay, `const u = window.seriesChart;
		return {series: u.series.length, medians: u.series.filter(s => / median$/.test(s.label || "")).map(s => s.label),
			axes: u.axes.length, count: document.querySelector("#series-chart .count").textContent};`)
	if overlay.Series != 1+2*3 || len(overlay.Medians) != 2 || overlay.Axes != 3 ||
		!strings.HasPrefix(overlay.Count, fmt.Sprintf("%d points in 2 series", 2*nights)) {
		t.Errorf("two series overlaid: %+v; want 7 uPlot series (x, and median, min, max of each), 2 medians, 3 axes", overlay)
	}
	d.Screenshot("/screenshot", "overlay.png")
	checkLegend(t, d, 2)
	checkViews(t, d, srv.URL)
	checkZoomKept(t, d, srv.URL)
	checkMultiples(t, d)

	// The compare page: "only changed" reloads it with fewer rows.
	d.Open(srv.URL + "/compare?a=" + commitOf(0) + "&b=" + commitOf(nights-1))
	count := func() int {
		var n int
		d.Script(&n, `return document.querySelectorAll("#compare tbody tr").length`)
		return n
	}
	all := count()
	d.Click("#only-changed")
	waitFor(t, d, "the filtered page", `location.search.includes("changed=1")`)
	if changed := count(); all == 0 || changed == 0 || changed >= all {
		t.Errorf("only changed: %d rows of %d", changed, all)
	}
	d.Screenshot("/screenshot", "compare.png")

	// The cost filter: the rows become those of the figures of time.
	costs := func() string {
		var got string
		d.Script(&got, `return Array.from(document.querySelectorAll("#compare tbody tr"), tr => tr.dataset.cost).join(",")`)
		return got
	}
	before := costs()
	d.Call("POST", "/execute/sync", map[string]any{"args": []any{}, "script": `
		const select = document.querySelector("select[name=cost]");
		select.value = "time";
		select.dispatchEvent(new Event("change"));`})
	waitFor(t, d, "the page filtered by cost", `location.search.includes("cost=time")`)
	after := costs()
	if after == before || after == "" || strings.Trim(strings.ReplaceAll(after, "time", ""), ",") != "" {
		t.Errorf("cost=time: the rows' costs went from %q to %q; want only time's rows", before, after)
	}

	// Hostile names, on the series page of the forged benchmark and of the
	// hostile figure, and on the alerts page.
	for _, path := range []string{
		"/series?" + seriesQuery(hostile, "real_seconds", "s"),
		"/series?" + seriesQuery("havlak6", hostile, "count"),
		"/series/multiples?figure=real_seconds&unit=s&workload=quick",
		"/alerts",
	} {
		d.Open(srv.URL + path)
		var page struct {
			Images int
			Text   string
		}
		d.Script(&page, `return {images: document.images.length, text: document.body.innerText}`)
		if page.Images != 0 || !strings.Contains(page.Text, hostile) {
			t.Errorf("%s: %d images; the name shown as text: %v", path, page.Images, strings.Contains(page.Text, hostile))
		}
		if path == "/alerts" && !strings.Contains(page.Text, "<script>alert(2)</script> known") {
			t.Errorf("/alerts: the hostile note is not shown as text")
		}
	}
	d.Screenshot("/screenshot", "alerts.png")

	checkCompare(t, d, srv.URL, routerNights(t, db))
}

// checkCompare: the compare page fits the 1400 px window, its evidence
// folded (one click opens it); its summary counts its rows' verdicts; its
// improvements are of class improved, and green.
func checkCompare(t *testing.T, d *webdrivertest.Driver, srvURL, router string) {
	t.Helper()
	type page struct {
		Window, Table, Document int
		Counts, Rows            map[string]int
		Improved, Green         int
		First                   string
	}
	look := func(query string) page {
		d.Open(srvURL + "/compare?" + query)
		var p page
		d.Script(&p, `const counts = {}, rows = {};
			document.querySelectorAll("#compare-summary a.count").forEach(a => counts[a.dataset.outcome] = Number(a.dataset.n));
			document.querySelectorAll("#compare tbody tr").forEach(tr => rows[tr.dataset.outcome] = (rows[tr.dataset.outcome] || 0) + 1);
			const improved = document.querySelectorAll("#compare tbody tr.improved");
			const green = Array.from(improved).filter(tr => getComputedStyle(tr.querySelector("td.change")).color === "rgb(27, 127, 42)");
			return {window: window.innerWidth, table: document.getElementById("compare").scrollWidth,
				document: document.documentElement.scrollWidth, counts: counts, rows: rows,
				improved: improved.length, green: green.length,
				first: document.querySelector("#compare tbody tr").innerText};`)
		if p.Table > p.Window || p.Document > p.Window {
			t.Errorf("%s: the table is %d px wide, the page %d, in a window of %d", query, p.Table, p.Document, p.Window)
		}
		for o, n := range p.Counts {
			if p.Rows[o] != n {
				t.Errorf("%s: the summary counts %d %s, the table has %d", query, n, o, p.Rows[o])
			}
		}
		if p.Improved != p.Rows["improved"] || p.Green != p.Improved {
			t.Errorf("%s: %d rows of class improved (%d green), %d improved", query, p.Improved, p.Green, p.Rows["improved"])
		}
		return p
	}
	look("a=" + commitOf(0) + "&b=" + commitOf(nights-1))
	var open bool
	d.Click("#compare tbody tr.regressed details summary")
	d.Script(&open, `return document.querySelector("#compare tbody tr.regressed details").open`)
	if !open {
		t.Error("a click on a regression's evidence does not open it")
	}
	// Every row's evidence open, the table still fits: long words wrap.
	var width struct{ Window, Table int }
	d.Script(&width, `document.querySelectorAll("#compare details").forEach(e => e.open = true);
		return {window: window.innerWidth, table: document.getElementById("compare").scrollWidth};`)
	if width.Table > width.Window {
		t.Errorf("every evidence open, the table is %d px wide in a window of %d", width.Table, width.Window)
	}
	p := look(router)
	if p.Improved != 1 || !strings.Contains(p.First, "requests_per_second") {
		t.Errorf("router: %d improvements, first row %q; want 1, and requests_per_second first", p.Improved, p.First)
	}
	d.Screenshot("/screenshot", "compare-summary.png")
}

// An attribution in a real browser (attribution.go): the source's lines
// that the change added are marked, by their class (drawn in the added
// lines' colour, the page's style loaded under the CSP) and by a text that
// only screen readers read; the changed lines of the lines table too;
// hostile names stay text.
func TestAttributionInBrowser(t *testing.T) {
	db, repo, a, b, _ := attributionFixture(t)
	srv := serveAttribution(t, db, repo)
	d := webdrivertest.Start(t, 1400)
	d.Open(srv.URL + attributionLink(b, a, "own_instructions"))
	var page struct {
		Added, Said     []string
		Background      string
		HiddenWidth     float64
		Changed, Images int
		FirstFunction   string
		Total           string
	}
	d.Script(&page, `const added = Array.from(document.querySelectorAll("table.source-lines tr.added"));
		const hidden = added.length ? added[0].querySelector("td.mark .visually-hidden") : null;
		return {added: added.map(tr => tr.cells[1].textContent),
			said: added.map(tr => tr.querySelector("td.mark .visually-hidden").textContent),
			background: added.length ? getComputedStyle(added[0].cells[5]).backgroundColor : "",
			hiddenWidth: hidden ? hidden.getBoundingClientRect().width : -1,
			changed: document.querySelectorAll("#lines tr.changed").length, images: document.images.length,
			firstFunction: document.querySelector("#functions tbody tr").innerText,
			total: document.getElementById("attribution-total").innerText};`)
	if fmt.Sprint(page.Added) != "[4 8 9 10]" || page.Background != "rgb(230, 255, 236)" {
		t.Errorf("the source marks lines %v (background %s), want the change's 4, 8, 9 and 10 in rgb(230, 255, 236)", page.Added, page.Background)
	}
	for _, said := range page.Said {
		if said != "added or edited by the change" {
			t.Errorf("an added line says %q to a screen reader", said)
		}
	}
	if page.HiddenWidth > 1 {
		t.Errorf("the screen readers' marker is %.0f px wide, want it out of sight", page.HiddenWidth)
	}
	if page.Changed != 4 || page.Images != 0 || !strings.HasPrefix(page.FirstFunction, "main.findLoops") ||
		!strings.HasPrefix(page.Total, "+4,002 own_instructions") {
		t.Errorf("the page: %+v; want 4 changed lines listed (4 both sides', 8, 9), main.findLoops first, +4,002 in all, no image", page)
	}
	d.Screenshot("/screenshot", "attribution.png")
}

// fetchStatus posts from the page with a script, as another page's script
// or a forged form would, and returns the response's status.
func fetchStatus(t *testing.T, d *webdrivertest.Driver, path, csrf string) int {
	t.Helper()
	var status int
	value := d.Call("POST", "/execute/async", map[string]any{"args": []any{path, csrf}, "script": `
		const [path, csrf, done] = arguments;
		const headers = {"Content-Type": "application/x-www-form-urlencoded"};
		if (csrf) headers["X-CSRF-Token"] = csrf;
		fetch(path, {method: "POST", headers: headers, body: "note=from+a+script"}).then(r => done(r.status), e => done(-1));`})
	if err := json.Unmarshal(value, &status); err != nil {
		t.Fatal(err)
	}
	return status
}

// Triage in a real browser: nobody signed in is refused (401) and sees no
// form; signed in through the form, a write with a wrong CSRF token is
// refused (403); an acknowledgement with a hostile note changes the state,
// survives a reload, shows the note as text, and is in the history as
// history alerts reads it.
func TestTriageInBrowser(t *testing.T) {
	db, _ := testHistory(t)
	token := addUser(t, db, "ann")
	srv := serve(t, db)
	d := webdrivertest.Start(t, 1400)
	ctx := context.Background()

	d.Open(srv.URL + "/alerts/1")
	var forms int
	d.Script(&forms, `return document.querySelectorAll("form.action").length`)
	if forms != 0 {
		t.Errorf("nobody signed in sees %d triage forms", forms)
	}
	if status := fetchStatus(t, d, "/alerts/1/fix", ""); status != http.StatusUnauthorized {
		t.Errorf("a write from the page, nobody signed in: %d, want 401", status)
	}

	signInBrowser(t, d, token)
	if status := fetchStatus(t, d, "/alerts/1/fix", "not-the-token"); status != http.StatusForbidden {
		t.Errorf("a write with a wrong CSRF token: %d, want 403", status)
	}
	if a, err := db.Alert(ctx, 1); err != nil || a.State() != alert.New || len(a.Changes) != 1 {
		t.Fatalf("refused writes changed alert 1: %+v, %v", a.Changes, err)
	}

	note := `<script>alert(1)</script>`
	d.Call("POST", "/element/"+d.Element(`#action-ack input[name="note"]`)+"/value", map[string]string{"text": note})
	d.Click("#action-ack button")
	waitFor(t, d, "the acknowledged state", `document.getElementById("alert-state").textContent == "acknowledged"`)
	d.Open(srv.URL + "/alerts/1")
	var page struct {
		State, Why, By string
		Scripts        int
	}
	d.Script(&page, `const last = document.querySelector("#alert-changes tbody tr:last-child");
		return {state: document.getElementById("alert-state").textContent, why: last.querySelector(".why").textContent,
			by: last.querySelector(".by").textContent,
			scripts: document.querySelectorAll('main script:not([src="/static/series.js"]):not([src="/static/chart.js"]):not([src="/uplot/uPlot.iife.min.js"])').length};`)
	if page.State != "acknowledged" || page.Why != note || page.By != "ann" || page.Scripts != 0 {
		t.Errorf("after a reload: %+v; want acknowledged by ann, the note as text, no script but the chart's", page)
	}
	// The alert's page draws its series' chart, as the series page does.
	waitFor(t, d, "the series' chart on the alert's page", `document.querySelector("#series-chart .chart canvas") !== null`)
	d.Screenshot("/screenshot", "alert.png")

	// As history alerts lists it: the open alerts, with the note and who.
	all, err := db.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := all[0].Current(); all[0].ID != 1 || all[0].State() != alert.Acknowledged || c.By != "ann" || c.Note != note {
		t.Errorf("alert 1 in the history: %s by %s, %q", all[0].State(), c.By, c.Note)
	}
}

// signInBrowser signs in with token through the sign-in link of the
// alert page that d shows, and waits for alert 1's page, signed in.
func signInBrowser(t *testing.T, d *webdrivertest.Driver, token string) {
	t.Helper()
	d.Click("#signin-link")
	waitFor(t, d, "the sign-in form", `document.getElementById("token")`)
	d.Call("POST", "/element/"+d.Element("#token")+"/value", map[string]string{"text": token})
	d.Click("#signin button")
	waitFor(t, d, "alert 1's page, signed in", `location.pathname == "/alerts/1" && document.getElementById("signed-in")`)
}

// Two people triage one alert at once, each in a browser of their own
// (two Chromiums, two chromedrivers), signed in as themselves: both load
// the alert's page, then both submit, at once. One change is made; the
// other is refused with its reason (409: changed since it was shown,
// naming the state and who made it); the record is the one change, as
// both browsers see it after a reload and as the history has it.
func TestTriageInTwoBrowsers(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	people := []struct {
		name, action, field, text string
		state                     alert.State
		d                         *webdrivertest.Driver
	}{
		{name: "ann", action: "ack", field: "note", text: "looking at it", state: alert.Acknowledged},
		{name: "bob", action: "ignore", field: "reason", text: "noise of the VM", state: alert.Ignored},
	}
	for i := range people {
		p := &people[i]
		token := addUser(t, db, p.name)
		p.d = webdrivertest.Start(t, 1200)
		p.d.Open(srv.URL + "/alerts/1")
		signInBrowser(t, p.d, token)
		var shown struct{ User, State string }
		p.d.Script(&shown, `return {user: document.getElementById("signed-in").textContent,
			state: document.getElementById("alert-state").textContent}`)
		if shown.User != p.name || shown.State != "new" {
			t.Fatalf("%s's browser shows %+v, want alert 1 new, signed in as %s", p.name, shown, p.name)
		}
		p.d.Call("POST", "/element/"+p.d.Element("#action-"+p.action+` input[name="`+p.field+`"]`)+"/value", map[string]string{"text": p.text})
	}
	// Both submit: each click returns at once, the two forms' requests
	// are under way together.
	for _, p := range people {
		p.d.Script(nil, `window.shown = true; document.querySelector("#action-`+p.action+` button").click();`)
	}
	var won, lost []string
	answers := map[string]string{}
	for _, p := range people {
		waitFor(t, p.d, p.name+"'s answer", `!window.shown && document.readyState == "complete"`)
		var page string
		p.d.Script(&page, `return document.querySelector("main").innerText`)
		answers[p.name] = page
		if strings.Contains(page, "changed since it was shown") || strings.Contains(page, "not allowed in its state") {
			lost = append(lost, p.name)
		} else {
			won = append(won, p.name)
		}
		p.d.Screenshot("/screenshot", "two-browsers-"+p.name+".png")
	}
	if len(won) != 1 || len(lost) != 1 {
		t.Fatalf("%d changes made (%v), %d refused (%v); want one of each:\n%v", len(won), won, len(lost), lost, answers)
	}
	var winner, loser = people[0], people[1]
	if won[0] == people[1].name {
		winner, loser = people[1], people[0]
	}
	told := answers[loser.name]
	if i := strings.Index(told, "changed since"); i >= 0 {
		told = told[i:]
	}
	t.Logf("%s's %s won; %s was told: %s", winner.name, winner.action, loser.name, told)
	if !strings.Contains(answers[loser.name], "it is "+string(winner.state)+" now (by "+winner.name) ||
		!strings.Contains(answers[loser.name], "nothing was changed") {
		t.Errorf("%s's refusal does not say what %s made of it:\n%s", loser.name, winner.name, answers[loser.name])
	}
	a, err := db.Alert(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Current(); len(a.Changes) != 2 || a.State() != winner.state || c.By != winner.name || c.Note != winner.text {
		t.Errorf("alert 1 in the history: %d changes, %s by %s (%q); want the one change of %s", len(a.Changes), a.State(), c.By, c.Note, winner.name)
	}
	// Both browsers, reloaded, show the one record.
	for _, p := range people {
		p.d.Open(srv.URL + "/alerts/1")
		var seen struct {
			State string
			Rows  int
			By    string
		}
		p.d.Script(&seen, `const rows = document.querySelectorAll("#alert-changes tbody tr");
			return {state: document.getElementById("alert-state").textContent, rows: rows.length,
				by: rows[rows.length - 1].querySelector(".by").textContent};`)
		if seen.State != string(winner.state) || seen.Rows != 2 || seen.By != winner.name {
			t.Errorf("%s's browser, reloaded: %+v; want %s by %s, 2 states in the record", p.name, seen, winner.state, winner.name)
		}
	}
}

// checkAxes checks the axes of the chart d shows: the time axis' ticks
// are ISO dates; the value axis is as wide as its widest label, measured
// in its font; its labels read 349,700,000 whole ("349.7 M" among ticks a
// tenth of a million apart, in full among ticks 1 apart); fitted, a
// wobble of a thousandth takes at most a hundredth of the axis.
func checkAxes(t *testing.T, d *webdrivertest.Driver) {
	t.Helper()
	var axes struct {
		Dates, Values, Big, Full []string
		Size, Need, Left         float64
		Min, Max                 float64
	}
	d.Script(&axes, `const u = window.seriesChart, y = u.axes[1];
		const ctx = document.createElement("canvas").getContext("2d");
		ctx.font = y.font[0];
		const widest = Math.max(...y._values.map(v => ctx.measureText(v).width)) / devicePixelRatio;
		return {dates: u.axes[0]._values, values: y._values, size: y._size, need: y.ticks.size + y.gap + widest,
			left: u.bbox.left / devicePixelRatio,
			big: y.values(u, [349.6e6, 349.7e6, 349.8e6], 1, 50, 1e5), full: y.values(u, [349700000, 349700001], 1, 50, 1),
			min: u.scales[u.series[1].scale].min, max: u.scales[u.series[1].scale].max};`)
	iso := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for _, v := range axes.Dates {
		if !iso.MatchString(v) {
			t.Errorf("the time axis' tick %q is not an ISO date (of ticks %q)", v, axes.Dates)
			break
		}
	}
	if len(axes.Dates) < 2 || len(axes.Values) < 2 {
		t.Errorf("the axes' ticks: %q, %q", axes.Dates, axes.Values)
	}
	if axes.Size < axes.Need || axes.Left < axes.Size {
		t.Errorf("the value axis is %.0f px wide, its ticks and widest label (%q) need %.0f, the plot starts at %.0f", axes.Size, axes.Values, axes.Need, axes.Left)
	}
	if fmt.Sprint(axes.Big) != "[349.6 M 349.7 M 349.8 M]" || fmt.Sprint(axes.Full) != "[349,700,000 349,700,001]" {
		t.Errorf("349,700,000 on the value axis reads %q, and %q among ticks 1 apart", axes.Big, axes.Full)
	}
	// The series wobbles by 0.2% until the last night, which is 50% up:
	// the fitted axis holds all of it.
	if axes.Min > 0.98 || axes.Max < 1.5*1.02 {
		t.Errorf("the fitted value axis spans %g to %g, want the band from 0.98 to 1.53", axes.Min, axes.Max)
	}
}

// checkLegend checks the legend of the chart d shows: every series, the
// chosen one first, each in its own colour, that of its median's line.
func checkLegend(t *testing.T, d *webdrivertest.Driver, series int) {
	t.Helper()
	var legend struct {
		Items, Strokes, Swatches []string
		Chosen                   bool
	}
	d.Script(&legend, `const u = window.seriesChart, items = Array.from(document.querySelectorAll("#legend li"));
		return {items: items.map(li => li.textContent.trim()), chosen: items[0].classList.contains("chosen"),
			swatches: items.map(li => getComputedStyle(li.querySelector(".swatch")).backgroundColor),
			strokes: items.map((li, k) => { const s = u.series[1 + 3 * k], c = typeof s.stroke == "function" ? s.stroke(u, 1 + 3 * k) : s.stroke;
				const e = document.createElement("span"); e.style.color = c; document.body.appendChild(e);
				const rgb = getComputedStyle(e).color; e.remove(); return rgb; })};`)
	distinct := map[string]bool{}
	for _, c := range legend.Swatches {
		distinct[c] = true
	}
	if len(legend.Items) != series || !legend.Chosen || len(distinct) != series || fmt.Sprint(legend.Swatches) != fmt.Sprint(legend.Strokes) {
		t.Errorf("the legend: %+v; want %d series, the chosen one first, each in its line's colour, all distinct", legend, series)
	}
}

// checkViews switches the overlaid chart d shows to the relative view and
// to a log scale, each kept in the address and there after a reload.
func checkViews(t *testing.T, d *webdrivertest.Driver, base string) {
	t.Helper()
	choose := func(name, value string) {
		d.Call("POST", "/execute/sync", map[string]any{"args": []any{name, value}, "script": `
			const select = document.querySelector("#view select[name=" + arguments[0] + "]");
			select.value = arguments[1];
			select.dispatchEvent(new Event("change"));`})
	}
	var rel struct {
		Search     string
		Axes       int
		First, Max []float64
		Label      string
	}
	read := func() {
		d.Script(&rel, `const u = window.seriesChart;
			return {search: location.search, axes: u.axes.length, first: [u.data[1][0], u.data[4][0]],
				max: [Math.max(...u.data[1].filter(v => v != null))], label: u.axes[1].label};`)
	}
	choose("view", "relative")
	read()
	// havlak6's real time is 50% up on the last night.
	if !strings.Contains(rel.Search, "view=relative") || rel.Axes != 2 || fmt.Sprint(rel.First) != "[0 0]" ||
		len(rel.Max) != 1 || rel.Max[0] < 49.9 || rel.Max[0] > 50.1 || rel.Label != "% from the reference" {
		t.Errorf("relative: %+v; want one axis in %% from each series' first point (0), the last night +50%%, kept in the address", rel)
	}
	d.Screenshot("/screenshot", "overlay-relative.png")
	d.Open(base + "/series" + rel.Search)
	waitFor(t, d, "the reloaded chart", "window.seriesChart")
	read()
	if !strings.Contains(rel.Search, "view=relative") || fmt.Sprint(rel.First) != "[0 0]" {
		t.Errorf("reloaded: %+v; want the relative view still", rel)
	}
	// The second night as the reference, from its night's panel.
	var at webdrivertest.MouseStep
	d.Script(&at, `const u = window.seriesChart, box = u.over.getBoundingClientRect();
		return {x: box.left + u.valToPos(u.data[0][1], "x"), y: box.top + u.valToPos(u.data[1][1], "%")};`)
	at.Do = "down"
	d.Mouse(webdrivertest.MouseStep{Do: "move", X: at.X, Y: at.Y}, at, webdrivertest.MouseStep{Do: "up", X: at.X, Y: at.Y})
	waitFor(t, d, "the night's panel", `!document.getElementById("night").hidden`)
	d.Click("#night button.reference")
	var ref struct {
		Search, Note string
		Second       float64
	}
	d.Script(&ref, `return {search: location.search, second: window.seriesChart.data[1][1], note: document.getElementById("reference").textContent}`)
	if want := "ref=" + url.QueryEscape(nightTime(1).Format(time.RFC3339)); !strings.Contains(ref.Search, want) || ref.Second != 0 ||
		!strings.Contains(ref.Note, nightTime(1).Format("2006-01-02 15:04")) {
		t.Errorf("the second night as the reference: %+v; want %s in the address, its point at 0%%, said", ref, want)
	}
	choose("view", "absolute")
	choose("scale", "log")
	var log struct {
		Search string
		Distr  int
	}
	d.Script(&log, `return {search: location.search, distr: window.seriesChart.scales.s.distr}`)
	if !strings.Contains(log.Search, "scale=log") || strings.Contains(log.Search, "view=") || log.Distr != 3 {
		t.Errorf("log scale: %+v; want the scale logarithmic (distr 3), kept in the address", log)
	}
	choose("scale", "linear")
	// Another series picked keeps the view; so does taking one off.
	choose("view", "relative")
	d.Script(&rel.Search, `return document.querySelector("#legend a.remove").getAttribute("href")`)
	if !strings.Contains(rel.Search, "view=relative") {
		t.Errorf("the remove link %s loses the relative view", rel.Search)
	}
	d.Call("POST", "/execute/sync", map[string]any{"args": []any{}, "script": `
		const select = document.querySelector("#pick select[name=figure]");
		select.value = "own_instructions";
		select.dispatchEvent(new Event("change"));`})
	waitFor(t, d, "the page of another figure", `location.search.includes("figure=own_instructions") && window.seriesChart`)
	d.Script(&rel.Search, `return location.search`)
	if !strings.Contains(rel.Search, "view=relative") {
		t.Errorf("another figure picked: %s, the relative view lost", rel.Search)
	}
}

// checkZoomKept zooms into the first nights of havlak6's real time by a
// drag: the address keeps the zoom, a reload shows it again, and the
// fitted axis shows the 0.2% wobble of those nights as small.
func checkZoomKept(t *testing.T, d *webdrivertest.Driver, base string) {
	t.Helper()
	d.Open(base + "/series?" + seriesQuery("havlak6", "real_seconds", "s"))
	waitFor(t, d, "the chart", "window.seriesChart")
	var from, to webdrivertest.MouseStep
	d.Script(&from, `const u = window.seriesChart, box = u.over.getBoundingClientRect();
		return {x: box.left + u.valToPos(u.data[0][0], "x") + 3, y: box.top + 20};`)
	d.Script(&to, fmt.Sprintf(`const u = window.seriesChart, box = u.over.getBoundingClientRect();
		return {x: box.left + u.valToPos(u.data[0][%d], "x") + 3, y: box.top + 20};`, nights-2))
	from.Do, to.Do = "down", "up"
	d.Mouse(from, webdrivertest.MouseStep{Do: "move", X: (from.X + to.X) / 2, Y: from.Y}, to)
	waitFor(t, d, "the zoom in the address", `location.search.includes("from=") && location.search.includes("to=")`)
	var zoom struct {
		Search           string
		Min, Max, Lo, Hi float64
	}
	read := func() {
		d.Script(&zoom, `const u = window.seriesChart;
			return {search: location.search, min: u.scales.x.min, max: u.scales.x.max, lo: u.scales.s.min, hi: u.scales.s.max};`)
	}
	read()
	saved := zoom
	d.Open(base + "/series" + saved.Search)
	waitFor(t, d, "the reloaded chart", "window.seriesChart")
	read()
	if zoom.Search != saved.Search || abs(zoom.Min-saved.Min) > 1 || abs(zoom.Max-saved.Max) > 1 ||
		saved.Max > float64(nightTime(nights-1).Unix()) || saved.Min < float64(nightTime(0).Unix()) {
		t.Errorf("the zoom %+v after a reload is %+v; want the same window, before the last night", saved, zoom)
	}
	// The nights shown are 1 and 1.002 s, their bands 0.98 to 1.022: the
	// axis spans at least a tenth of a second.
	if zoom.Hi-zoom.Lo < 0.1 || zoom.Lo > 0.98 || zoom.Hi < 1.02 || zoom.Hi > 1.2 {
		t.Errorf("the fitted axis of the zoomed nights spans %g to %g; want at least 0.1 s around 0.98 to 1.02", zoom.Lo, zoom.Hi)
	}
	d.Screenshot("/screenshot", "series-zoomed.png")
}

func abs(x float64) float64 { return max(x, -x) }

// checkMultiples follows the series page's link to its figure across
// benchmarks: a chart each, every one drawn with its points, all on one
// time range, with ISO dates and value labels no wider than their axis.
func checkMultiples(t *testing.T, d *webdrivertest.Driver) {
	t.Helper()
	d.Click("#multiples-link")
	waitFor(t, d, "the small multiples", "window.multiplesCharts")
	var m struct {
		Figures int
		Points  []int
		Ranges  []string
		Dates   []string
		Fit     []bool
	}
	d.Script(&m, `const charts = window.multiplesCharts;
		return {figures: document.querySelectorAll("#multiples figure").length, points: charts.map(u => u.data[0].length),
			ranges: charts.map(u => u.scales.x.min + ".." + u.scales.x.max), dates: charts[0].axes[0]._values,
			fit: charts.map(u => u.axes[1]._size >= u.axes[1].ticks.size + u.axes[1].gap)};`)
	distinct := map[string]bool{}
	for _, r := range m.Ranges {
		distinct[r] = true
	}
	iso := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	if m.Figures != 3 || len(m.Points) != 3 || m.Points[1] != nights || len(distinct) != 1 || len(m.Dates) == 0 || !iso.MatchString(m.Dates[0]) {
		t.Errorf("the small multiples: %+v; want 3 charts (havlak6's of %d points), one time range, ISO dates", m, nights)
	}
	d.Screenshot("/screenshot", "multiples.png")
}

// The landing page in a real browser: the last night's first regression
// is the seeded one (havlak6's real time, 1 s to 1.5 s), its sparkline is
// drawn, the hostile names show as text; the page fits a window of 800
// px; picking the night before
// submits the picker and shows that night, of no regression.
func TestLandingInBrowser(t *testing.T) {
	db, _ := testHistory(t)
	// With a forge's commit template: the night's commit is a link to it.
	const forge = "https://forge.example/lab/commit/"
	s, err := New(db, Options{Archive: filepath.Dir(db.Name()), Links: Links{Commit: forge + "{commit}"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	d := webdrivertest.Start(t, 1400)

	d.Open(srv.URL + "/")
	var page struct {
		First      string
		SparkWidth float64
		Points     int
		Alerts     int
		Hostile    int
		Commit     string
	}
	d.Script(&page, `const row = document.querySelector("#regressed tbody tr");
		const spark = row.querySelector("svg.spark");
		const commit = document.querySelector("h1 a.commit");
		return {first: row.innerText, sparkWidth: spark.getBoundingClientRect().width,
			points: spark.querySelector("polyline").points.numberOfItems,
			alerts: document.querySelectorAll(".night-alerts li").length,
			hostile: document.querySelectorAll("main img").length,
			commit: commit ? commit.href : ""};`)
	if page.Commit != forge+commitOf(nights-1) {
		t.Errorf("the night's commit links %q, want %q", page.Commit, forge+commitOf(nights-1))
	}
	for _, want := range []string{"havlak6", "real_seconds", "1.5", "+50.00%", "REGRESSED"} {
		if !strings.Contains(page.First, want) {
			t.Errorf("the first regression reads %q, want %q in it", page.First, want)
		}
	}
	if page.SparkWidth != 120 || page.Points != nights || page.Alerts != 2 || page.Hostile != 0 {
		t.Errorf("the page: %+v; want a sparkline 120 px wide of %d points, 2 alerts, no <img>", page, nights)
	}
	d.Screenshot("/screenshot", "landing.png")

	// In a window 800 px wide nothing is wider than the window, the
	// sparklines still drawn.
	d.Call("POST", "/window/rect", map[string]int{"width": 800, "height": 1800})
	var narrow struct {
		Window, Document int
		Spark            float64
	}
	d.Script(&narrow, `return {window: window.innerWidth, document: document.documentElement.scrollWidth,
		spark: document.querySelector("#regressed svg.spark").getBoundingClientRect().width}`)
	if narrow.Window > 800 || narrow.Document > narrow.Window || narrow.Spark == 0 {
		t.Errorf("the landing page in a narrow window: %+v; want it no wider than a window of at most 800 px, its sparklines drawn", narrow)
	}
	d.Screenshot("/screenshot", "landing-800.png")

	prev := day(nightTime(nights - 2))
	d.Script(nil, `const picker = document.getElementById("night-picker");
		picker.value = "`+prev+`"; picker.form.submit();`)
	waitFor(t, d, "the night before", `document.getElementById("night") && document.getElementById("night").textContent === "`+prev+`"`)
	var regressed int
	d.Script(&regressed, `return document.querySelectorAll("#regressed tbody tr").length`)
	if regressed != 0 {
		t.Errorf("the night of %s shows %d regressions, want none", prev, regressed)
	}
}

// The charts' numbers in a real browser, chart.js as the pages load it:
// at every step uPlot picks between ticks (1, 2, 2.5 and 5 times 10^k),
// from 10^-6 to 10^12, each value axis label reads back as its tick, in
// SI and in percent, and no two ticks share a label; a hover's value
// reads back as the value itself. A series of one point is drawn in the
// middle of two days. A name with bidi controls shows as their escapes,
// written by the page's script as the server writes them (cli.Printable).
func TestChartInBrowser(t *testing.T) {
	db := newHistory(t)
	ingestResult(t, db, program("havlak6", 6, 0, 1, 1.69e8, "",
		result.Metric{Name: reversedFigure, Unit: "count", Source: "test", Values: []float64{7}}))
	srv := serve(t, db)
	d := webdrivertest.Start(t, 1400)
	d.Open(srv.URL + "/series?benchmark=havlak6")
	waitFor(t, d, "the chart", "window.seriesChart")

	var axes []struct {
		Step             float64
		Ticks            []float64
		Labels, Percents []string
	}
	d.Script(&axes, `const C = window.labChart, out = [];
		for (let k = -6; k <= 12; k++) for (const m of [1, 2, 2.5, 5]) {
			// As uPlot makes its steps and ticks (genIncrs, numAxisSplits):
			// rounded to the step's decimals.
			const dec = Math.max(0, (m === 2.5 ? 1 : 0) - k);
			const step = Number((m * 10 ** k).toFixed(dec));
			for (const first of [0, -2, 63, 1001, 399998]) {
				const ticks = [0, 1, 2, 3, 4].map(i => Number(((first + i) * step).toFixed(dec)));
				out.push({step: step, ticks: ticks, labels: C.valueTicks(false, false)(null, ticks, 1, 50, step),
					percents: C.valueTicks(true, false)(null, ticks, 1, 50, step)});
			}
		}
		return out;`)
	if len(axes) != 19*4*5 {
		t.Fatalf("%d axes labelled, want %d", len(axes), 19*4*5)
	}
	for _, a := range axes {
		for _, labels := range [][]string{a.Labels, a.Percents} {
			seen := map[string]bool{}
			for i, label := range labels {
				v, ok := labelValue(label)
				if !ok || math.Abs(v-a.Ticks[i]) > 1e-6*a.Step || seen[label] {
					t.Errorf("step %g: the tick %v reads %q (of %q)", a.Step, a.Ticks[i], label, labels)
					break
				}
				seen[label] = true
			}
		}
	}

	values := []float64{157.5e6, 0.0275, 1250, 1.5, 3.3e-7, 123456789.123, 0.1 + 0.2, 1e21, -2.5e-3, 349700001, 1.69e8 * 1.05}
	var hovers []string
	d.Script(&hovers, fmt.Sprintf(`return %s.map(window.labChart.exact)`, jsonOf(t, values)))
	for i, h := range hovers {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(h, ",", ""), 64); err != nil || v != values[i] {
			t.Errorf("a hover over %v says %q", values[i], h)
		}
	}

	var one struct{ Min, Max, At, Left, Width float64 }
	d.Script(&one, `const u = window.seriesChart;
		return {min: u.scales.x.min, max: u.scales.x.max, at: u.data[0][0], left: u.valToPos(u.data[0][0], "x"), width: u.bbox.width / devicePixelRatio};`)
	if one.Min != one.At-86400 || one.Max != one.At+86400 || math.Abs(one.Left-one.Width/2) > 1 {
		t.Errorf("a series of one point: the time axis spans %v to %v, the point at %v, %.0f px of %.0f; want a day either side, in the middle",
			one.Min, one.Max, one.At, one.Left, one.Width)
	}
	d.Screenshot("/screenshot", "one-point.png")

	texts := []string{reversedFigure, reversedHost, "\x1b[2J\a\b\f\r\v\x7f", "\u0085 C1", "tab\tand\nline", "zero\u200bwidth", "tag \U000E0041"}
	var printed []string
	d.Script(&printed, fmt.Sprintf(`return %s.map(window.labChart.printable)`, jsonOf(t, texts)))
	for i, want := range texts {
		if i >= len(printed) || printed[i] != cli.Printable(want) {
			t.Errorf("the page's script writes %q as %q, the server as %q", want, printed, cli.Printable(want))
			break
		}
	}
	d.Open(srv.URL + "/series?" + seriesQuery("havlak6", reversedFigure, "count"))
	waitFor(t, d, "the chart of the reversed name", "window.seriesChart")
	var page struct{ Text, Label string }
	d.Script(&page, `return {text: document.body.innerText, label: window.seriesChart.axes[1].label}`)
	if strings.ContainsAny(page.Text+page.Label, "\u202e") || !strings.Contains(page.Text, cli.Printable(reversedFigure)) {
		t.Errorf("the page of %q: its text has the control raw, or not its escape %q", reversedFigure, cli.Printable(reversedFigure))
	}
}

// labelValue is the number a value axis' label says: "157.5 M",
// "+2.5 %", "349,700,001".
func labelValue(label string) (float64, bool) {
	text := strings.TrimSuffix(strings.ReplaceAll(label, ",", ""), " %")
	scale := 1.0
	for _, p := range []struct {
		suffix string
		scale  float64
	}{{" k", 1e3}, {" M", 1e6}, {" G", 1e9}, {" T", 1e12}, {" P", 1e15}} {
		if s, ok := strings.CutSuffix(text, p.suffix); ok {
			text, scale = s, p.scale
		}
	}
	v, err := strconv.ParseFloat(text, 64)
	return v * scale, err == nil
}

// jsonOf is v in JSON, for a script.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
