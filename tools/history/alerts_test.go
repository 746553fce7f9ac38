package history

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
)

var own = alert.Series{Benchmark: "havlak6", Figure: "own_instructions", Unit: "instructions", Workload: "standard", EnvKey: "e1"}

func regressionOn(n int) (alert.Night, alert.Finding) {
	at := day0.AddDate(0, 0, n)
	return alert.Night{Time: at, Commit: "c" + string(rune('0'+n)), By: "nightly"},
		alert.Finding{Kind: alert.Regression, Series: own, Size: 0.05, Before: 100, After: 105, Evidence: "100 → 105",
			Range:  alert.Range{From: "c0", To: "c1", FromTime: day0, ToTime: day0.AddDate(0, 0, 1)},
			Report: "/nights/1/report/index.html", ProfileDiffs: []string{"/nights/1/report/diff.svg"}}
}

// Alerts are records: a night's finding opens one, a person's change of
// state is kept with who and when, and the next night's same finding is
// the same alert.
func checkAlerts(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	night1, f := regressionOn(1)
	opened, err := d.RecordAlerts(ctx, night1, []alert.Finding{f}, nil)
	if err != nil || len(opened) != 1 || opened[0].ID != 1 || opened[0].State() != alert.New {
		t.Fatalf("RecordAlerts: %+v, %v; want alert 1, new", opened, err)
	}
	ackAt := day0.AddDate(0, 0, 1).Add(3 * time.Hour)
	acked, err := d.ChangeAlert(ctx, 1, alert.Change{State: alert.Acknowledged, By: "ann", At: ackAt, Issue: "https://example.com/issues/9"})
	if err != nil || acked.State() != alert.Acknowledged {
		t.Fatalf("ChangeAlert: %+v, %v", acked, err)
	}
	if _, err := d.ChangeAlert(ctx, 99, alert.Change{State: alert.Fixed, By: "ann", At: ackAt}); !errors.Is(err, ErrNoAlert) || !strings.Contains(err.Error(), "alert 99") {
		t.Errorf("ChangeAlert(99): %v, want ErrNoAlert naming it", err)
	}
	if _, err := d.ChangeAlert(ctx, 1, alert.Change{State: alert.Ignored, By: "ann", At: ackAt}); !errors.Is(err, alert.ErrReason) {
		t.Errorf("ignoring without a reason: %v", err)
	}
	night2, f2 := regressionOn(2)
	f2.Evidence = "100 → 106"
	f2.Report, f2.ProfileDiffs = "/nights/2/report/index.html", []string{"/nights/2/report/diff.svg"}
	again, err := d.RecordAlerts(ctx, night2, []alert.Finding{f2}, nil)
	if err != nil || len(again) != 1 || again[0].ID != 1 || again[0].State() != alert.Acknowledged || alert.Fails(again) {
		t.Fatalf("night 2: %+v, %v; want alert 1 again, acknowledged, not failing", again, err)
	}
	all, err := d.Alerts(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("Alerts: %+v, %v", all, err)
	}
	a := all[0]
	if a.Series != own || a.Range != f.Range || a.Size != 0.05 || a.Evidence != "100 → 105" || a.Report != f.Report ||
		!slices.Equal(a.ProfileDiffs, f.ProfileDiffs) || !a.FirstFound.Equal(night1.Time) || !a.LastFound.Equal(night2.Time) || a.LastFoundCommit != "c2" {
		t.Errorf("stored alert: %+v\nwant the finding, found on nights 1 and 2, with night 1's report", a)
	}
	if len(a.Changes) != 2 || a.Changes[1].By != "ann" || !a.Changes[1].At.Equal(ackAt) || a.Changes[1].Issue != "https://example.com/issues/9" {
		t.Errorf("changes: %+v, want new then acknowledged by ann with the issue", a.Changes)
	}
	// An assignment is kept in the record, who made it and when, and
	// checked against the changes its maker saw.
	assignAt := ackAt.Add(time.Hour)
	if _, err := d.AssignAlertSeen(ctx, 1, 1, "bob", "ann", assignAt); !errors.Is(err, ErrAlertChanged) {
		t.Errorf("assigning on a stale view: %v, want ErrAlertChanged", err)
	}
	if _, err := d.AssignAlertSeen(ctx, 1, 2, "bob", "ann", assignAt); err != nil {
		t.Fatal(err)
	}
	if a, err := d.Alert(ctx, 1); err != nil || a.Assignee() != "bob" || len(a.Changes) != 3 || a.Changes[2].By != "ann" ||
		!a.Changes[2].At.Equal(assignAt) || a.State() != alert.Acknowledged || !a.Assigned(2) || a.Changes[1].Assignee != "" {
		t.Errorf("assigned: %+v, %v; want acknowledged, assigned to bob by ann", a, err)
	}
	if _, err := d.ChangeAlert(ctx, 1, alert.Change{State: alert.Acknowledged, By: "bob", At: assignAt, Note: "mine"}); err != nil {
		t.Fatal(err)
	}
	if a, err := d.Alert(ctx, 1); err != nil || a.Assignee() != "bob" {
		t.Errorf("acknowledged again: assignee %q, %v; want bob still", a.Assignee(), err)
	}
	// The series came back on night 3.
	night3, _ := regressionOn(3)
	fixed, err := d.RecordAlerts(ctx, night3, nil, func(alert.Alert) string { return "the series came back" })
	if err != nil || len(fixed) != 1 || fixed[0].State() != alert.Fixed {
		t.Errorf("night 3: %+v, %v; want alert 1 fixed", fixed, err)
	}

	ingest(t, d, night{commit: "c1", started: day0, real: []float64{1, 1.1}, instrs: []float64{100, 101}, origin: nightly}.write(t, filepath.Join(t.TempDir(), "r")))
	seen, nights, err := d.Seen(ctx)
	if err != nil || len(nights) != 1 || !nights[0].Equal(day0.Truncate(24*time.Hour)) || len(seen) != 6 {
		t.Fatalf("Seen: %+v, nights %v, %v; want 6 series (hw_instructions has no values), one night", seen, nights, err)
	}
	for _, s := range seen {
		if !s.Last.Equal(day0) || s.Benchmark != "havlak6" {
			t.Errorf("seen %+v, want havlak6 last at %v", s, day0)
		}
	}
}

// A database made before alerts (schema version 1) opens: Open adds their
// tables, keeps everything else, and it takes alerts.
func checkMigration(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	ingest(t, d, night{commit: "c1", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(t.TempDir(), "r")))
	// What version 1 was: these tables and this version.
	for _, stmt := range append(before6, "DROP TABLE series", "DROP TABLE alert_changes", "DROP TABLE alerts", "UPDATE history_meta SET value = '1' WHERE key = 'schema_version'") {
		if _, err := d.db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	old, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("opening a version 1 database: %v", err)
	}
	defer old.Close()
	var version string
	if err := old.db.QueryRowContext(ctx, old.q(selectMeta), "schema_version").Scan(&version); err != nil || version != strconv.Itoa(schemaVersion) {
		t.Errorf("schema version %q (%v), want %d", version, err, schemaVersion)
	}
	if n, err := old.Count(ctx); n != 1 || err != nil {
		t.Errorf("the migrated database has %d results (%v), want its 1", n, err)
	}
	night1, f := regressionOn(1)
	if got, err := old.RecordAlerts(ctx, night1, []alert.Finding{f}, nil); err != nil || len(got) != 1 {
		t.Errorf("an alert in the migrated database: %+v, %v", got, err)
	}
	if _, err := Create(ctx, dsn, Shared); err != nil {
		t.Errorf("Create on the migrated database: %v", err)
	}
}

// Two people triaging one alert at once, each through a connection of
// their own: the changes are one after the other, each judged on what the
// other left, and the record has every change that was made, in order,
// and nothing of one that was refused.
func checkConcurrentTriage(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	night1, f := regressionOn(1)
	if _, err := d.RecordAlerts(ctx, night1, []alert.Finding{f}, nil); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	at := night1.Time.Add(time.Hour)
	race := func(seen int, a, b alert.Change) (errs [2]error) {
		done := make(chan struct{})
		go func() {
			_, errs[1] = other.ChangeAlertSeen(ctx, 1, seen, b)
			close(done)
		}()
		_, errs[0] = d.ChangeAlertSeen(ctx, 1, seen, a)
		<-done
		return errs
	}
	// Accepting and ignoring at once: ignored then accepted is allowed,
	// accepted then ignored is not.
	accept := alert.Change{State: alert.Accepted, By: "ann", At: at, Note: "intended"}
	ignore := alert.Change{State: alert.Ignored, By: "bob", At: at, Note: "noise"}
	errs := race(-1, accept, ignore)
	got, err := d.Alert(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case errs[0] == nil && errs[1] == nil:
		if len(got.Changes) != 3 || got.Changes[1].By != "bob" || got.State() != alert.Accepted {
			t.Errorf("both changes made: %+v, want new, ignored by bob, accepted by ann", got.Changes)
		}
	case errs[0] == nil && errors.Is(errs[1], alert.ErrState):
		if len(got.Changes) != 2 || got.State() != alert.Accepted || got.Changes[1].By != "ann" {
			t.Errorf("ignoring refused: %+v, want new, accepted by ann", got.Changes)
		}
	default:
		t.Fatalf("accept and ignore at once: %v; %v", errs[0], errs[1])
	}
	// Each saw the alert as it is now and asks for another state: one is
	// made, the other refused, the record has the one.
	seen := len(got.Changes)
	reopen := alert.Change{State: alert.New, By: "ann", At: at.Add(time.Minute), Note: "not intended after all"}
	reopen2 := alert.Change{State: alert.New, By: "bob", At: at.Add(time.Minute), Note: "me too"}
	errs = race(seen, reopen, reopen2)
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two changes of what each saw: %v; %v, want one made and one refused", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && (!errors.Is(err, ErrAlertChanged) || !strings.Contains(err.Error(), "it is new now")) {
			t.Errorf("the refused change: %v, want ErrAlertChanged saying it is new now", err)
		}
	}
	if got, err = d.Alert(ctx, 1); err != nil || len(got.Changes) != seen+1 || got.State() != alert.New {
		t.Errorf("after the race: %+v, %v; want one more change, new", got.Changes, err)
	}
}
