package nightarchive

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/labdir"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/history/historytest"
	"havlak-lab/tools/runrecord"
)

// spec is the suite of the test's nights: one benchmark, 4 results a
// night.
var spec = historytest.Spec{Benchmarks: 1, Figures: 6, Nights: 20, Runs: 1, Trusted: true}

// An archive is a history and its archive of nights, as the nightly job
// leaves them.
type archive struct {
	t   *testing.T
	dir string // the history's directory
	db  *history.DB
}

func newArchive(t *testing.T) *archive {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, history.NightsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := history.Create(context.Background(), history.DirDSN(dir), history.Shared)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &archive{t: t, dir: dir, db: db}
}

// name is night n's name in the archive.
func name(n int) string { return filepath.Base(historytest.NightDir("", n)) }

func (a *archive) path(n int) string { return historytest.NightDir(a.dir, n) }

// night archives night n as the nightly job does (historytest.ArchiveNight).
func (a *archive) night(n int, promoted bool) {
	a.t.Helper()
	if _, err := historytest.ArchiveNight(context.Background(), a.db, a.dir, spec, n, promoted); err != nil {
		a.t.Fatal(err)
	}
}

// record writes night n's run's record alone: a night that archived
// nothing.
func (a *archive) record(n int, promoted bool) {
	a.t.Helper()
	if _, err := historytest.RecordNight(a.dir, n, promoted); err != nil {
		a.t.Fatal(err)
	}
}

// alert stores al as a new alert.
func (a *archive) alert(al alert.Alert) {
	a.t.Helper()
	if _, err := a.db.UpdateAlerts(context.Background(), func([]alert.Alert) ([]alert.Alert, error) { return []alert.Alert{al}, nil }); err != nil {
		a.t.Fatal(err)
	}
}

// files lists every path under the archive, with what kind of entry it
// is: two listings are equal when nothing was added, removed or changed
// in kind.
func (a *archive) files() []string {
	a.t.Helper()
	var all []string
	root := filepath.Join(a.dir, history.NightsDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		all = append(all, rel+" "+d.Type().String())
		return nil
	})
	if err != nil {
		a.t.Fatal(err)
	}
	return all
}

var (
	now    = historytest.NightTime(20)
	policy = Policy{KeepNights: 2, MaxAge: 7 * 24 * time.Hour, Now: now}
)

// A history with nights, alerts and results: the plan keeps exactly what
// the policy says, with its reasons, leaves what it cannot classify,
// and changes nothing; Remove removes exactly the nights it does not
// keep, each whole, and what an earlier prune left.
func TestPrune(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	a.night(0, false) // an open alert's report
	a.night(1, false) // only a closed alert of long ago cites it
	a.night(2, true)  // the baseline's
	a.night(3, false) // old, cited by its results alone
	a.night(4, false)
	if err := os.WriteFile(filepath.Join(a.path(4), runrecord.FileName), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.record(5, false) // a night that archived nothing
	a.night(6, false)  // an acknowledged alert's range starts at its commit
	a.night(7, false)  // a stale alert's last point was in it
	a.night(8, false)  // an alert fixed yesterday cites its report
	a.night(14, false) // younger than MaxAge
	a.record(15, false)
	a.night(18, false)
	a.night(19, false)

	report := func(n int) string { return filepath.Join(a.path(n), "report", "index.html") }
	day := func(n int) time.Time { return historytest.NightTime(n) }
	a.alert(alert.Alert{Finding: alert.Finding{Kind: alert.Regression, Report: report(0)},
		Changes: []alert.Change{{State: alert.New, By: "nightly", At: day(0)}}})
	a.alert(alert.Alert{Finding: alert.Finding{Kind: alert.Regression, Report: report(1)}, LastFound: day(1),
		Changes: []alert.Change{{State: alert.New, By: "nightly", At: day(1)}, {State: alert.Fixed, By: "ann", At: day(2)}}})
	a.alert(alert.Alert{Finding: alert.Finding{Kind: alert.ChangePoint, Range: alert.Range{From: historytest.Commit(6)}},
		Changes: []alert.Change{{State: alert.New, By: "nightly", At: day(9)}, {State: alert.Acknowledged, By: "ann", At: day(9), Note: "seen"}}})
	a.alert(alert.Alert{Finding: alert.Finding{Kind: alert.Stale, LastPoint: day(7).Add(30 * time.Minute)},
		Changes: []alert.Change{{State: alert.New, By: "nightly", At: day(10)}}})
	a.alert(alert.Alert{Finding: alert.Finding{Kind: alert.Regression, ProfileDiffs: []string{filepath.Join(a.path(8), "report", "d.svg")}},
		Changes: []alert.Change{{State: alert.New, By: "nightly", At: day(8)}, {State: alert.Fixed, By: "bob", At: day(19)}}})

	// What the plan cannot classify, and what an earlier prune left.
	nights := filepath.Join(a.dir, history.NightsDir)
	for _, d := range []string{"notes", name(16) + ".tmp", filepath.Join(name(17), "havlak6_test"), "." + name(11) + ".pruned/x"} {
		if err := os.MkdirAll(filepath.Join(nights, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(nights, "README"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A report's directory, named as a night.
	if err := os.MkdirAll(a.path(13), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := labdir.Mark(a.path(13), labdir.Report); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a.path(0), filepath.Join(nights, name(12))); err != nil {
		t.Fatal(err)
	}
	results, err := a.db.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}

	before := a.files()
	plan, err := Decide(ctx, a.db, a.dir, policy)
	if err != nil {
		t.Fatal(err)
	}
	if after := a.files(); !slices.Equal(after, before) {
		t.Errorf("Decide changed the archive:\n%v\nwas\n%v", after, before)
	}
	want := map[string]string{
		name(0):  "alert 1 (new) cites it",
		name(2):  "the baseline was promoted from it",
		name(4):  "its run's record is unreadable",
		name(6):  "alert 3 (acknowledged) cites it",
		name(7):  "alert 4 (new) cites it",
		name(8):  "alert 5 (fixed) cites it",
		name(14): "results of the history were ingested from it",
		name(18): "one of the newest 2 nights",
		name(19): "the newest night",
	}
	var removed []string
	for _, d := range plan.Nights {
		why, kept := want[d.Name]
		switch {
		case d.Keep() != kept:
			t.Errorf("night %s: kept %v (%q), want kept %v", d.Name, d.Keep(), d.Kept, kept)
		case kept && !strings.Contains(strings.Join(d.Kept, "\n"), why):
			t.Errorf("night %s kept for %q, want %q among the reasons", d.Name, d.Kept, why)
		}
		if !d.Keep() {
			removed = append(removed, d.Name)
		}
	}
	if wantRemoved := []string{name(1), name(3), name(5), name(15)}; !slices.Equal(removed, wantRemoved) {
		t.Errorf("the plan removes %v, want %v", removed, wantRemoved)
	}
	var left []string
	for _, l := range plan.Left {
		left = append(left, l.Name)
		if l.Name == name(13) && !strings.Contains(l.Why, "the lab's report directory") {
			t.Errorf("a report's directory left for %q, want the marker's kind named", l.Why)
		}
	}
	slices.Sort(left)
	wantLeft := []string{"README", name(12), name(13), name(16) + ".tmp", name(17), "notes"}
	if slices.Sort(wantLeft); !slices.Equal(left, wantLeft) {
		t.Errorf("left %v, want %v", left, wantLeft)
	}
	if !slices.Equal(plan.Leftovers, []string{"." + name(11) + ".pruned"}) {
		t.Errorf("leftovers %v", plan.Leftovers)
	}

	var gone []string
	if err := plan.Remove(func(night string) { gone = append(gone, night) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gone, removed) {
		t.Errorf("Remove removed %v, want %v", gone, removed)
	}
	entries, err := os.ReadDir(nights)
	if err != nil {
		t.Fatal(err)
	}
	var holds []string
	for _, e := range entries {
		holds = append(holds, e.Name())
	}
	slices.Sort(holds)
	wantNow := append(left, name(0), name(2), name(4), name(6), name(7), name(8), name(14), name(18), name(19))
	slices.Sort(wantNow)
	if !slices.Equal(holds, wantNow) {
		t.Errorf("the archive holds %v, want %v", holds, wantNow)
	}
	// The results of a removed night stay in the history, their files
	// gone.
	if n, err := a.db.Count(ctx); err != nil || n != results {
		t.Errorf("%d results after the prune (%v), want the %d before", n, err, results)
	}
	stored, err := a.db.Results(ctx, history.ResultQuery{}.Night(historytest.NightTime(3)), 10)
	if err != nil || len(stored) != 4 {
		t.Fatalf("night 3's results: %d, %v", len(stored), err)
	}
	if _, err := stored[0].Outputs().ReadFile("cpu.pprof"); err == nil || !strings.Contains(err.Error(), "no longer where they were ingested from") {
		t.Errorf("a removed night's result's file: %v, want it gone", err)
	}

	// Without MaxAge, every night its results or an alert cite stays.
	plan, err = Decide(ctx, a.db, a.dir, Policy{KeepNights: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if r := plan.Removed(); len(r) != 0 {
		t.Errorf("without an age, the plan removes %+v, want none", r)
	}
}

// A plan is refused for a database that is not the archive's, and for a
// policy that would keep no night; a night that changed since the plan
// was made is not removed.
func TestPruneFailsClosed(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	a.night(0, false)
	a.record(1, false)
	a.night(2, false)
	other := newArchive(t)
	if _, err := Decide(ctx, other.db, a.dir, policy); err == nil || !strings.Contains(err.Error(), "not this archive's history") {
		t.Errorf("Decide with another history: %v, want it refused", err)
	}
	if _, err := Decide(ctx, a.db, a.dir, Policy{KeepNights: 0, Now: now}); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("Decide keeping no night: %v, want it refused", err)
	}
	if _, err := Decide(ctx, a.db, t.TempDir(), policy); err == nil || !strings.Contains(err.Error(), "archive of nights") {
		t.Errorf("Decide without an archive: %v, want it refused", err)
	}
	plan, err := Decide(ctx, a.db, a.dir, Policy{KeepNights: 1, MaxAge: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if r := plan.Removed(); len(r) != 2 || r[0].Name != name(0) || r[1].Name != name(1) {
		t.Fatalf("the plan removes %+v, want nights 0 and 1", r)
	}
	// Night 1, its record alone when the plan was made, gets results.
	if err := os.WriteFile(filepath.Join(a.path(1), "late.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var gone []string
	err = plan.Remove(func(night string) { gone = append(gone, night) })
	if err == nil || !strings.Contains(err.Error(), "changed since the plan was made") || !slices.Equal(gone, []string{name(0)}) {
		t.Errorf("Remove: %v, removed %v; want night 0 removed, then a stop at night 1", err, gone)
	}
	if _, err := os.Stat(filepath.Join(a.path(1), "late.txt")); err != nil {
		t.Errorf("the changed night: %v, want it left", err)
	}
}
