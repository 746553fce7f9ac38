package night

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint/otavatest"
	"havlak-lab/tools/history"
	"havlak-lab/tools/summary"
	verdictlib "havlak-lab/tools/verdict"
)

// alertNights runs nights through the gate with a shared history, one a
// day from day0, and checks what each says.
type alertNights struct {
	t                         *testing.T
	baseline, historyDir, dsn string
	otava                     string
	day0                      time.Time
	staleAfter                int // when not 0, the gate's StaleAfter
}

func newAlertNights(t *testing.T) *alertNights {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir := t.TempDir()
	return &alertNights{t: t, baseline: filepath.Join(t.TempDir(), "baseline"), historyDir: historyDir,
		dsn: "sqlite:" + filepath.Join(historyDir, "history.sqlite"), otava: otavatest.Command(t, filepath.Join("..", "..", "ci", "tools.sh")),
		day0: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)}
}

// night runs night i of spec, with the history, after with edits the
// gate's options; it returns the exit status and the log.
func (a *alertNights) night(i int, spec nightSpec, with ...func(o *GateOptions)) (int, string) {
	a.t.Helper()
	spec.allocs = 1
	spec.started = a.day0.AddDate(0, 0, i)
	if spec.commit == "" {
		spec.commit = strings.Repeat(string(rune('a'+i)), 12)
	}
	history := func(o *GateOptions) {
		o.Otava, o.HistoryDir, o.History = a.otava, a.historyDir, a.dsn
		if a.staleAfter != 0 {
			o.StaleAfter = a.staleAfter
		}
	}
	return gateNight(a.t, a.baseline, makeNight(a.t, spec), append([]func(*GateOptions){history}, with...)...)
}

// alerts are the history's alerts.
func (a *alertNights) alerts() []alert.Alert {
	a.t.Helper()
	db, err := history.Open(context.Background(), a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	all, err := db.Alerts(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	return all
}

func (a *alertNights) change(id int64, c alert.Change) {
	a.t.Helper()
	db, err := history.Open(context.Background(), a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ChangeAlert(context.Background(), id, c); err != nil {
		a.t.Fatal(err)
	}
}

func expect(t *testing.T, what string, status int, log string, wantStatus int, says ...string) {
	t.Helper()
	if status != wantStatus {
		t.Errorf("%s: exit status %d, want %d:\n%s", what, status, wantStatus, log)
	}
	for _, want := range says {
		if !strings.Contains(log, want) {
			t.Errorf("%s: the log does not say %q:\n%s", what, want, log)
		}
	}
}

// annotation is the summary part of a night's log, from its title on.
func annotation(log string) string {
	i := strings.Index(log, "**Nightly benchmarks**")
	if i < 0 {
		return log
	}
	return log[i:]
}

// A regression found on night N, acknowledged, does not fail night N+1 and
// is listed as acknowledged; a new one beside it fails its night and comes
// first; the night the series comes back fixes both, and the baseline,
// held while they were open, moves.
func TestAlertAcknowledged(t *testing.T) {
	a := newAlertNights(t)
	status, log := a.night(0, nightSpec{})
	expect(t, "night 0", status, log, 0, "This night becomes the baseline")
	baseline := snapshot(t, a.baseline)

	status, log = a.night(1, nightSpec{slow: "havlak6"})
	expect(t, "night 1, havlak6 slower", status, log, 1, "**New alerts** (1;", "**#1 regression** havlak6 real_seconds (quick): +")
	all := a.alerts()
	if len(all) != 1 || all[0].State() != alert.New || all[0].Kind != alert.Regression || all[0].Range.From != strings.Repeat("a", 12) ||
		all[0].Range.To != strings.Repeat("b", 12) || !strings.HasSuffix(all[0].Report, filepath.Join("report", "index.html")) {
		t.Fatalf("after night 1: %+v, want one new regression of havlak6 in aaaa..bbbb with its report", all)
	}
	a.change(1, alert.Change{State: alert.Acknowledged, By: "ann", At: a.day0.AddDate(0, 0, 1).Add(5 * time.Hour),
		Issue: "https://github.com/havlak-lab/havlak-lab/issues/123"})

	status, log = a.night(2, nightSpec{slow: "havlak6"})
	expect(t, "night 2, havlak6 still slower, acknowledged", status, log, 0,
		"**Known alerts** found again (1;", "#1 acknowledged regression havlak6 real_seconds (quick)",
		"https://github.com/havlak-lab/havlak-lab/issues/123 (ann, 2026-11-02)", "The baseline stays: alerts 1 are regressions against it")
	if strings.Contains(log, "**New alerts**") {
		t.Errorf("night 2 has new alerts:\n%s", log)
	}
	if snapshot(t, a.baseline) != baseline {
		t.Errorf("night 2 moved the baseline while alert 1 is open")
	}

	status, log = a.night(3, nightSpec{slow: "havlak6", alsoSlow: "havlak7"})
	expect(t, "night 3, havlak7 slower too", status, log, 1, "**#2 regression** havlak7 real_seconds (quick)",
		"#1 acknowledged regression havlak6 real_seconds (quick)")
	if i, j := strings.Index(log, "**New alerts**"), strings.Index(log, "**Known alerts**"); i < 0 || j < i {
		t.Errorf("night 3: the new alerts do not come first:\n%s", log)
	}
	t.Logf("night 3's annotation, one new alert and one acknowledged:\n%s", annotation(log))

	status, log = a.night(4, nightSpec{})
	expect(t, "night 4, both back", status, log, 0, "**Fixed tonight**: #1 regression havlak6 real_seconds (quick); #2 regression havlak7 real_seconds (quick);",
		"This night becomes the baseline")
	for _, al := range a.alerts() {
		if al.State() != alert.Fixed || al.Current().By != "nightly" {
			t.Errorf("after night 4: alert %d is %s (%+v), want fixed by the nightly", al.ID, al.State(), al)
		}
	}
}

// An accepted change (a Perf-Accepted: trailer) resets the series: its
// alert is accepted, the night becomes the baseline, and no alert follows
// on the nights at the new level, whose change-point search starts there.
func TestAlertAcceptedResetsTheSeries(t *testing.T) {
	a := newAlertNights(t)
	checkout, commits := gitHistory(t, 1)
	git := func(args ...string) string {
		out, err := gitOutput(checkout, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	git("commit", "-q", "--allow-empty", "-m", "havlak6: a pass more\n\nPerf-Accepted: havlak6 real_seconds: the pass pays for itself in havlak7")
	accepted := git("rev-parse", "HEAD")
	t.Chdir(checkout)
	status, log := a.night(0, nightSpec{commit: commits[0]})
	expect(t, "night 0", status, log, 0, "This night becomes the baseline")
	status, log = a.night(1, nightSpec{slow: "havlak6", commit: accepted})
	expect(t, "night 1, the accepted change", status, log, 0, "#1 accepted regression havlak6 real_seconds (quick)",
		"the pass pays for itself in havlak7 (nightly (Perf-Accepted trailer), 2026-11-02)", "This night becomes the baseline")
	for i := 2; i < 5; i++ {
		git("commit", "-q", "--allow-empty", "-m", "later")
		status, log = a.night(i, nightSpec{slow: "havlak6", commit: git("rev-parse", "HEAD")})
		expect(t, "a night at the new level", status, log, 0, "This night becomes the baseline")
		if strings.Contains(log, "**New alerts**") || strings.Contains(log, "**Known alerts**") {
			t.Errorf("night %d at the accepted level has alerts:\n%s", i, annotation(log))
		}
	}
	if all := a.alerts(); len(all) != 1 || all[0].State() != alert.Accepted {
		t.Errorf("alerts after the accepted change: %+v, want the one accepted", all)
	}
}

// A benchmark the night lacks is a missing alert, which fails the night
// until it is back or retired; a series that stops reporting is listed as
// stale, naming the last night it was seen: a benchmark that left the
// suite, and an environment key whose results now land under another (a
// new Go SDK).
func TestAlertMissingAndStale(t *testing.T) {
	a := newAlertNights(t)
	a.staleAfter = 1
	status, log := a.night(0, nightSpec{})
	expect(t, "night 0", status, log, 0)
	status, log = a.night(1, nightSpec{drop: "havlak6_quick_test"})
	expect(t, "night 1, havlak6 missing", status, log, 1, "**#1 missing** havlak6 (quick): last seen 2026-11-01",
		"**#2 stale** havlak6 (quick): last seen 2026-11-01",
		"no point for the history's last 1 nights (stale after 1); last seen on the night of 2026-11-01")
	a.change(1, alert.Change{State: alert.Acknowledged, By: "ann", At: a.day0.AddDate(0, 0, 1), Note: "the agent lost its disk"})
	status, log = a.night(2, nightSpec{drop: "havlak6_quick_test"})
	expect(t, "night 2, havlak6 still missing, acknowledged", status, log, 1, "#1 acknowledged missing havlak6 (quick)")
	status, log = a.night(3, nightSpec{drop: "havlak6_quick_test"}, func(o *GateOptions) { o.Retire = []string{"havlak6"} })
	expect(t, "night 3, havlak6 retired", status, log, 0, "**Fixed tonight**: #1 missing havlak6 (quick);",
		"**#2 stale** havlak6 (quick)", "This night becomes the baseline")
	status, log = a.night(4, nightSpec{drop: "havlak6_quick_test", newGoSDK: "go1.99"})
	expect(t, "night 4, another Go SDK", status, log, 0, "**#3 environment change** environment ", "**#4 stale** environment ", "last seen 2026-11-04")
	var got []string
	for _, al := range a.alerts() {
		got = append(got, fmt.Sprintf("%d %s %s %s %s %s", al.ID, al.Kind, al.State(), al.Series, al.LastPoint.Format("2006-01-02"), al.Current().Note))
	}
	want := []string{
		"1 missing fixed havlak6 (quick) 2026-11-01 the benchmark was retired (--retire) on the night of 2026-11-04 (dddddddddddd)",
		"2 stale new havlak6 (quick) 2026-11-01 ",
	}
	if len(got) != 4 || got[0] != want[0] || got[1] != want[1] || !strings.HasPrefix(got[2], "3 environment_change new environment ") ||
		!strings.HasPrefix(got[3], "4 stale new environment ") {
		t.Errorf("alerts:\n%s\nwant\n%s\n3 environment_change new environment ...\n4 stale new environment ...", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A night whose every result ran with another Go SDK raises one
// environment change alert, naming the change and every benchmark whose
// timings restart; it fails no night, and the nights after, compared in
// the new environment, leave it open for triage.
func TestAlertEnvironmentChange(t *testing.T) {
	a := newAlertNights(t)
	status, log := a.night(0, nightSpec{})
	expect(t, "night 0", status, log, 0, "This night becomes the baseline")
	status, log = a.night(1, nightSpec{newGoSDK: "go1.99"})
	change := `toolchains.go: "go1.27.4" → "go1.99"`
	expect(t, "night 1, another Go SDK", status, log, 0, "**New alerts** (1;",
		"**#1 environment change** environment ", ": another environment than the baseline's, commits `aaaaaaaaaaaa..bbbbbbbbbbbb`",
		"\n  "+change+"; not compared with the baseline, their timings restart tonight: ",
		"**Environment changed** since the baseline", "The change is an alert for triage", "This night becomes the baseline")
	t.Logf("night 1's annotation, another Go SDK:\n%s", annotation(log))
	all := a.alerts()
	if len(all) != 1 || all[0].Kind != alert.EnvironmentChange || all[0].State() != alert.New || all[0].Benchmark != "" || all[0].EnvKey == "" {
		t.Fatalf("after night 1: %+v, want one new environment change of the new environment key", all)
	}
	for _, name := range []string{"explodepath (standard)", "havlak1 (quick)", "havlak1cc (quick)", "havlak6 (quick)",
		"havlak6cc (quick)", "havlak7 (quick)", "wc_w (quick)", "wordcount3 (quick)"} {
		if !strings.Contains(all[0].Evidence, name) {
			t.Errorf("the alert's evidence does not name %s: %s", name, all[0].Evidence)
		}
	}
	if !strings.HasPrefix(all[0].Evidence, change+"; ") || strings.Count(all[0].Evidence, change) != 1 {
		t.Errorf("the alert's evidence %q does not say once what changed", all[0].Evidence)
	}
	status, log = a.night(2, nightSpec{newGoSDK: "go1.99"})
	expect(t, "night 2, in the new environment", status, log, 0, "This night becomes the baseline")
	if strings.Contains(log, "**New alerts**") || strings.Contains(log, "**Environment changed**") {
		t.Errorf("night 2 compared in the new environment, yet says:\n%s", annotation(log))
	}
	if all := a.alerts(); len(all) != 1 || all[0].State() != alert.New {
		t.Errorf("after night 2: %+v, want the environment change still new", all)
	}
}

// A night measured by another version of the lab raises one environment
// change alert that says so by name, never "another environment", and
// that every figure restarts; a night after it of another lab on another
// Go SDK says both.
func TestAlertAnotherLab(t *testing.T) {
	a := newAlertNights(t)
	labC, labD := strings.Repeat("c", 64), strings.Repeat("d", 64)
	status, log := a.night(0, nightSpec{lab: labC})
	expect(t, "night 0", status, log, 0, "This night becomes the baseline")
	status, log = a.night(1, nightSpec{lab: labD})
	change := verdictlib.AnotherLab + " (the lab's version cccccccccccc → dddddddddddd)"
	expect(t, "night 1, another lab", status, log, 0, "**New alerts** (1;",
		"**#1 environment change** environment ", ": "+verdictlib.AnotherLab+", commits `aaaaaaaaaaaa..bbbbbbbbbbbb`",
		"\n  "+change+"; not compared with the baseline, every figure restarts tonight: ", "This night becomes the baseline",
		" benchmarks "+verdictlib.AnotherLab+"** (the lab's versions named above): none of their figures was compared")
	if strings.Contains(log, "another environment") || strings.Contains(log, "**Environment changed**") {
		t.Errorf("night 1, measured by another lab only, says another environment:\n%s", annotation(log))
	}
	status, log = a.night(2, nightSpec{lab: labC, newGoSDK: "go1.99"})
	expect(t, "night 2, another lab on another Go SDK", status, log, 0, "**New alerts** (1;",
		": "+verdictlib.AnotherLab+"; another environment than the baseline's, commits `",
		"\n  "+verdictlib.AnotherLab+" (the lab's version dddddddddddd → cccccccccccc); "+`toolchains.go: "go1.27.4" → "go1.99"`+
			"; not compared with the baseline, every figure restarts tonight: ",
		" benchmarks "+verdictlib.AnotherLab+"** (the lab's versions named above)", "**Environment changed** since the baseline")
	if all := a.alerts(); len(all) != 2 || all[0].ChangeText() != verdictlib.AnotherLab ||
		all[1].ChangeText() != verdictlib.AnotherLab+"; another environment than the baseline's" {
		t.Errorf("the history's alerts: %+v, want the two changes, each saying what moved", all)
	}
}

// gitOutput runs git in dir and returns its output, trimmed.
func gitOutput(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@localhost"}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// A benchmark measured whose gated figure is missing is that figure's
// missing finding, with its other failing figures' findings beside it;
// only a benchmark gone is a missing finding of the whole benchmark.
func TestMissingFigureIsTheFiguresFinding(t *testing.T) {
	gated := verdictlib.Rule{Gated: true}
	s := &summary.Summary{Tool: "report", Benchmarks: []summary.Benchmark{
		{Name: "gone", Outcome: verdictlib.Missing, Note: "tonight has no result of it"},
		{Name: "lost", Workload: "quick", Outcome: verdictlib.Missing, Figures: []verdictlib.Verdict{
			{Figure: "instructions", Unit: "instructions", Outcome: verdictlib.Missing, Rule: gated, Reason: "tonight does not measure it"},
			{Figure: "real_seconds", Unit: "s", Outcome: verdictlib.Regressed, Rule: gated}}},
	}}
	g := gateFindings{n: &night{}, fine: map[alert.Series]bool{}, ran: map[[2]string]bool{}}
	g.fromSummary(s)
	var got []string
	for _, f := range g.findings {
		got = append(got, string(f.Kind)+" "+f.Series.String())
	}
	want := []string{"missing gone", "missing lost instructions (quick)", "regression lost real_seconds (quick)"}
	if !slices.Equal(got, want) {
		t.Errorf("the findings: %q, want %q", got, want)
	}
}
