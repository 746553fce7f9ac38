package night

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint/otavatest"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
	"havlak-lab/tools/trends"
	verdictlib "havlak-lab/tools/verdict"
)

// gitHistory makes a git repository with n commits and returns their
// hashes, oldest first: the nights' commits, real enough for git rev-list.
func gitHistory(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@localhost"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	var commits []string
	for i := 0; i < n; i++ {
		git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("night %d", i))
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	return dir, commits
}

// historyNight writes one night's artifacts: havlak6's quick result from
// the fixtures, measured at commit on day, with a gated own_instructions
// count of level (three runs, noise of the size Go stages show).
func historyNight(t *testing.T, rng *rand.Rand, commit string, day time.Time, level float64, origin result.Origin) string {
	t.Helper()
	dir := t.TempDir()
	test := "havlak6_quick_test"
	files := readZip(t, filepath.Join(*fixtures, test, result.ZipName))
	editResult(t, files, func(r *result.Result) {
		r.Environment.Source = result.Source{Commit: commit}
		r.Environment.Started = day.Format(time.RFC3339)
		r.Environment.Origin = origin
		var values []float64
		for range 3 {
			values = append(values, level*(1+0.00001*rng.NormFloat64()))
		}
		r.Metrics = []result.Metric{{Name: "own_instructions", Unit: "instructions", Source: "cachegrind",
			Values: values, Gated: true, Threshold: 0.01}}
	})
	writeZip(t, filepath.Join(dir, test, result.ZipName), files)
	return dir
}

// A creep of 0.4% a night never fails the night-to-night gate (its
// threshold, calibrated from the runs' noise of 0.003%, is the floor of a
// count that is not exact, 0.5%; and each good night becomes the
// baseline), but the
// history's change points find it inside the creep's commits: E-divisive
// fits steps, so a creep may come out as more than one.
func TestHistoryFindsCreep(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	otava := otavatest.Command(t, filepath.Join("..", "..", "ci", "tools.sh"))
	const flat, creep = 10, 8
	checkout, commits := gitHistory(t, flat+creep)
	t.Chdir(checkout)
	historyDir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(historyDir, "history.sqlite")
	baseline := filepath.Join(t.TempDir(), "baseline")
	rng := rand.New(rand.NewPCG(1, 2))
	day := time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)

	level := 169e6
	alerted := map[int]string{}
	for i := range flat + creep {
		if i >= flat {
			level *= 1.004
		}
		night := historyNight(t, rng, commits[i], day.AddDate(0, 0, i), level, scheduledMain)
		status, log := gateNight(t, baseline, night, func(o *GateOptions) { o.Otava, o.HistoryDir, o.History = otava, historyDir, dsn })
		if !strings.Contains(log, "havlak6: added") {
			t.Fatalf("night %d: the result did not enter the history:\n%s", i, log)
		}
		newChange := strings.Contains(log, "**New alerts**") && strings.Contains(log, " change point** havlak6 own_instructions")
		if newChange {
			alerted[i] = log
			if status != 1 {
				t.Errorf("night %d: a new change point, but exit status %d, want 1", i, status)
			}
		}
		// Until the history speaks, every night is good and becomes the
		// baseline; a night with a new change point does not, and the
		// nights after it are judged against the last good one.
		if len(alerted) == 0 && (status != 0 || strings.Contains(log, "REGRESSED")) {
			t.Errorf("night %d: exit status %d, or the night-to-night gate flagged a 0.4%% step:\n%s", i, status, log)
		}
		series, err := trends.Read(filepath.Join(night, "trends.json"))
		if err != nil {
			t.Fatalf("night %d: %v", i, err)
		}
		if got := len(series[0].Points); len(series) == 0 || got != i+1 {
			t.Errorf("night %d: the trends file has %d points, want %d", i, got, i+1)
		}
		// Each point links to its night's profile graphs, archived with
		// that night's report.
		for _, p := range series[0].Points {
			graphs, _ := filepath.Glob(filepath.Join(night, "report", filepath.FromSlash(p.Profiles), "*.svg"))
			if p.Profiles == "" || len(graphs) == 0 {
				t.Errorf("night %d: point %s links to %q, which holds no profile graphs", i, gitwork.Short(p.Commit), p.Profiles)
			}
		}
		if page, _ := os.ReadFile(filepath.Join(night, "report", "index.html")); !strings.Contains(string(page), "uPlot") {
			t.Errorf("night %d: the report has no trend charts", i)
		}
	}
	if len(alerted) == 0 {
		t.Fatalf("no night reported the creep's change point")
	}
	for i, log := range alerted {
		if i < flat {
			t.Errorf("night %d, before the creep, reported a change point:\n%s", i, log)
			continue
		}
		// The range is inside the creep: from its first commit's parent on.
		var inside bool
		for j := flat - 1; j < flat+creep-1; j++ {
			inside = inside || strings.Contains(log, fmt.Sprintf("commits `%s..%s`", gitwork.Short(commits[j]), gitwork.Short(commits[j+1])))
		}
		if !strings.Contains(log, "change point** havlak6 own_instructions (quick): +") || !inside {
			t.Errorf("night %d: the new change point is not a rise of own_instructions inside the creep:\n%s", i, log)
		}
		t.Logf("night %d: %s", i, log[strings.Index(log, "**New alerts**"):])
	}
}

// A shared history takes no result of an untrusted build.
func TestSharedHistoryRefusesUntrusted(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	otava := otavatest.Command(t, filepath.Join("..", "..", "ci", "tools.sh"))
	historyDir := t.TempDir()
	pr := result.Origin{CI: "buildkite", BuildSource: "webhook", Branch: "patch-1", PullRequest: "7",
		Repository: scheduledMain.Repository, PullRequestRepository: "git@github.com:mallory/havlak-lab.git"}
	night := historyNight(t, rand.New(rand.NewPCG(3, 4)), "0123456789abcdef", time.Now(), 169e6, pr)
	_, log := gateNight(t, filepath.Join(t.TempDir(), "baseline"), night, func(o *GateOptions) { o.Otava, o.HistoryDir = otava, historyDir })
	if !strings.Contains(log, "havlak6: not recorded: a buildkite build of pull request #7 from the fork") {
		t.Errorf("the log does not say the pull request's result was not recorded:\n%s", log)
	}
	db, err := history.Open(context.Background(), filepath.Join(historyDir, "history.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.Count(context.Background()); err != nil || n != 0 || db.Access() != history.Shared {
		t.Errorf("the history holds %d results (%v), access %s; want 0 in a shared one", n, err, db.Access())
	}
	if nights, _ := filepath.Glob(filepath.Join(historyDir, "nights", "*")); len(nights) > 0 {
		t.Errorf("an untrusted night was archived: %v", nights)
	}
}

// A result the history refuses is named, and the night's other results
// are recorded all the same.
func TestRecordTakesEveryValidResult(t *testing.T) {
	needCommands(t)
	artifacts := t.TempDir()
	files := readZip(t, filepath.Join(*fixtures, "havlak6_quick_test", result.ZipName))
	for _, test := range []string{"a_quick_test", "b_quick_test", "c_quick_test"} {
		edited := maps.Clone(files)
		editResult(t, edited, func(r *result.Result) {
			r.Benchmark.Name = strings.TrimSuffix(test, "_quick_test")
			if test == "b_quick_test" {
				// Listed, never written: a half-made result.
				r.Files = append(r.Files, result.File{Name: "lost.svg", Role: result.RoleGraph})
			}
		})
		writeZip(t, filepath.Join(artifacts, test, result.ZipName), edited)
	}
	found, err := result.FindAll(artifacts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "history.sqlite")
	db, err := history.Create(ctx, dsn, history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out strings.Builder
	n := &night{artifacts: artifacts, stdout: &out, stderr: &out, history: &historyConfig{dir: t.TempDir(), dsn: dsn}}
	ingested, err := n.record(ctx, db, found)
	if ingested != 2 || err == nil || !strings.Contains(err.Error(), "1 of the night's 3 results were not recorded") ||
		!strings.Contains(err.Error(), "lost.svg") {
		t.Errorf("record: %d ingested, %v; want a and c, and b named\n%s", ingested, err, out.String())
	}
	if count, _ := db.Count(ctx); count != 2 {
		t.Errorf("%d results in the history, want 2", count)
	}
}

// A night gated without Otava, and without --history-dir, enters the
// default local history ($HAVLAK_LAB_HISTORY_DIR) all the same: archived,
// ingested, and its gates' findings (a regression, a benchmark gone)
// are alerts that fail it. No change point is searched, and the log and
// the run's record say so. Outside a git checkout, the log says in one
// line that no commit's trailer can accept a regression, never git's
// "fatal:".
func TestGateWithoutOtavaEntersTheHistory(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir := t.TempDir()
	t.Setenv(history.DirEnv, historyDir)
	notCheckout := t.TempDir()
	t.Chdir(notCheckout)
	baseline := filepath.Join(t.TempDir(), "baseline")
	day := time.Date(2026, 11, 19, 2, 0, 0, 0, time.UTC)
	withoutOtava := func(o *GateOptions) { o.HistoryDir, o.Otava = "", "" }

	first := makeNight(t, nightSpec{allocs: 1, commit: "0123456789abcdef0123456789abcdef01234567", started: day})
	status, log := gateNight(t, baseline, first, withoutOtava)
	if status != 0 {
		t.Fatalf("the first night: exit status %d:\n%s", status, log)
	}
	for _, want := range []string{"No --otava: change points are off.", "havlak6: added", "Change points: off (no --otava)"} {
		if !strings.Contains(log, want) {
			t.Errorf("the first night's log does not say %q:\n%s", want, log)
		}
	}
	if !isFile(filepath.Join(historyDir, history.NightsDir, "20261119T020000Z-0123456789ab", "havlak6_quick_test", result.ZipName)) {
		t.Errorf("the first night is not archived in the default history %s:\n%s", historyDir, log)
	}
	if series, err := trends.Read(filepath.Join(first, "trends.json")); err != nil || len(series) == 0 || len(series[0].ChangePoints) != 0 {
		t.Errorf("the first night's trends: %d series (%v), want them charted without change points", len(series), err)
	}

	second := makeNight(t, nightSpec{allocs: 1, slow: "havlak6", drop: "havlak7_quick_test",
		commit: "fedcba9876543210fedcba9876543210fedcba98", started: day.AddDate(0, 0, 1)})
	status, log = gateNight(t, baseline, second, withoutOtava)
	if status != 1 {
		t.Fatalf("a regression and a benchmark gone: exit status %d, want 1:\n%s", status, log)
	}
	accepting := "Accepted regressions: none: the commits' trailers (Perf-Accepted:) cannot be read, as " + notCheckout +
		" is not a git checkout; no regression is accepted by a commit tonight.\n"
	if !strings.Contains(log, accepting) || strings.Contains(log, "fatal:") {
		t.Errorf("outside a git checkout, the log does not say %q alone:\n%s", accepting, log)
	}
	ctx := context.Background()
	db, err := history.Open(ctx, history.DirDSN(historyDir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if count, err := db.Count(ctx); err != nil || count != 8+7 {
		t.Errorf("the history holds %d results (%v), want both nights', 15", count, err)
	}
	alerts, err := db.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]alert.Kind{}
	for _, a := range alerts {
		kinds[a.Series.String()] = a.Kind
	}
	if kinds["havlak6 real_seconds (quick)"] != alert.Regression || kinds["havlak7 (quick)"] != alert.Missing {
		t.Errorf("the alerts: %v; want havlak6's real_seconds regressed and havlak7 missing", kinds)
	}

	r, err := runrecord.Read(filepath.Join(second, nightdir.Run))
	if err != nil {
		t.Fatal(err)
	}
	if r.ChangePoints != runrecord.ChangePointsOff || r.Status != runrecord.Failed ||
		!slices.Contains(r.Reasons, "missing: havlak7 (no result tonight)") ||
		!slices.ContainsFunc(r.Reasons, func(s string) bool {
			return strings.HasPrefix(s, "regressed: ") && strings.Contains(s, "havlak6 real_seconds (s)")
		}) {
		t.Errorf("the record: change points %q, %s for %q; want off, failed for havlak7 missing and havlak6 regressed", r.ChangePoints, r.Status, r.Reasons)
	}
	want := []runrecord.Benchmark{{Name: "havlak7", Outcome: verdictlib.Missing, Fails: true},
		{Name: "havlak6", Workload: "quick", Figure: "real_seconds", Unit: "s", Outcome: verdictlib.Regressed, Fails: true}}
	for _, b := range want {
		if !slices.Contains(r.Benchmarks, b) {
			t.Errorf("the record's benchmarks %+v lack %+v", r.Benchmarks, b)
		}
	}
	if archived := archivedRuns(t, historyDir); len(archived) != 2 {
		t.Errorf("the history's archive holds %d run records, want both nights'", len(archived))
	}
}
