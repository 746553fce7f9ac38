package web

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// get fetches path from srv without following a redirect.
func get(t *testing.T, srvURL, path string) (*http.Response, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srvURL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

var envKey = result.EnvironmentKey(program("havlak6", 6, 0, 1, 1, "").Environment)

func seriesQuery(benchmark, figure, unit string) string {
	return url.Values{"benchmark": {benchmark}, "figure": {figure}, "unit": {unit}, "workload": {result.WorkloadQuick}, "env": {envKey}}.Encode()
}

// An incomplete choice is completed, and the address then names it: real
// time, the quick workload, the one environment.
func TestSeriesCompletesTheChoice(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	resp, _ := get(t, srv.URL, "/series?benchmark=havlak6")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status %s, want a redirect", resp.Status)
	}
	if got, want := resp.Header.Get("Location"), "/series?"+seriesQuery("havlak6", "real_seconds", "s"); got != want {
		t.Errorf("redirected to %s, want %s", got, want)
	}
	resp, body := get(t, srv.URL, "/series?"+seriesQuery("havlak6", "real_seconds", "s"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s:\n%s", resp.Status, body)
	}
	for _, want := range []string{`data-points="/api/series?benchmark=havlak6&amp;env=` + envKey, `<option value="havlak6cc">`,
		`<option value="own_instructions">`, "perf-1, EPYC × 2, go1.27.4, opt"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if resp, _ := get(t, srv.URL, "/series?benchmark=nosuch"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a benchmark the history lacks: status %s, want 404", resp.Status)
	}
	if resp, body := get(t, srv.URL, "/"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="night"`) {
		t.Errorf("/: %s, want the landing page (landing_test.go)", resp.Status)
	}
}

// The points are every night's, in time order, each the median, smallest
// and largest of its runs as the comparison summarises runs.
func TestSeriesPoints(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	resp, body := get(t, srv.URL, "/api/series?"+seriesQuery("havlak6", "real_seconds", "s"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s %s:\n%s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	var got seriesJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Benchmark != "havlak6" || got.EnvKey != envKey || len(got.Points) != nights {
		t.Fatalf("%s %s with %d points, want havlak6 %s with %d", got.Benchmark, got.EnvKey, len(got.Points), envKey, nights)
	}
	for n, p := range got.Points {
		real := 1.0 + 0.002*float64(n%2)
		if n == nights-1 {
			real = 1.5
		}
		want := result.NewSample([]float64{real * 0.98, real * 0.99, real, real * 1.01, real * 1.02})
		if p.Commit != commitOf(n) || !p.Time.Equal(nightTime(n)) || p.Runs != 5 ||
			p.Median != want.Median || p.Min != want.Min || p.Max != want.Max {
			t.Errorf("point %d: %+v, want commit %s at %s, %+v", n, p, commitOf(n), nightTime(n), want)
		}
	}
	for _, q := range []string{"benchmark=havlak6", seriesQuery("havlak6", "real_seconds", "KiB")} {
		if resp, _ := get(t, srv.URL, "/api/series?"+q); resp.StatusCode/100 != 4 {
			t.Errorf("/api/series?%s: status %s, want a 4xx", q, resp.Status)
		}
	}
}

// rows returns the compare table's rows: each row's cells' text.
func rows(t *testing.T, body string) [][]string {
	t.Helper()
	var all [][]string
	row := regexp.MustCompile(`(?s)<tr class="[^"]*" data-changed="[a-z]+"[^>]*>(.*?)</tr>`)
	cell := regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
	tag := regexp.MustCompile(`<[^>]+>`)
	for _, m := range row.FindAllStringSubmatch(body, -1) {
		var cells []string
		for _, c := range cell.FindAllStringSubmatch(m[1], -1) {
			cells = append(cells, html.UnescapeString(strings.TrimSpace(tag.ReplaceAllString(c[1], ""))))
		}
		all = append(all, cells)
	}
	return all
}

// The compare page: every figure of both nights, judged by the one
// comparison; the filter, the sorting, and results of the same binary.
func TestCompare(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	a, b := commitOf(0)[:12], commitOf(nights-1)
	resp, body := get(t, srv.URL, "/compare?a="+a+"&b="+b)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s:\n%s", resp.Status, body)
	}
	all := rows(t, body)
	var real, instructions []string
	for _, r := range all {
		switch {
		case r[0] == "havlak6" && r[2] == "real_seconds":
			real = r
		case r[0] == "havlak6" && r[2] == "own_instructions":
			instructions = r
		}
	}
	if len(real) < 8 || real[6] != "+50.00%" || real[7] != "REGRESSED" {
		t.Errorf("havlak6 real_seconds: %q, want +50.00%% REGRESSED", real)
	}
	if len(instructions) < 8 || instructions[6] != "+5.00%" || instructions[7] != "REGRESSED" {
		t.Errorf("havlak6 own_instructions: %q, want +5.00%% REGRESSED", instructions)
	}
	// The forged name is in the results' columns only: their result.json,
	// which the comparison reads, names the benchmark "forged", which the
	// last night lacks.
	if !strings.Contains(body, "<td class=\"benchmark\">forged</td>") || !strings.Contains(body, "only at A") {
		t.Errorf("the benchmark only night 0 has is not listed as only at A")
	}

	resp, changedBody := get(t, srv.URL, "/compare?a="+a+"&b="+b+"&changed=1")
	changed := rows(t, changedBody)
	if resp.StatusCode != http.StatusOK || len(changed) == 0 || len(changed) >= len(all) {
		t.Errorf("only changed: %d rows of %d", len(changed), len(all))
	}
	for _, r := range changed {
		if len(r) > 7 && r[7] == "~" {
			t.Errorf("only changed lists an unchanged row: %q", r)
		}
	}

	_, sorted := get(t, srv.URL, "/compare?a="+a+"&b="+b+"&sort=-change")
	if top := rows(t, sorted)[0]; top[0] != "havlak6" || top[6] != "+50.00%" {
		t.Errorf("sorted by change, descending: the first row is %q, want one of havlak6's +50.00%%", top)
	}

	// Every row says what threshold applied and where it came from: a
	// count of one run a night, its declared 1%; real time, its runs'
	// noise, five times over its declared 15%.
	for _, r := range all {
		text := strings.Join(r, " | ")
		switch {
		case r[0] == "havlak6" && r[2] == "own_instructions" && !strings.Contains(text, "threshold 1% (declared: fewer than 3 unchanged measurements to calibrate it)"),
			r[0] == "havlak6" && r[2] == "real_seconds" && !strings.Contains(text, "threshold 15% (the declared ceiling: 5 × noise 4% of 5 reruns is over it)"):
			t.Errorf("%s %s does not say where its threshold came from: %q", r[0], r[2], text)
		}
	}

	// The last three nights measured havlak6cc's same binary and run: its
	// history calibrates its count's threshold, and its sweeps its
	// growth's.
	_, same := get(t, srv.URL, "/compare?a="+commitOf(nights-2)+"&b="+b)
	n, growth := 0, 0
	for _, r := range rows(t, same) {
		if r[0] == "havlak6cc" {
			n++
			if text := strings.Join(r, " | "); r[2] == "own_instructions" &&
				!strings.Contains(text, "threshold 0.25% (the floor: 5 × noise 0% of 3 results of the same binary and run is under it)") {
				t.Errorf("havlak6cc's count is not calibrated by its history: %q", text)
			}
			if text := strings.Join(r, " | "); r[2] == "own_instructions_growth" {
				growth++
				if !strings.Contains(text, "threshold 0.25% (the floor: 5 × noise ") ||
					!strings.Contains(text, " of the fit over 4 sizes and 3 results of the same binary and run is under it)") {
					t.Errorf("havlak6cc's growth is not calibrated by its history's sweeps: %q", text)
				}
			}
			if !strings.Contains(r[7], "not re-measured") {
				t.Errorf("havlak6cc of the same identity: %q, want it marked not re-measured", r)
			}
		} else if strings.Contains(r[7], "not re-measured") {
			t.Errorf("%s: marked not re-measured, its binary changed", r[0])
		}
	}
	if n == 0 || growth != 1 {
		t.Errorf("%d rows of havlak6cc, %d of its growth; want its growth among them", n, growth)
	}

	for path, want := range map[string]int{
		"/compare?a=" + a + "&b=0123abcd":                   http.StatusNotFound,
		"/compare?a=" + a + "&b=" + url.QueryEscape("x'--"): http.StatusBadRequest,
		"/compare?a=c&b=" + b:                               http.StatusBadRequest, // a prefix of every commit
		"/compare?a=" + a + "&b=" + b + "&sort=x":           http.StatusBadRequest,
	} {
		if resp, body := get(t, srv.URL, path); resp.StatusCode != want || !strings.Contains(body, `class="error"`) {
			t.Errorf("%s: status %s, want %d with the error said", path, resp.Status, want)
		}
	}
}

// The alerts: the open ones by default, newest first; by state.
func TestAlerts(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	ids := func(body string) []string {
		var got []string
		for _, m := range regexp.MustCompile(`<td class="num"><a href="/alerts/\d+">(\d+)</a></td><td class="state">([a-z]+)</td>`).FindAllStringSubmatch(body, -1) {
			got = append(got, m[1]+" "+m[2])
		}
		return got
	}
	for query, want := range map[string]string{"": "2 acknowledged,1 new", "?state=all": "2 acknowledged,1 new",
		"?state=acknowledged": "2 acknowledged", "?state=fixed": ""} {
		resp, body := get(t, srv.URL, "/alerts"+query)
		if got := strings.Join(ids(body), ","); resp.StatusCode != http.StatusOK || got != want {
			t.Errorf("/alerts%s: %s, alerts %q, want %q", query, resp.Status, got, want)
		}
	}
	_, body := get(t, srv.URL, "/alerts")
	for _, want := range []string{"+50.00% (1 → 1.5 s)", "ce0000000000..cf0000000000", "last seen 2026-11-03", "(ann)",
		`<a href="/series?benchmark=havlak6&amp;env=` + envKey + `&amp;figure=real_seconds&amp;unit=s&amp;workload=quick">real_seconds</a>`} {
		if !strings.Contains(html.UnescapeString(body), html.UnescapeString(want)) {
			t.Errorf("the alerts page lacks %s", want)
		}
	}
	// None of a state: said, of how many in all.
	if _, body := get(t, srv.URL, "/alerts?state=fixed"); !strings.Contains(html.UnescapeString(body), `<p id="no-alerts">No alert is fixed, of the history's 2.</p>`) {
		t.Errorf("/alerts?state=fixed does not say why it lists none:\n%s", body)
	}
	if resp, _ := get(t, srv.URL, "/alerts?state=closed"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("state=closed: status %s, want 400", resp.Status)
	}
}

// Every string from the history lands as text: the forged benchmark name
// and the hostile figure name on the series page, the hostile name and
// note on the alerts page, the figure on the compare page, and as JSON;
// and no page may run an inline script.
func TestHostileNamesAreText(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	pages := []string{
		"/series?" + seriesQuery(hostile, "real_seconds", "s"),
		"/series?" + seriesQuery("havlak6", hostile, "count"),
		"/alerts",
		"/compare?a=" + commitOf(0) + "&b=" + commitOf(nights-1),
	}
	for _, path := range pages {
		resp, body := get(t, srv.URL, path)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %s", path, resp.Status)
			continue
		}
		if strings.Contains(body, "<img") || strings.Contains(body, "<script>alert") {
			t.Errorf("%s: the page carries the hostile markup", path)
		}
		if !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s: the hostile name is not shown as text", path)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
	}
	_, body := get(t, srv.URL, "/alerts")
	if !strings.Contains(body, "&lt;script&gt;alert(2)&lt;/script&gt; known") {
		t.Error("the alert's note is not shown as text")
	}
	_, body = get(t, srv.URL, "/api/series?"+seriesQuery(hostile, "real_seconds", "s"))
	if strings.Contains(body, "<img") || !strings.Contains(body, `\u003cimg src=x onerror=alert(1)\u003e`) {
		t.Errorf("the JSON carries the name unescaped: %s", body)
	}
}

// compareRows fetches a compare page and returns its status, its rows'
// cells and the rows' data attributes (cost, exact).
func compareRows(t *testing.T, srvURL, query string) (int, [][]string, []string, string) {
	t.Helper()
	resp, body := get(t, srvURL, "/compare?"+query)
	var attrs []string
	for _, m := range regexp.MustCompile(`<tr class="[^"]*" data-changed="[a-z]+" data-cost="([^"]*)" data-exact="([a-z]+)"[^>]*>`).FindAllStringSubmatch(body, -1) {
		attrs = append(attrs, m[1]+" "+m[2])
	}
	return resp.StatusCode, rows(t, body), attrs, body
}

// Each filter of the compare page narrows its rows to what it names, and
// stays in the page's links; a cost that is none is refused.
func TestCompareFilters(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	pair := "a=" + commitOf(0) + "&b=" + commitOf(nights-1)
	_, all, _, _ := compareRows(t, srv.URL, pair)
	figures := func(rows [][]string) string {
		var got []string
		for _, r := range rows {
			got = append(got, r[0]+" "+r[2])
		}
		return strings.Join(got, ", ")
	}
	for _, c := range []struct {
		filter string
		keep   func(r []string) bool
	}{
		{"cost=time", func(r []string) bool {
			return len(r) > 2 && (strings.HasSuffix(r[2], "_seconds") && r[2] != "" && r[0] != hostile)
		}},
		{"cost=work", func(r []string) bool { return len(r) > 2 && r[2] == "own_instructions" }},
		{"exact=1", func(r []string) bool { return len(r) > 2 && r[2] == "own_instructions" }},
		{"study=" + url.QueryEscape("Word count"), func(r []string) bool { return r[0] == "forged" }},
		{"language=" + url.QueryEscape("C++"), func(r []string) bool { return r[0] == "havlak6cc" }},
		{"language=Go&exact=1", func(r []string) bool { return len(r) > 2 && r[2] == "own_instructions" && r[0] == "havlak6" }},
	} {
		status, got, attrs, body := compareRows(t, srv.URL, pair+"&"+c.filter)
		var want [][]string
		for _, r := range all {
			if c.keep(r) {
				want = append(want, r)
			}
		}
		if status != http.StatusOK || len(want) == 0 || figures(got) != figures(want) {
			t.Errorf("%s: %d, rows %s; want %s", c.filter, status, figures(got), figures(want))
		}
		for _, a := range attrs {
			if c.filter == "cost=time" && a != "time false" || c.filter == "exact=1" && !strings.HasSuffix(a, " true") {
				t.Errorf("%s: a row of cost and exactness %q", c.filter, a)
			}
		}
		// The sorting links keep the filter; the form shows it chosen.
		filter, _ := url.ParseQuery(c.filter)
		links := regexp.MustCompile(`<th><a href="/compare\?([^"]*)">`).FindAllStringSubmatch(body, -1)
		if len(links) != 4 {
			t.Errorf("%s: %d sorting links, want 4", c.filter, len(links))
		}
		for _, m := range links {
			q, _ := url.ParseQuery(html.UnescapeString(m[1]))
			for k := range filter {
				if q.Get(k) != filter.Get(k) {
					t.Errorf("%s: the column's link %s loses %s", c.filter, m[1], k)
				}
			}
		}
		if !strings.Contains(body, fmt.Sprintf("%d of %d rows", len(want), len(all))) {
			t.Errorf("%s: the count does not say %d of %d rows", c.filter, len(want), len(all))
		}
	}
	if status, _, _, body := compareRows(t, srv.URL, pair+"&cost=speed"); status != http.StatusBadRequest || !strings.Contains(body, "want one of work, locality") {
		t.Errorf("cost=speed: status %d, want 400 naming the kinds", status)
	}
	if _, _, _, body := compareRows(t, srv.URL, pair+"&cost=locality"); !strings.Contains(body, `<option value="locality" selected>`) {
		t.Error("cost=locality: the menu does not show it chosen")
	}
}

// A night is its date: the results that started that day (UTC); the page
// is the comparison of its commit's results. A day of none is 404; a day
// of two commits is refused, naming them. Each regression's profile diff
// is one click away when an alert of B's night keeps it, and otherwise
// the row says why there is none.
func TestCompareNights(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	byCommit := "a=" + commitOf(0) + "&b=" + commitOf(nights-1)
	byNight := "a=" + nightTime(0).Format(time.DateOnly) + "&b=" + nightTime(nights-1).Format(time.DateOnly)
	status, commits, _, _ := compareRows(t, srv.URL, byCommit)
	status2, days, _, body := compareRows(t, srv.URL, byNight)
	if status != http.StatusOK || status2 != http.StatusOK || len(days) == 0 || fmt.Sprint(days) != fmt.Sprint(commits) {
		t.Fatalf("%s: %d, %d rows; want the %d rows of %s", byNight, status2, len(days), len(commits), byCommit)
	}
	for _, want := range []string{"(the night of 2026-11-01)", "(the night of 2026-11-06)", commitOf(0), commitOf(nights - 1)} {
		if !strings.Contains(body, want) {
			t.Errorf("%s: the page lacks %s", byNight, want)
		}
	}
	// havlak6's regressions: the diff of its CPU profiles, B's against
	// A's, is a link; the alert of the last night keeps the nightly job's
	// diff, linked in the archive.
	diff := regexp.MustCompile(`<a class="profile-diff" href="/results/([0-9a-f]{64})/diff/([0-9a-f]{64})/cpu/flamegraph">cpu profile diff \(B against A\)</a>`)
	if m := diff.FindStringSubmatch(body); m == nil || m[1] == m[2] {
		t.Errorf("%s: havlak6's regression does not link its profile diff", byNight)
	}
	if !regexp.MustCompile(`<a class="alert-diffs" href="/alerts/\d+">alert \d+</a> <a class="archived-diff" href="/nights/20261106T020000Z-cf0000000000/report/stages/havlak6/cpu-diff.svg">`+
		regexp.QuoteMeta(readerPath(viewer{}, archivedDiff))+`</a>`).MatchString(body) || strings.Contains(body, archivedDiff) {
		t.Errorf("%s: havlak6's regression does not link the alert's diff in the archive", byNight)
	}

	// Another night, on another day, and a second commit's result that
	// same day, later.
	archive(t, db, program("havlak6", 6, nights, 1.6, 1.69e8*1.05, fmt.Sprintf("%064x", nights)), nil)
	late := strings.Repeat("d", 40)
	laterNight(t, db, late)
	day := nightTime(nights).Format(time.DateOnly)
	if status, _, _, body := compareRows(t, srv.URL, "a="+day+"&b="+commitOf(0)); status != http.StatusOK ||
		!regexp.MustCompile(`A, the base, is <code>`+late+`</code> \(the night of `+day+`: its commit of the most results; `+
			`its others: <a class="night-commit" href="/compare\?a=`+commitOf(nights)+`&amp;b=`+commitOf(0)+`">`).MatchString(body) {
		t.Errorf("a=%s, a day of two commits of one result each: status %d; want the later one, linking the other", day, status)
	}
	if status, _, _, body := compareRows(t, srv.URL, "a=2026-10-01&b="+commitOf(0)); status != http.StatusNotFound ||
		!strings.Contains(body, "no result that started that day") {
		t.Errorf("a night the history lacks: status %d, want 404", status)
	}
	if status, _, _, _ := compareRows(t, srv.URL, "a=2026-13-01&b="+commitOf(0)); status != http.StatusBadRequest {
		t.Errorf("a=2026-13-01: status %d, want 400", status)
	}
	// B's result keeps no profile: the regression says so, and links no
	// diff; nor has any alert of that night one.
	_, _, _, body = compareRows(t, srv.URL, "a="+commitOf(0)+"&b="+commitOf(nights)+"&language=Go")
	if strings.Contains(body, `class="profile-diff"`) || strings.Contains(body, `class="alert-diffs"`) ||
		!strings.Contains(body, "no profile diff: a time figure&#39;s is of a cpu profile, and A&#39;s result keeps cpu (cpu.pb.gz), heap (heap.pb.gz); B&#39;s result keeps no profile") {
		t.Errorf("a regression whose B keeps no profile does not say why it has no diff")
	}
}

// Overlays: each s parameter names a whole series the history has; a
// third unit is refused; /api/series gives each point its night (the
// compare page against the night before) and the series' alerts.
func TestSeriesOverlaysAndMarkers(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	s := func(benchmark, figure, unit string) string {
		return "&s=" + url.QueryEscape(strings.Join([]string{benchmark, figure, unit, result.WorkloadQuick, envKey}, "|"))
	}
	base := "/series?" + seriesQuery("havlak6", "real_seconds", "s")
	resp, body := get(t, srv.URL, base+s("havlak6cc", "real_seconds", "s")+s("havlak6cc", "own_instructions", "instructions"))
	if resp.StatusCode != http.StatusOK || strings.Count(body, `<li data-points="/api/series?`) != 3 {
		t.Errorf("two overlays: %s, %d listed; want the chosen series and the two", resp.Status, strings.Count(body, `<li data-points="/api/series?`))
	}
	if resp, _ := get(t, srv.URL, "/series?"+strings.TrimPrefix(s("havlak6cc", "real_seconds", "s"), "&")); resp.StatusCode != http.StatusFound ||
		!strings.Contains(resp.Header.Get("Location"), "benchmark=havlak6cc") {
		t.Errorf("only an s: %s to %s, want a redirect to it as the chosen series", resp.Status, resp.Header.Get("Location"))
	}
	for q, want := range map[string]int{
		s("nosuch", "real_seconds", "s"): http.StatusNotFound,
		"&s=havlak6cc|real_seconds":      http.StatusBadRequest,
		s("havlak6", "own_instructions", "instructions") + s("havlak6", hostile, "count"): http.StatusBadRequest, // a third unit
	} {
		if resp, body := get(t, srv.URL, base+q); resp.StatusCode != want || !strings.Contains(body, `class="error"`) {
			t.Errorf("%s: %s, want %d with the error said", q, resp.Status, want)
		}
	}

	_, body = get(t, srv.URL, "/api/series?"+seriesQuery("havlak6", "real_seconds", "s"))
	var got seriesJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Markers) != 1 || got.Markers[0].Kind != "regression" || got.Markers[0].State != "new" ||
		got.Markers[0].Colour != alert.RuleOf(alert.New).Colour ||
		got.Markers[0].To != commitOf(nights-1) || got.Markers[0].Page != "/alerts/1" {
		t.Errorf("markers %+v, want the new regression of the last night", got.Markers)
	}
	if got.Points[0].Compare != "" || got.Points[1].Compare != "/compare?a="+commitOf(0)+"&b="+commitOf(1) {
		t.Errorf("the nights' compare links: %q, %q", got.Points[0].Compare, got.Points[1].Compare)
	}
	last := got.Points[len(got.Points)-1]
	if want := "/nights/20261106T020000Z-cf0000000000/report/"; last.Report != want {
		t.Errorf("the last night's report: %q, want %q", last.Report, want)
	}
	var kinds []string
	for _, p := range last.Profiles {
		kinds = append(kinds, p.Kind)
		if !regexp.MustCompile(`^/results/[0-9a-f]{64}/profiles/` + p.Kind + `/flamegraph$`).MatchString(p.Flamegraph) {
			t.Errorf("the last night's %s flame graph: %q", p.Kind, p.Flamegraph)
		}
	}
	if fmt.Sprint(kinds) != "[cpu heap]" {
		t.Errorf("the last night's profiles: %v, want cpu and heap", kinds)
	}
	_, body = get(t, srv.URL, "/api/series?"+seriesQuery(hostile, "real_seconds", "s"))
	var elsewhere seriesJSON
	if err := json.Unmarshal([]byte(body), &elsewhere); err != nil {
		t.Fatal(err)
	}
	if len(elsewhere.Points) == 0 || elsewhere.Points[0].Report != "" || elsewhere.Points[0].Profiles != nil {
		t.Errorf("a result not from the nightly archive has a report or profiles: %+v", elsewhere.Points)
	}
	_, body = get(t, srv.URL, "/api/series?"+seriesQuery("havlak6cc", "real_seconds", "s"))
	if !strings.Contains(body, `"markers":[]`) {
		t.Errorf("a series without alerts: %s", body)
	}
}

// The states' names, labels, colours and actions reach the pages from
// tools/alert's rules: the style sheet every page links colours each
// state's markers, the alerts page lists each state by its label and
// names the actions of the table in its hint.
func TestStatesFromTheRules(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	resp, css := get(t, srv.URL, "/states.css")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Fatalf("/states.css: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	_, page := get(t, srv.URL, "/alerts?state=all")
	if !strings.Contains(page, `<link rel="stylesheet" href="/states.css">`) {
		t.Errorf("the alerts page does not link /states.css")
	}
	for _, r := range alert.Rules {
		if want := fmt.Sprintf(".markers li.%s, .markers li.%s a { color: %s; }", r.State, r.State, r.Colour); !strings.Contains(css, want) {
			t.Errorf("/states.css lacks %q:\n%s", want, css)
		}
		if want := fmt.Sprintf(`<option value="%s">%s</option>`, r.State, r.Label); !strings.Contains(page, want) {
			t.Errorf("the alerts page lacks %s", want)
		}
	}
	if want := "<code>history alerts DSN " + alert.ActionsUsage() + " ID</code>"; !strings.Contains(page, want) {
		t.Errorf("the alerts page lacks %s", want)
	}
}

// oddNames adds to db a benchmark whose figures are named with a "|" and
// with spaces around the name, and returns their series.
func oddNames(t *testing.T, db *history.DB) (pipe, spaced choice) {
	t.Helper()
	for n := range 2 {
		ingestResult(t, db, program("oddnames", 6, n, 1, 2e8, "",
			result.Metric{Name: "left|right", Unit: "count", Source: "test", Values: []float64{float64(3 + n)}},
			result.Metric{Name: " spaced ", Unit: "count", Source: "test", Values: []float64{float64(5 + n)}}))
	}
	pipe = choice{Benchmark: "oddnames", Figure: "left|right", Unit: "count", Workload: result.WorkloadQuick, Env: envKey}
	spaced = choice{Benchmark: "oddnames", Figure: " spaced ", Unit: "count", Workload: result.WorkloadQuick, Env: envKey}
	return pipe, spaced
}

// A figure named with a "|" or with spaces around its name opens, as a
// series and as an overlay (s keeps each part whole, "|" and "%"
// percent-encoded), and its points are served; an s of before the
// encoding still opens.
func TestSeriesOddNames(t *testing.T) {
	db, _ := testHistory(t)
	pipe, spaced := oddNames(t, db)
	srv := serve(t, db)
	if got := pipe.param(); got != "oddnames|left%7Cright|count|quick|"+envKey {
		t.Errorf("the s of %q is %q", pipe.Figure, got)
	}
	for _, c := range []choice{pipe, spaced, {Benchmark: "a%b|", Figure: " f ", Unit: "%7C", Workload: "w", Env: "e"}} {
		if back, err := choiceOfParam(c.param()); err != nil || back != c {
			t.Errorf("%+v as s=%s reads back as %+v, %v", c, c.param(), back, err)
		}
	}
	for _, c := range []choice{pipe, spaced} {
		resp, body := get(t, srv.URL, link("/series", c.query()))
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<h1 id="title"><span class="benchmark">oddnames</span> `+html.EscapeString(c.Figure)+` <span`) {
			t.Errorf("the series of %q: %s, want it shown:\n%s", c.Figure, resp.Status, body)
		}
		resp, body = get(t, srv.URL, link("/api/series", c.query()))
		var got seriesJSON
		if err := json.Unmarshal([]byte(body), &got); resp.StatusCode != http.StatusOK || err != nil || got.Figure != c.Figure || len(got.Points) != 2 {
			t.Errorf("the points of %q: %s, %v: %s", c.Figure, resp.Status, err, body)
		}
		// Overlaid on havlak6's count of the hostile figure, the same unit.
		resp, body = get(t, srv.URL, "/series?"+seriesQuery("havlak6", hostile, "count")+"&s="+url.QueryEscape(c.param()))
		if text := html.UnescapeString(body); resp.StatusCode != http.StatusOK || !strings.Contains(text, `<li data-points="`+link("/api/series", c.query())+`"`) ||
			!strings.Contains(text, `name="s" value="`+c.param()+`"`) {
			t.Errorf("%q overlaid: %s, want it drawn and kept:\n%s", c.Figure, resp.Status, body)
		}
	}
	// Only the spaced name: a trimmed one is not in the history.
	trimmed := spaced
	trimmed.Figure = strings.TrimSpace(spaced.Figure)
	if resp, _ := get(t, srv.URL, link("/series", trimmed.query())); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the spaced figure's name trimmed: %s, want 404", resp.Status)
	}
	// An address of before the encoding: plain names, joined by "|".
	old := "&s=" + url.QueryEscape(strings.Join([]string{"havlak6cc", "real_seconds", "s", result.WorkloadQuick, envKey}, "|"))
	if resp, _ := get(t, srv.URL, "/series?"+seriesQuery("havlak6", "real_seconds", "s")+old); resp.StatusCode != http.StatusOK {
		t.Errorf("an s of plain names: %s, want 200", resp.Status)
	}
}

// A page that cannot use a parameter says at most its first 80 runes
// back: a parameter of 16 KiB asked for is a page of a few KiB; a longer
// address is refused (414).
func TestErrorPagesClipParameters(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	long := strings.Repeat("x", maxQuery-200)
	for path, want := range map[string]int{
		"/series?" + seriesQuery("havlak6", "real_seconds", "s") + "&s=" + url.QueryEscape(long):            http.StatusBadRequest,
		"/series?" + seriesQuery("havlak6", "real_seconds", "s") + "&s=" + url.QueryEscape(long+"|f|u|w|e"): http.StatusNotFound,
		"/series?benchmark=" + url.QueryEscape(long):                                                        http.StatusNotFound,
		"/alerts?state=" + url.QueryEscape(long):                                                            http.StatusBadRequest,
	} {
		resp, body := get(t, srv.URL, path)
		if resp.StatusCode != want || len(body) > 8<<10 || strings.Contains(body, strings.Repeat("x", echoRunes+1)) {
			t.Errorf("%.40s…: %s, %d bytes; want %d, at most %d runes of the parameter said back", path, resp.Status, len(body), want, echoRunes)
		}
		if !regexp.MustCompile(`x{` + fmt.Sprint(echoRunes-2) + `,` + fmt.Sprint(echoRunes) + `}…`).MatchString(body) {
			t.Errorf("%.40s…: the page does not say the parameter's first %d runes, then …", path, echoRunes)
		}
	}
	// An address longer than any page's is refused before a page says it
	// back (the compare page's form would, twice).
	for _, path := range []string{"/compare?a=" + strings.Repeat("x", 400_000), "/series?benchmark=" + strings.Repeat("x", maxQuery)} {
		if resp, body := get(t, srv.URL, path); resp.StatusCode != http.StatusRequestURITooLong || len(body) > 4<<10 {
			t.Errorf("%.40s…: %s, %d bytes; want 414, a small page", path, resp.Status, len(body))
		}
	}
}

// A write whose body is over 64 KiB is refused as too large (413), a
// form's or a script's, not as one without a CSRF token; nothing changes.
func TestWriteTooLarge(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	before := changes(t, db, 1)
	ann := newBrowser(t, srv)
	ann.signIn(addUser(t, db, "ann"))
	csrf := ann.csrf("/alerts/1")
	big := strings.Repeat("x", maxForm)
	resp, body := ann.do(http.MethodPost, "/alerts/1/ack", url.Values{"csrf": {csrf}, "note": {big}}, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "over 64 KiB") {
		t.Errorf("a form over 64 KiB: %s:\n%.300s", resp.Status, body)
	}
	resp, body = ann.do(http.MethodPost, "/alerts/1/ack", url.Values{"note": {big}}, map[string]string{csrfHeader: csrf})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a script's write over 64 KiB: %s %s:\n%.300s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	if after := changes(t, db, 1); len(after) != len(before) {
		t.Errorf("refused writes changed alert 1: %d changes, were %d", len(after), len(before))
	}
	// Just under the limit, the write is made.
	resp, body = ann.do(http.MethodPost, "/alerts/1/ack", url.Values{"csrf": {csrf}, "note": {"known"}, "pad": {strings.Repeat("x", maxForm-100)}}, nil)
	if resp.StatusCode/100 != 3 && resp.StatusCode != http.StatusOK {
		t.Errorf("a form under 64 KiB: %s:\n%.300s", resp.Status, body)
	}
}

// A choice completed by a redirect keeps how the chart is drawn: the
// parameters the page's script keeps in the address (viewParams).
func TestSeriesRedirectKeepsTheView(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	view := "&view=relative&ref=2026-11-02T02%3A00%3A00Z&y=zero&scale=log&from=2026-11-02T00%3A00%3A00Z&to=2026-11-04T00%3A00%3A00Z"
	resp, _ := get(t, srv.URL, "/series?benchmark=havlak6"+view)
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil {
		t.Fatalf("%s to %q, want a redirect", resp.Status, resp.Header.Get("Location"))
	}
	want, _ := url.ParseQuery(strings.TrimPrefix(view, "&"))
	for k := range want {
		if got := loc.Query().Get(k); got != want.Get(k) {
			t.Errorf("redirected to %s: %s=%q, want %q", loc, k, got, want.Get(k))
		}
	}
}

// The small multiples page: a figure's chart of every benchmark that has
// it, each in its latest environment, by name (the forged hostile name as
// text); the series page links to it; an incomplete or unknown figure is
// the user's mistake.
func TestSeriesMultiples(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	page := "/series/multiples?" + url.Values{"figure": {"real_seconds"}, "unit": {"s"}, "workload": {result.WorkloadQuick}}.Encode()
	resp, body := get(t, srv.URL, page)
	charts := regexp.MustCompile(`<figure class="multiple" data-points="([^"]+)">\s*<figcaption><a href="[^"]+">([^<]*)</a>`).FindAllStringSubmatch(body, -1)
	var names []string
	for _, c := range charts {
		names = append(names, html.UnescapeString(c[2]))
		q, err := url.ParseQuery(strings.TrimPrefix(html.UnescapeString(c[1]), "/api/series?"))
		if err != nil || q.Get("env") != envKey || q.Get("figure") != "real_seconds" || q.Get("benchmark") != names[len(names)-1] {
			t.Errorf("the chart of %s fetches %s", names[len(names)-1], c[1])
		}
	}
	if resp.StatusCode != http.StatusOK || fmt.Sprint(names) != fmt.Sprint([]string{hostile, "havlak6", "havlak6cc"}) ||
		strings.Contains(body, hostile) {
		t.Errorf("%s: %s, charts of %q; want the three benchmarks', the hostile name escaped", page, resp.Status, names)
	}
	_, body = get(t, srv.URL, "/series?"+seriesQuery("havlak6", "real_seconds", "s"))
	if !strings.Contains(html.UnescapeString(body), `<a id="multiples-link" href="`+page+`"`) {
		t.Errorf("the series page does not link %s", page)
	}
	for q, want := range map[string]int{"?figure=real_seconds": http.StatusBadRequest, "?figure=nosuch&unit=s&workload=quick": http.StatusNotFound} {
		if resp, body := get(t, srv.URL, "/series/multiples"+q); resp.StatusCode != want || !strings.Contains(body, `class="error"`) {
			t.Errorf("/series/multiples%s: %s, want %d with the error said", q, resp.Status, want)
		}
	}
}

// routerNights adds two nights of a benchmark "router" at commits
// commitOf(nights) and commitOf(nights+1), and returns the compare
// query of the two: its throughput (requests/s, higher is better, five
// runs) halves; a throughput of one run a night falls from 23,120 to
// 14,132, too few runs to judge; its instructions rise by 5%; its
// allocations fall by a fifth.
func routerNights(t testing.TB, db *history.DB) string {
	t.Helper()
	for i, n := range []int{nights, nights + 1} {
		rate, cold, instructions, allocations := 20000.0, 23120.0, 1e8, 1000.0
		if i == 1 {
			rate, cold, instructions, allocations = 10000, 14132, 1.05e8, 800
		}
		var rates []float64
		for r := range 5 {
			rates = append(rates, rate*(1+0.001*float64(r-2)))
		}
		r := program("router", 1, n, 1, instructions, "",
			result.Metric{Name: "requests_per_second", Unit: "requests/s", Source: "test", Class: result.ClassTiming,
				Cost: result.CostTime, Values: rates, Gated: true, Threshold: 0.15},
			result.Metric{Name: "cold_requests_per_second", Unit: "requests/s", Source: "test", Class: result.ClassTiming,
				Cost: result.CostTime, Values: []float64{cold}, Gated: true, Threshold: 0.15},
			result.Metric{Name: "allocations", Unit: "count", Source: "test", Cost: result.CostMemoryManagement,
				Values: []float64{allocations}, Gated: true, Threshold: 0.01})
		r.Benchmark.Study = "Servers"
		ingestResult(t, db, r)
	}
	return "a=" + commitOf(nights) + "&b=" + commitOf(nights+1)
}

// compareTable is a compare page's rows: each one's outcome (its
// data-outcome), its cells' text; and the summary's counts by outcome.
func compareTable(t *testing.T, body string) (outcomes []string, cells [][]string, counts map[string]int) {
	t.Helper()
	for _, m := range regexp.MustCompile(`<tr class="[^"]*" data-changed="[a-z]+"[^>]* data-outcome="([a-z_]*)">`).FindAllStringSubmatch(body, -1) {
		outcomes = append(outcomes, m[1])
	}
	cells = rows(t, body)
	if len(cells) != len(outcomes) {
		t.Fatalf("%d rows, %d of them with an outcome", len(cells), len(outcomes))
	}
	counts = map[string]int{}
	for _, m := range regexp.MustCompile(`<a class="count [a-z_]+" data-outcome="([a-z_]+)" data-n="(\d+)"`).FindAllStringSubmatch(body, -1) {
		n := 0
		fmt.Sscan(m[2], &n)
		counts[m[1]] = n
	}
	return outcomes, cells, counts
}

// The compare page's summary counts every row's verdict; the worst
// regression is the first row, a throughput that halved ahead of
// instructions up 5%; an improvement is marked as one; a figure too few
// runs to judge still shows how far and which way it moved, and says why
// once.
func TestCompareSummaryAndOrder(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	router := routerNights(t, db)
	for _, pair := range []string{router, "a=" + commitOf(0) + "&b=" + commitOf(nights-1)} {
		resp, body := get(t, srv.URL, "/compare?"+pair)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", pair, resp.Status)
		}
		outcomes, _, counts := compareTable(t, body)
		byRows := map[string]int{}
		for _, o := range outcomes {
			byRows[o]++
		}
		for _, o := range outcomeNames() {
			if counts[o] != byRows[o] {
				t.Errorf("%s: the summary counts %d %s, the rows %d", pair, counts[o], o, byRows[o])
			}
		}
		if !strings.Contains(body, fmt.Sprintf("Of all %d rows", len(outcomes))) {
			t.Errorf("%s: the summary does not say it counts all %d rows", pair, len(outcomes))
		}
	}

	_, body := get(t, srv.URL, "/compare?"+router)
	outcomes, cells, counts := compareTable(t, body)
	if counts["regressed"] != 2 || counts["improved"] != 1 || counts["not_comparable"] != 1 {
		t.Errorf("router: counts %v, want 2 regressed, 1 improved, 1 not comparable", counts)
	}
	if top := cells[0]; top[2] != "requests_per_second" || top[6] != "-50.00%" || top[7] != "REGRESSED" {
		t.Errorf("the first row is %q, want requests_per_second -50.00%% REGRESSED (higher is better)", top)
	}
	if second := cells[1]; second[2] != "own_instructions" || second[6] != "+5.00%" {
		t.Errorf("the second row is %q, want own_instructions +5.00%%", second)
	}
	for i, r := range cells {
		switch r[2] {
		case "allocations":
			if outcomes[i] != "improved" || r[6] != "-20.00%" || r[7] != "better" ||
				!regexp.MustCompile(`<tr class="improved" [^>]*>\s*<td class="benchmark">router</td><td>quick</td>\s*<td class="figure"[^>]*><a class="series" href="[^"]*figure=allocations`).MatchString(body) {
				t.Errorf("allocations: %s %q, want improved, -20.00%%, better, in a row of class improved", outcomes[i], r)
			}
		case "cold_requests_per_second":
			text := strings.Join(r, " | ")
			why := "1 and 1 runs: too few for the U test"
			if outcomes[i] != "not_comparable" || r[6] != "-38.88% worse, unjudged" || strings.Count(text, why) != 1 {
				t.Errorf("cold_requests_per_second: %s %q; want its change, which way, and why once", outcomes[i], r)
			}
		}
	}
	if !strings.Contains(body, `memory management <b>-20.00%</b> <span class="note">of 1 figures</span>`) ||
		!strings.Contains(body, `work <b>&#43;5.00%</b> <span class="note">of 1 figures</span>`) {
		t.Errorf("the means per kind of cost are not allocations' -20%% and instructions' +5%%")
	}
	// Each figure's series page, zoomed to the two nights and two weeks
	// either side.
	from, to := nightTime(nights).Add(-seriesMargin).Format(time.RFC3339), nightTime(nights+1).Add(seriesMargin).Format(time.RFC3339)
	if !strings.Contains(html.UnescapeString(body), "figure=requests_per_second&from="+url.QueryEscape(from)+"&to="+url.QueryEscape(to)) {
		t.Errorf("the rows do not link their series around the two nights (%s to %s)", from, to)
	}
}

// The sort and the filters are the page's address: the rows, the form,
// the column links and the summary's links keep them all.
func TestCompareSortAndFiltersInTheURL(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	router := routerNights(t, db)
	asked := router + "&sort=-change&verdict=regressed&cost=time&language=Go"
	resp, body := get(t, srv.URL, "/compare?"+asked)
	_, cells, _ := compareTable(t, body)
	if resp.StatusCode != http.StatusOK || len(cells) != 1 || cells[0][2] != "requests_per_second" {
		t.Fatalf("%s: %s, rows %q; want requests_per_second alone", asked, resp.Status, cells)
	}
	for _, want := range []string{`<input type="hidden" name="sort" value="-change">`, `<option value="regressed" selected>`,
		`<option value="time" selected>`, `<option value="Go" selected>`, `<a href="/compare?`} {
		if !strings.Contains(body, want) {
			t.Errorf("%s: the page lacks %s", asked, want)
		}
	}
	q, _ := url.ParseQuery(asked)
	links := regexp.MustCompile(`<(?:th><a|a class="count [a-z_]+" data-outcome="[a-z_]+" data-n="\d+") href="/compare\?([^"]*)">`).FindAllStringSubmatch(body, -1)
	if len(links) < 4+5 {
		t.Errorf("%d links to the page, want the 4 columns' and the 5 counts'", len(links))
	}
	for _, m := range links {
		got, _ := url.ParseQuery(html.UnescapeString(m[1]))
		for _, k := range []string{"a", "b", "cost", "language"} {
			if got.Get(k) != q.Get(k) {
				t.Errorf("the link %s loses %s=%s", m[1], k, q.Get(k))
			}
		}
		if strings.Contains(m[0], `class="count`) && got.Get("sort") != "-change" {
			t.Errorf("the count's link %s loses sort=-change", m[1])
		}
	}
	// The same address twice is the same table; sorting by change, the
	// most worse first, is the default order's first row too.
	_, again := get(t, srv.URL, "/compare?"+asked)
	if _, cells2, _ := compareTable(t, again); fmt.Sprint(cells2) != fmt.Sprint(cells) {
		t.Errorf("the same address gave another table")
	}
	_, byChange := get(t, srv.URL, "/compare?"+router+"&sort=-change")
	_, byDefault := get(t, srv.URL, "/compare?"+router)
	_, c1, _ := compareTable(t, byChange)
	_, c2, _ := compareTable(t, byDefault)
	if c1[0][2] != "requests_per_second" || c2[0][2] != "requests_per_second" {
		t.Errorf("sort=-change first %q, the default first %q; want requests_per_second, the most worse", c1[0], c2[0])
	}
	_, best := get(t, srv.URL, "/compare?"+router+"&sort=change")
	if _, c, _ := compareTable(t, best); c[0][2] != "allocations" {
		t.Errorf("sort=change: first %q, want allocations, the most better", c[0])
	}
	if resp, body := get(t, srv.URL, "/compare?"+router+"&verdict=worst"); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "want one of inconsistent, missing, regressed, not_comparable, improved, unchanged") {
		t.Errorf("verdict=worst: %s, want 400 naming the verdicts", resp.Status)
	}
}

// The compare page orders outcomes as verdict does (verdict.Outcomes),
// the order verdict.Worst judges a night by: its counts and its verdict
// filter in that order, and its rows, a benchmark gone (missing, which
// fails) ahead of the regressions that fail too; the landing page of the
// last night counts its rows as the compare page of the same two nights
// does, in the same order.
func TestOutcomesInVerdictsOrder(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	_, body := get(t, srv.URL, "/compare?a="+commitOf(0)+"&b="+commitOf(nights-1))
	outcomes, cells, _ := compareTable(t, body)
	if len(outcomes) < 2 || outcomes[0] != "missing" || cells[0][0] != "forged" || outcomes[1] != "regressed" || cells[1][7] != "REGRESSED" {
		t.Errorf("the first rows: %v %q; want the forged benchmark missing, then havlak6's regression", outcomes[:min(2, len(outcomes))], cells[:min(2, len(cells))])
	}
	var want []string
	for _, o := range verdict.Outcomes() {
		if o != verdict.Inconsistent {
			// Counted only when there is one.
			want = append(want, string(o))
		}
	}
	var counted []string
	for _, m := range regexp.MustCompile(`<a class="count [a-z_]+" data-outcome="([a-z_]+)"`).FindAllStringSubmatch(body, -1) {
		counted = append(counted, m[1])
	}
	if !slices.Equal(counted, want) {
		t.Errorf("the compare page counts %v, want verdict's order %v", counted, want)
	}
	filter := regexp.MustCompile(`(?s)<select name="verdict"[^>]*>(.*?)</select>`).FindStringSubmatch(body)
	var offered []string
	if filter != nil {
		for _, m := range regexp.MustCompile(`<option value="([a-z_]+)"`).FindAllStringSubmatch(filter[1], -1) {
			offered = append(offered, m[1])
		}
	}
	if all := outcomeNames(); !slices.Equal(offered, all) {
		t.Errorf("the verdict filter offers %v, want verdict's order %v", offered, all)
	}

	last, prev := day(nightTime(nights-1)), day(nightTime(nights-2))
	_, compared := get(t, srv.URL, "/compare?a="+prev+"&b="+last)
	var fromCompare []string
	for _, m := range regexp.MustCompile(`data-n="\d+" href="[^"]*">(\d+ [a-z ]+)</a>`).FindAllStringSubmatch(compared, -1) {
		fromCompare = append(fromCompare, m[1])
	}
	_, landing := get(t, srv.URL, "/?night="+last)
	line := regexp.MustCompile(`(?s)<strong>[a-z_]+</strong>\.\s*(.*?)\.\s*<a id="night-compare"`).FindStringSubmatch(landing)
	if line == nil || line[1] != strings.Join(fromCompare, ", ") || len(fromCompare) == 0 {
		t.Errorf("the landing page counts %q, the compare page of the same nights %q", line, fromCompare)
	}
}

// The pickers offer the history's recent nights and commits, newest first.
func TestComparePickers(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	_, body := get(t, srv.URL, "/compare")
	list := regexp.MustCompile(`(?s)<datalist id="recent">(.*?)</datalist>`).FindStringSubmatch(body)
	if list == nil || !strings.Contains(body, `<input name="a" list="recent"`) || !strings.Contains(body, `<input name="b" list="recent"`) {
		t.Fatal("no picker of recent nights and commits")
	}
	var values []string
	for _, m := range regexp.MustCompile(`<option value="([^"]*)">`).FindAllStringSubmatch(list[1], -1) {
		values = append(values, m[1])
	}
	if len(values) != 2*nights || values[0] != day(nightTime(nights-1)) || values[nights] != commitOf(nights-1) ||
		values[2*nights-1] != commitOf(0) {
		t.Errorf("the picker offers %q; want the %d nights, then their commits, newest first", values, nights)
	}
}

// An alert is linked from its figure's row for every night it spans, not
// only its first or last: havlak6's regression, found on the last night
// and again two nights later, on the compare page of the night between.
func TestCompareAlertsOfEveryNight(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	ctx := t.Context()
	all, err := db.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found alert.Alert
	for _, a := range all {
		if a.Kind == alert.Regression {
			found = a
		}
	}
	ingestResult(t, db, program("havlak6", 6, nights, 1.5, 1.69e8*1.05, fmt.Sprintf("%064x", nights)))
	later := alert.Night{Time: nightTime(nights + 1), Commit: commitOf(nights + 1), By: "nightly"}
	if _, err := db.RecordAlerts(ctx, later, []alert.Finding{found.Finding}, func(alert.Alert) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if a, err := db.Alert(ctx, found.ID); err != nil || !a.LastFound.Equal(later.Time) {
		t.Fatalf("the alert was not found again: %+v, %v", a, err)
	}
	link := fmt.Sprintf(`<a class="alert" href="/alerts/%d">alert %d (new)</a>`, found.ID, found.ID)
	_, body := get(t, srv.URL, "/compare?a="+commitOf(0)+"&b="+commitOf(nights))
	row := regexp.MustCompile(`(?s)<tr [^>]*>\s*<td class="benchmark">havlak6</td><td>quick</td>\s*<td class="figure"[^>]*><a class="series" href="[^"]*figure=real_seconds&amp;[^"]*">real_seconds</a></td>.*?</tr>`).FindString(body)
	if row == "" || !strings.Contains(row, link) {
		t.Errorf("havlak6's real_seconds on the night between the alert's first and last does not link it (%s):\n%s", link, row)
	}
	if strings.Count(body, `<a class="alert" `) != 1 {
		t.Errorf("%d rows link an alert, want real_seconds' alone", strings.Count(body, `<a class="alert" `))
	}
}

// A figure at one side only is a row of its own: one missing at B shows
// A's value and a blank at B, never 0; one only B has values of shows
// B's, not compared, and the summary counts it.
func TestCompareFiguresAtOneSide(t *testing.T) {
	db := newHistory(t)
	ingestResult(t, db, program("solo", 1, 0, 1, 1e8, "",
		result.Metric{Name: "gone", Unit: "count", Source: "test", Values: []float64{5}, Gated: true, Threshold: 0.01}))
	ingestResult(t, db, program("solo", 1, 1, 1, 1e8, "",
		result.Metric{Name: "fresh", Unit: "count", Source: "test", Cost: result.CostWork, Values: []float64{3}}))
	srv := serve(t, db)
	resp, body := get(t, srv.URL, "/compare?a="+commitOf(0)+"&b="+commitOf(1))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	outcomes, cells, counts := compareTable(t, body)
	byFigure := map[string]int{}
	for i, r := range cells {
		byFigure[r[2]] = i
	}
	gone, fresh := cells[byFigure["gone"]], cells[byFigure["fresh"]]
	if outcomes[byFigure["gone"]] != "missing" || gone[4] != "5" || gone[5] != "" || gone[6] != "" {
		t.Errorf("a figure missing at B: %s %q; want missing, A's 5, B blank", outcomes[byFigure["gone"]], gone)
	}
	if i, ok := byFigure["fresh"]; !ok || outcomes[i] != "not_comparable" || fresh[4] != "" || fresh[5] != "3" ||
		!strings.Contains(fresh[8], "only the change has it") {
		t.Errorf("a figure only at B: %q (found %v); want a row not compared, A blank, B's 3, saying why", fresh, ok)
	}
	byRows := map[string]int{}
	for _, o := range outcomes {
		byRows[o]++
	}
	if counts["not_comparable"] != byRows["not_comparable"] || counts["missing"] != byRows["missing"] || byRows["not_comparable"] != 1 {
		t.Errorf("the summary counts %v, the rows %v", counts, byRows)
	}
}
