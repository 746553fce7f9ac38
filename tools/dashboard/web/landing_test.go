package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/runrecord"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// landingRows are the rows of the landing page's table id: each row's
// cells' text.
func landingRows(t *testing.T, body, id string) [][]string {
	t.Helper()
	table := regexp.MustCompile(`(?s)<table id="` + id + `"[^>]*>(.*?)</table>`).FindStringSubmatch(body)
	if table == nil {
		return nil
	}
	row := regexp.MustCompile(`(?s)<tr class="[^"]*"[^>]*>(.*?)</tr>`)
	cell := regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
	tag := regexp.MustCompile(`(?s)<[^>]+>`)
	var all [][]string
	for _, m := range row.FindAllStringSubmatch(table[1], -1) {
		var cells []string
		for _, c := range cell.FindAllStringSubmatch(m[1], -1) {
			cells = append(cells, html.UnescapeString(strings.TrimSpace(tag.ReplaceAllString(c[1], ""))))
		}
		all = append(all, cells)
	}
	return all
}

// The landing page of the last night: its regressions worst first (what
// fails the gate first, then by how much worse), the seeded one (havlak6's real time, 1 s to 1.5 s) at the top with its
// sparkline, the night's compare page and its new alert linked, hostile
// names as text; the nightly job's runs as the archive keeps them; and
// an earlier night picked by its date.
func TestLanding(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	last, prev := day(nightTime(nights-1)), day(nightTime(nights-2))
	// The last night's report judged it: a benchmark missing fails it.
	sum, err := summary.Marshal(&summary.Summary{SchemaVersion: summary.SchemaVersion, Tool: "report",
		Benchmarks: []summary.Benchmark{{Name: "havlak6", Outcome: verdict.Missing}}})
	if err != nil {
		t.Fatal(err)
	}
	reportDir := filepath.Join(filepath.Dir(db.Name()), history.NightsDir, lastNight, nightdir.Report)
	if err := os.WriteFile(filepath.Join(reportDir, summary.FileName), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	resp, body := get(t, srv.URL, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/: %s:\n%s", resp.Status, body)
	}
	sectionsInOrder(t, body, 1)
	regressed := landingRows(t, body, "regressed")
	if len(regressed) < 2 {
		t.Fatalf("the regressions: %q, want havlak6's real time and instructions", regressed)
	}
	if top := regressed[0]; top[0] != "havlak6" || !strings.HasPrefix(top[2], "real_seconds") || top[3] != "1" || top[4] != "1.5" || top[5] != "+50.00%" {
		t.Errorf("the first regression is %q, want havlak6 real_seconds 1 → 1.5 (+50.00%%)", top)
	}
	if second := regressed[1]; second[0] != "havlak6" || !strings.HasPrefix(second[2], "own_instructions") {
		t.Errorf("the second regression is %q, want havlak6's own_instructions (+5%%)", second)
	}
	if n := strings.Count(body, `<svg class="spark"`); n < len(regressed) {
		t.Errorf("%d sparklines for %d regressions", n, len(regressed))
	}
	for _, want := range []string{
		`<span id="night">` + last + `</span>`,
		`<strong>regressed</strong>`,
		`<a id="night-compare" href="/compare?a=` + prev + `&amp;b=` + last + `">`,
		// The seeded regression's alert, new tonight, in its range.
		`<a href="/alerts/1">alert 1</a> <strong>new tonight</strong>`,
		// The stale series' alert, acknowledged (open), of no range.
		`no commit range`, `<a href="/alerts/2">alert 2</a>`,
		// The nightly job's run of the night, its report linked.
		`<a class="report" href="/nights/` + lastNight + `/report/">report</a>`,
		`<a class="report" href="/nights/20261105T020000Z-ce0000000000/report/">report</a>`,
		`<option value="` + prev + `">`, `<option value="` + last + `" selected>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the landing page lacks %s", want)
		}
	}
	if strings.Contains(body, "<img") || strings.Contains(body, "<script>alert") {
		t.Errorf("a hostile name reached the page as markup")
	}
	// Nights from before the run records: what their directories imply,
	// the report's verdict, and that the run kept no record.
	runs := landingRows(t, body, "runs")
	if len(runs) < 2 || runs[0][5] != "report: failed: 1 benchmarks failing, 0 results unreadable; the run kept no record" ||
		runs[1][5] != "the run kept no record" || runs[0][3] != "unknown" || runs[0][4] != "2 archived" {
		t.Errorf("the runs without records: %q", runs)
	}

	// The seeded regression's compare page shows what the landing page
	// says: the same verdict of the same figure.
	_, compared := get(t, srv.URL, "/compare?a="+prev+"&b="+last)
	found := false
	for _, r := range rows(t, compared) {
		if r[0] == "havlak6" && r[2] == "real_seconds" && r[6] == "+50.00%" && r[7] != "" && strings.HasPrefix(regressed[0][6], r[7]) {
			found = true
		}
	}
	if !found {
		t.Errorf("the compare page of the two nights does not show the landing page's first row %q", regressed[0])
	}

	// An earlier night: against its own night before, nothing regressed.
	resp, body = get(t, srv.URL, "/?night="+prev)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<span id="night">`+prev+`</span>`) || landingRows(t, body, "regressed") != nil {
		t.Errorf("/?night=%s: %s, want its page with no regression:\n%s", prev, resp.Status, body)
	}
	// The night the forged benchmark stopped (its result still names it
	// "forged"): missing, linked to its series at the night before.
	gone := day(nightTime(3))
	resp, body = get(t, srv.URL, "/?night="+gone)
	missing := landingRows(t, body, "missing")
	if resp.StatusCode != http.StatusOK || len(missing) != 1 || missing[0][0] != "forged" || !strings.Contains(body, "<strong>missing</strong>") ||
		!strings.Contains(body, `<a href="/series?benchmark=forged&amp;env=`+envKey+`&amp;workload=quick">its series</a>`) {
		t.Errorf("/?night=%s: %s, missing %q; want the forged benchmark missing, linked to its series:\n%s", gone, resp.Status, missing, body)
	}
	sectionsInOrder(t, body, 1)
	for night, want := range map[string]int{"2026-10-01": http.StatusNotFound, "yesterday": http.StatusBadRequest} {
		resp, body := get(t, srv.URL, "/?night="+night)
		if resp.StatusCode != want || !strings.Contains(body, "night="+night+": ") {
			t.Errorf("/?night=%s: %s, want %d naming it:\n%s", night, resp.Status, want, body)
		}
	}
}

// sectionsInOrder checks that a landing page's sections, at least least
// of them, come in verdict's order of outcomes (verdict.Outcomes: missing
// before regressed, improved last), as the comparison sections them.
func sectionsInOrder(t *testing.T, body string, least int) {
	t.Helper()
	var at []int
	var ids []string
	for _, o := range verdict.Outcomes() {
		id := string(o)
		if o == verdict.NotComparable {
			id = "not-compared"
		}
		if i := strings.Index(body, `<table id="`+id+`"`); i >= 0 {
			at, ids = append(at, i), append(ids, id)
		}
	}
	if len(at) < least || !slices.IsSorted(at) {
		t.Errorf("the sections %v at %v: want at least %d, in verdict's order", ids, at, least)
	}
}

// The landing page's sections are the comparison's (summary.Table), in
// verdict's order of outcomes: once the page listed what went missing
// after what improved, and a broken measurement among the regressions.
func TestLandingSections(t *testing.T) {
	gated := verdict.Rule{Gated: true}
	judged := []summary.Benchmark{
		{Name: "faster", Outcome: verdict.Improved, Figures: []verdict.Verdict{{Figure: "instructions", Outcome: verdict.Improved, Change: -0.1, Rule: gated}}},
		{Name: "gone", Outcome: verdict.Missing},
		{Name: "slower", Outcome: verdict.Regressed, Figures: []verdict.Verdict{{Figure: "instructions", Outcome: verdict.Regressed, Change: 0.1, Rule: gated}}},
		{Name: "broken", Outcome: verdict.Inconsistent, Figures: []verdict.Verdict{{Figure: "instructions", Outcome: verdict.Inconsistent, Rule: gated}}},
		{Name: "fresh", Outcome: verdict.NotComparable, OnlyInChange: true},
		{Name: "same", Outcome: verdict.Unchanged, Figures: []verdict.Verdict{{Figure: "instructions", Outcome: verdict.Unchanged, Rule: gated}}},
	}
	c := comparison{Table: summary.TableOf(judged), judged: judged, unreadable: map[benchKey]error{}}
	var p landingPage
	if err := (&Server{}).judgeNight(context.Background(), &p, c); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sec := range p.Sections {
		got = append(got, sec.ID+":"+sec.Rows[0].Benchmark+":"+sec.Rows[0].Label)
	}
	want := []string{"inconsistent:broken:INCONSISTENT", "missing:gone:only at A", "regressed:slower:REGRESSED",
		"not-compared:fresh:only at B", "improved:faster:better"}
	if !slices.Equal(got, want) {
		t.Errorf("the sections %q, want %q", got, want)
	}
	if len(p.Counts) != 6 || p.Counts[0].Label != "inconsistent" || p.Counts[1].Label != "missing" || p.Counts[5].N != 1 {
		t.Errorf("the counts %+v, want every outcome's in verdict's order, one unchanged", p.Counts)
	}
}

// A newcomer's history, of one quick run: one night, nothing to compare
// against; the page says so and lists what was measured, each benchmark
// linking to its series. An empty history says how to fill it.
func TestLandingOneNight(t *testing.T) {
	db := newHistory(t)
	srv := serve(t, db)
	if resp, body := get(t, srv.URL, "/"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "The history holds no result yet") {
		t.Errorf("an empty history's landing page: %s:\n%s", resp.Status, body)
	}
	ingestResult(t, db, program("havlak6", 6, 0, 1, 1.69e8, ""))
	cc := program("havlak6cc", 6, 0, 0.8, 2.3e8, "")
	cc.Benchmark.Language = "C++"
	ingestResult(t, db, cc)
	resp, body := get(t, srv.URL, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/: %s:\n%s", resp.Status, body)
	}
	for _, want := range []string{
		"One night so far: 2 benchmarks measured; nothing to compare against yet.",
		`<a href="/series?benchmark=havlak6&amp;env=` + envKey + `&amp;workload=quick">havlak6</a>`,
		`<a href="/series?benchmark=havlak6cc&amp;env=` + envKey + `&amp;workload=quick">havlak6cc</a>`,
		"the nightly job has archived no night",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the landing page of one night lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, `class="error"`) {
		t.Errorf("the landing page of one night shows an error:\n%s", body)
	}
}

// The header names who is signed in, with a form to sign out that
// carries the session's CSRF token; nobody signed in sees "Sign in". A
// signed-in user sees an alert's archive paths whole.
func TestHeaderNamesViewer(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	ann := newBrowser(t, srv)
	if _, body := ann.do(http.MethodGet, "/", nil, nil); !strings.Contains(body, `<a class="signin" href="/signin">Sign in</a>`) || strings.Contains(body, `id="viewer"`) {
		t.Errorf("nobody signed in: the header does not offer to sign in:\n%s", body)
	}
	ann.signIn(addUser(t, db, "ann"))
	for _, page := range []string{"/", "/alerts", "/alerts/1", "/compare"} {
		_, body := ann.do(http.MethodGet, page, nil, nil)
		if !strings.Contains(body, `signed in as <span id="viewer">ann</span>`) || strings.Contains(body, ">Sign in</a>") ||
			!regexp.MustCompile(`<form id="header-signout" method="post" action="/signout"><input type="hidden" name="csrf" value="[0-9a-f]{64}">`).MatchString(body) {
			t.Errorf("%s, signed in as ann: the header does not name her with a sign-out form:\n%s", page, body)
		}
	}
	if _, body := ann.do(http.MethodGet, "/alerts/1", nil, nil); !strings.Contains(body, nightReport+"</a>") {
		t.Errorf("signed in, alert 1's page does not show its report's path %s", nightReport)
	}
	if resp, _ := ann.do(http.MethodPost, "/signout", url.Values{"csrf": {ann.csrf("/")}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signing out with the header's form: %s", resp.Status)
	}
	if _, body := ann.do(http.MethodGet, "/", nil, nil); strings.Contains(body, `id="viewer"`) {
		t.Errorf("signed out, the header still names a user")
	}
}

// The runs table reads each night's run record (tools/runrecord):
// a sharded run whose shard failed and whose shard never reported names
// them and their benchmarks without a result, every string of the record
// escaped; a run that archived nothing, its record alone in its
// directory, shows as failed with no results; a record that cannot be
// read shows as a failed run naming why, never as no run.
func TestLandingRuns(t *testing.T) {
	db, _ := testHistory(t)
	archive := filepath.Join(filepath.Dir(db.Name()), history.NightsDir)
	started := nightTime(nights - 1)
	failed := &runrecord.Record{Started: started, Finished: started.Add(47*time.Minute + 3*time.Second), Commit: fmt.Sprintf("%064x", nights-1),
		Sharded: true, Shards: []runrecord.Shard{
			{Index: 0, State: runrecord.Reported, Expected: 1, Results: 1},
			{Index: 1, State: runrecord.ShardFailed, Why: "its tests ended TESTS_FAILED (exit status 3)", Expected: 2, Results: 1, Missing: []string{hostile}},
			{Index: 2, State: runrecord.Missing, Why: "never reported", Expected: 1, Missing: []string{"havlak7"}},
		},
		Results: 2, Status: runrecord.Failed, ExitStatus: 1, Reasons: []string{"the night is incomplete: 2 shards failed or never reported"},
		Baseline: "the night failed: the baseline stays", ChangePoints: runrecord.ChangePointsOn}
	if err := runrecord.Write(filepath.Join(archive, lastNight, nightdir.Run), failed); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(archive, "20261107T020000Z-unknown")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	none := &runrecord.Record{Started: started.Add(24 * time.Hour), Finished: started.Add(24*time.Hour + 2*time.Minute),
		Sharded: true, Shards: []runrecord.Shard{{Index: 0, State: runrecord.Missing, Why: "never reported", Expected: 2, Missing: []string{"havlak6", "havlak6cc"}}},
		Status: runrecord.NoResults, ExitStatus: 1, Reasons: []string{"the night holds no result"}, ChangePoints: runrecord.ChangePointsOn}
	if err := runrecord.Write(filepath.Join(empty, nightdir.Run), none); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(archive, "20261105T020000Z-ce0000000000", nightdir.Run)
	if err := os.WriteFile(broken, []byte(`{"schema_version": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}

	srv := serve(t, db)
	resp, body := get(t, srv.URL, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/: %s:\n%s", resp.Status, body)
	}
	runs := landingRows(t, body, "runs")
	if len(runs) < 4 {
		t.Fatalf("the runs: %q, want at least 4", runs)
	}
	// Newest first: the run of no results, then the failed shard's.
	if r := runs[0]; r[1] != "2m0s" || r[2] != "unknown" || r[3] != "0 of 1 reported"+"shard 0 missing: never reported; no result of havlak6, havlak6cc" ||
		r[4] != "0" || !strings.HasPrefix(r[5], "no results") || r[6] != "none" {
		t.Errorf("the run of no results: %q", r)
	}
	if r := runs[1]; r[1] != "47m3s" || r[3] != "1 of 3 reported"+"shard 1 failed: its tests ended TESTS_FAILED (exit status 3); no result of "+hostile+
		"shard 2 missing: never reported; no result of havlak7" || r[4] != "2" ||
		r[5] != "failedthe night is incomplete: 2 shards failed or never reportedthe night failed: the baseline stays" {
		t.Errorf("the run of a failed shard: %q", r)
	}
	if r := runs[2]; !strings.HasPrefix(r[5], "its run record cannot be read: nights/20261105T020000Z-ce0000000000/run.json: not a run record: schema_version 9") {
		t.Errorf("the night whose record cannot be read: %q", r)
	}
	if r := runs[3]; r[5] != "the run kept no record" {
		t.Errorf("a night from before the records: %q", r)
	}
	for _, want := range []string{
		// Failed runs are marked, and a night of no results links to no
		// landing page of its own (the history has none).
		`<tr class="run run-failed" id="run-20261107T020000Z-unknown"><td>` + minute(none.Started) + `</td>`,
		`<tr class="run run-failed" id="run-` + lastNight + `"><td><a href="/?night=` + day(started) + `">`,
		// The last night's run failed: its alerts section says so, and
		// links to its record's row, never calling the night good; so
		// does the top of the page of the run after it, which put no
		// night into the history.
		`<p class="error" id="night-run-failed">This night's run failed: <strong>failed</strong>; the night is incomplete: 2 shards failed or never reported. Its record:
<a href="#run-` + lastNight + `">nights/` + lastNight + `/run.json</a>, among the last runs below.`,
		`<p class="error" id="last-run-failed">The nightly job's last run, started ` + minute(none.Started) + `, failed: <strong>no results</strong>; the night holds no result. Its record:
<a href="#run-20261107T020000Z-unknown">nights/20261107T020000Z-unknown/run.json</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the landing page lacks %s", want)
		}
	}
	if strings.Contains(body, "<img") || strings.Contains(body, "<script>alert") {
		t.Errorf("a record's hostile name reached the page as markup")
	}
}

// A night with no alert whose run failed is never called a good one: the
// landing page says the run failed, why, and where its record is, and
// that no alert says nothing good of the night. A run without Otava says
// on the landing and alerts pages that change points are off. The
// alerts page with none to list says why, never a bare "0 of 0": the
// history has no night, its nights found none, or none is of the state
// asked for.
func TestNoAlertsSayWhy(t *testing.T) {
	db := newHistory(t)
	srv := serve(t, db)
	page := func(path string) string {
		t.Helper()
		_, body := get(t, srv.URL, path)
		return html.UnescapeString(body)
	}
	body := page("/alerts")
	if want := `<p id="no-alerts">No alert: the history holds no night yet.`; !strings.Contains(body, want) || strings.Contains(body, "alert-count") {
		t.Errorf("the alerts page of an empty history does not say %s alone:\n%s", want, body)
	}

	ingestResult(t, db, program("havlak6", 6, 0, 1, 1.69e8, ""))
	name := "20261101T020000Z-" + commitOf(0)[:12]
	if err := os.MkdirAll(filepath.Join(filepath.Dir(db.Name()), history.NightsDir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	started := nightTime(0)
	failed := &runrecord.Record{Started: started, Finished: started.Add(time.Hour), Commit: commitOf(0), Results: 1,
		Status: runrecord.Failed, ExitStatus: 1, Reasons: []string{"the night's tests failed"}, ChangePoints: runrecord.ChangePointsOff,
		Baseline: "tests failed tonight: the baseline stays"}
	if err := runrecord.Write(filepath.Join(filepath.Dir(db.Name()), history.NightsDir, name, nightdir.Run), failed); err != nil {
		t.Fatal(err)
	}
	body = page("/")
	for _, want := range []string{
		`<p class="error" id="night-run-failed">This night's run failed: <strong>failed</strong>; the night's tests failed. Its record:
<a href="#run-` + name + `">nights/` + name + `/run.json</a>, among the last runs below.`,
		`<p id="no-alerts">No alert is open, and none was entered for this night; as its run failed, that says nothing good of it.</p>`,
		`<p class="note" id="change-points-off">Change points are off for this night`,
		`<span class="note change-points-off">change points off (no --otava)</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the landing page of a failed run lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "this night found none") {
		t.Errorf("the landing page calls a night whose run failed a good one:\n%s", body)
	}
	body = page("/alerts")
	for _, want := range []string{`<p id="no-alerts">No alert: the nightly gate found none in the history's 1 nights.</p>`,
		`<p class="note" id="change-points-off">Change points are off: the nightly job's last run (` + minute(started) + `)`} {
		if !strings.Contains(body, want) || strings.Contains(body, "alert-count") {
			t.Errorf("the alerts page of a night without alerts lacks %s, or counts none:\n%s", want, body)
		}
	}

	// The run passed, with change points: the night found none, and says
	// so plainly.
	passed := *failed
	passed.Status, passed.ExitStatus, passed.Reasons, passed.ChangePoints = runrecord.Passed, 0, nil, runrecord.ChangePointsOn
	if err := runrecord.Write(filepath.Join(filepath.Dir(db.Name()), history.NightsDir, name, nightdir.Run), &passed); err != nil {
		t.Fatal(err)
	}
	body = page("/")
	if !strings.Contains(body, `<p id="no-alerts">No alert is open, and this night found none.</p>`) ||
		strings.Contains(body, "night-run-failed") || strings.Contains(body, "change-points-off") {
		t.Errorf("the landing page of a good night without alerts:\n%s", body)
	}
	if body = page("/alerts"); strings.Contains(body, "change-points-off") {
		t.Errorf("the alerts page says change points are off after a run with them:\n%s", body)
	}
}

// laterNight enters a result of havlak6cc at commit, measured by hand
// late on the day of the night after the test history's last.
func laterNight(t *testing.T, db *history.DB, commit string) {
	t.Helper()
	late := program("havlak6cc", 6, nights, 0.8, 2.3e8, "")
	late.Environment.Source.Commit = commit
	late.Environment.Started = nightTime(nights).Add(18 * time.Hour).Format(time.RFC3339)
	ingestResult(t, db, late)
}

// A day of two commits, a night's and a run by hand after it: the night
// is its commit of the most results, on its landing page, on the next
// night's (as the night before) and on the compare page of the two
// dates; the page of the day names the other commit, a link to its
// comparison with the night before.
func TestLandingNightOfSeveralCommits(t *testing.T) {
	db, _ := testHistory(t)
	for _, n := range []int{nights, nights + 1} {
		archive(t, db, program("havlak6", 6, n, 1, 1.69e8, fmt.Sprintf("%064x", n)), nil)
		archive(t, db, program("havlak6cc", 6, n, 0.8, 2.3e8, fmt.Sprintf("%064x", 100+n)), nil)
	}
	byHand := strings.Repeat("d", 40)
	laterNight(t, db, byHand)
	srv := serve(t, db)
	prev, day, next := day(nightTime(nights-1)), day(nightTime(nights)), day(nightTime(nights+1))

	resp, body := get(t, srv.URL, "/?night="+day)
	if resp.StatusCode != http.StatusOK || strings.Contains(body, `class="error"`) || !strings.Contains(body, `id="verdict"`) ||
		!strings.Contains(body, `<h1>The night of <span id="night">`+day+`</span>: <span class="commit">`+commitOf(nights)[:12]) ||
		!strings.Contains(body, `Its others, each against the night before: <a class="night-commit" href="/compare?a=`+prev+`&amp;b=`+byHand+`">`) {
		t.Errorf("the landing page of a day of two commits: %s\n%s", resp.Status, body)
	}
	resp, body = get(t, srv.URL, "/?night="+next)
	if resp.StatusCode != http.StatusOK || strings.Contains(body, `class="error"`) || strings.Contains(body, `id="night-commits"`) ||
		!strings.Contains(body, `Against the night of <a href="/?night=`+day+`">`+day+`</a> (<span class="commit">`+commitOf(nights)[:12]) {
		t.Errorf("the landing page of the night after a day of two commits: %s\n%s", resp.Status, body)
	}
	if status, rows, _, body := compareRows(t, srv.URL, "a="+day+"&b="+next); status != http.StatusOK || len(rows) == 0 ||
		!strings.Contains(body, "A, the base, is <code>"+commitOf(nights)+"</code>") {
		t.Errorf("/compare?a=%s&b=%s: %d, %d rows; want the night's commit of two results as A", day, next, status, len(rows))
	}
}
