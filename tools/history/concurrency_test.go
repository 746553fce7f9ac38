package history

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"havlak-lab/tools/alert"
)

// Nights ingested while the dashboard writes the same history (users
// added and signed in, an alert assigned and triaged), each through its
// own connection as the nightly gate and the dashboard have: nothing
// lost (every night whole, every user, session and alert change there),
// nothing half-written (each night's figures all there, none of a
// night not reported added), nothing misreported (every write that said
// it was made is there, and none that said it failed). The row's
// figures are logged for docs/records/faults.md ("fault matrix:").
func checkIngestBesideDashboard(t *testing.T, dsn string) {
	engine := "PostgreSQL"
	if strings.HasPrefix(dsn, "sqlite:") {
		engine = "SQLite"
	}
	ctx := context.Background()
	const trials = 12
	d := create(t, dsn, Shared)
	first, f := regressionOn(1)
	if _, err := d.RecordAlerts(ctx, first, []alert.Finding{f}, nil); err != nil {
		t.Fatal(err)
	}
	dashboard, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dashboard.Close()
	// One night alone, ingested into a history of its own, is what each
	// night must add: its rows of every table.
	one := create(t, "sqlite:"+filepath.Join(t.TempDir(), "one.db"), Shared)
	results := t.TempDir()
	nightAt := func(i int) string {
		return night{commit: fmt.Sprintf("c%02d", i), started: day0.Add(time.Duration(i) * time.Hour), real: []float64{1, 1.1},
			instrs: []float64{float64(100 + i)}, origin: nightly}.write(t, filepath.Join(results, fmt.Sprint(i)))
	}
	ingest(t, one, nightAt(0))
	perNight := rowCounts(t, one)

	var wg sync.WaitGroup
	var ingestErrs, dashErrs []error
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range trials {
			if in, err := d.Ingest(ctx, nightAt(i+1)); err != nil || !in.Added {
				ingestErrs = append(ingestErrs, fmt.Errorf("night %d: %+v, %v", i+1, in, err))
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range trials {
			token, err := dashboard.AddUser(ctx, fmt.Sprintf("user%02d", i), "admin")
			if err == nil {
				_, _, err = dashboard.SignIn(ctx, token, time.Hour)
			}
			if err == nil {
				var a alert.Alert
				if a, err = dashboard.Alert(ctx, 1); err == nil {
					_, err = dashboard.AssignAlertSeen(ctx, 1, len(a.Changes), fmt.Sprintf("user%02d", i), "admin", first.Time.Add(time.Duration(i+1)*time.Minute))
				}
			}
			if err != nil {
				dashErrs = append(dashErrs, fmt.Errorf("trial %d: %v", i, err))
			}
		}
	}()
	wg.Wait()

	misreported := len(ingestErrs) + len(dashErrs)
	for _, err := range append(ingestErrs, dashErrs...) {
		t.Errorf("a write beside the other's said it failed: %v", err)
	}
	lost := 0
	got := rowCounts(t, d)
	for _, table := range []string{"results", "files", "figures", "figure_values"} {
		if want := perNight[table] * trials; got[table] != want {
			lost++
			t.Errorf("%s: %d rows after %d nights, want %d: a night lost or half-written", table, got[table], trials, want)
		}
	}
	users, err := d.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Alert(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != trials || got["sessions"] != trials || len(a.Changes) != 1+trials {
		lost++
		t.Errorf("after the dashboard's %d trials: %d users, %d sessions, %d changes of the alert; want %d, %d, %d",
			trials, len(users), got["sessions"], len(a.Changes), trials, trials, 1+trials)
	}
	t.Logf("fault matrix: ingest beside the dashboard's writes (%s): trials %d (a night ingested; a user added, signed in and assigned the alert), lost %d, misreported %d",
		engine, trials, lost, misreported)
}

// rowCounts counts the rows of each of the history's tables, and its
// sessions.
func rowCounts(t *testing.T, d *DB) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, table := range append(tables, "users", "sessions") {
		var n int
		if err := d.db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts[table] = n
	}
	return counts
}
