package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/webdrivertest"
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
	if chart.Points != nights || chart.Count != fmt.Sprintf("%d points.", nights) || chart.Painted < 2000 {
		t.Errorf("the chart has %d points (%q), %d pixels painted; want %d points drawn", chart.Points, chart.Count, chart.Painted, nights)
	}
	var at webdrivertest.MouseStep
	d.Script(&at, fmt.Sprintf(`const u = window.seriesChart, box = u.over.getBoundingClientRect();
		return {x: box.left + u.valToPos(u.data[0][%d], "x") - 2, y: box.top + u.valToPos(u.data[1][%[1]d], "y")};`, nights-1))
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

	// Hostile names, on the series page of the forged benchmark and of the
	// hostile figure, and on the alerts page.
	for _, path := range []string{
		"/series?" + seriesQuery(hostile, "real_seconds", "s"),
		"/series?" + seriesQuery("havlak6", hostile, "count"),
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
}
