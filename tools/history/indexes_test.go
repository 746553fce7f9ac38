package history

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/result"
)

// indexes lists the indexes of version 4 that d has.
func indexes(t *testing.T, d *DB) []string {
	t.Helper()
	list := `SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'results_by_%' ORDER BY name`
	if d.postgres {
		list = `SELECT indexname FROM pg_indexes WHERE indexname LIKE 'results_by_%' ORDER BY indexname`
	}
	rows, err := d.db.QueryContext(context.Background(), list)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// before7 makes a database of schema version 7 what version 6 was: no
// assignee of the alerts' changes; before6 makes it what version 5 was: no
// identity's columns either, no index of them (the version too is for the
// caller to set). before8 makes a database of schema version 8 what
// version 7 was: no kind of series.
var (
	before8 = []string{"ALTER TABLE series DROP COLUMN kind"}
	before7 = []string{"ALTER TABLE alert_changes DROP COLUMN assignee"}
	before6 = append(slices.Clone(before7),
		"DROP INDEX results_by_identity",
		"ALTER TABLE results DROP COLUMN run_sha256",
		"ALTER TABLE results DROP COLUMN binary_sha256",
	)
)

// A database of schema version 7 (no kind of series), one of version 6
// (no assignee of the alerts' changes either), one of version 5 (no
// identity's columns either), one of version 4
// (no index of a night's results either), one of version 3 (no indexes of
// the dashboard's reads either, no table of series), and one of version 1,
// open with the indexes, the series filled from their figures, the
// identities from their results (batches of them: more than
// identityBatch), their results and series as they were.
func checkMigrationToIndexes(t *testing.T, dsn string) {
	ctx := context.Background()
	want := []string{"results_by_benchmark", "results_by_commit", "results_by_identity", "results_by_series", "results_by_started"}
	d := create(t, dsn, Shared)
	if got := indexes(t, d); !slices.Equal(got, want) {
		t.Errorf("a new database's indexes: %v, want %v", got, want)
	}
	a := &result.Identity{BinarySHA256: strings.Repeat("a", 64), RunSHA256: strings.Repeat("1", 64), LabSHA256: strings.Repeat("2", 64)}
	dir := t.TempDir()
	ingest(t, d, night{commit: "c0ffee12", started: day0, real: []float64{1, 2}, instrs: []float64{3}, origin: nightly, identity: a}.write(t, filepath.Join(dir, "r")))
	// More results than a batch of fillIdentity, of another benchmark, of
	// the identity but the oldest (none: an older result), a month before.
	for i := 1; i <= identityBatch; i++ {
		n := night{commit: "ba5eba11", benchmark: "havlak7", started: day0.Add(-30*24*time.Hour - time.Duration(i)*time.Hour),
			real: []float64{1}, instrs: []float64{float64(i)}, origin: nightly, identity: a}
		if i == identityBatch {
			n.identity = nil
		}
		ingest(t, d, n.write(t, filepath.Join(dir, fmt.Sprint(i))))
	}
	identities := func(d *DB) map[string]int {
		rows, err := d.db.QueryContext(ctx, `SELECT binary_sha256, run_sha256 FROM results`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := map[string]int{}
		for rows.Next() {
			var binary, run string
			if err := rows.Scan(&binary, &run); err != nil {
				t.Fatal(err)
			}
			n[binary+"/"+run]++
		}
		return n
	}
	written := identities(d)
	if written[a.BinarySHA256+"/"+a.RunSHA256] != identityBatch || written["/"] != 1 {
		t.Errorf("ingest wrote the identities %v, want %d of a and 1 of none", written, identityBatch)
	}
	for _, version := range []string{"7", "6", "5", "4", "3", "1"} {
		stmts := slices.Clone(before8)
		switch version {
		case "7":
		case "6":
			stmts = append(stmts, before7...)
		default:
			stmts = append(stmts, before6...)
		}
		if version != "7" && version != "6" && version != "5" {
			stmts = append(stmts, "DROP INDEX results_by_started")
		}
		if version != "7" && version != "6" && version != "5" && version != "4" {
			stmts = append(stmts, "DROP INDEX results_by_series", "DROP INDEX results_by_commit", "DROP TABLE series")
		}
		if version == "1" {
			stmts = append(stmts, "DROP TABLE sessions", "DROP TABLE users", "DROP TABLE alert_changes", "DROP TABLE alerts")
		}
		stmts = append(stmts, "UPDATE history_meta SET value = '"+version+"' WHERE key = 'schema_version'")
		for _, stmt := range stmts {
			if _, err := d.db.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		d.Close()
		var err error
		if d, err = Open(ctx, dsn); err != nil {
			t.Fatalf("opening a version %s database: %v", version, err)
		}
		if got := indexes(t, d); !slices.Equal(got, want) {
			t.Errorf("version %s migrated: indexes %v, want %v", version, got, want)
		}
		if got := identities(d); !maps.Equal(got, written) {
			t.Errorf("version %s migrated: identities %v, want %v", version, got, written)
		}
		env := night{}.result().Environment
		q := RecentQuery{Benchmark: "havlak7", Workload: result.WorkloadStandard, EnvKey: result.EnvironmentKey(env), Identity: *a, N: 2}
		if got, err := d.Recent(ctx, q); err != nil || got.Results != 2 {
			t.Errorf("version %s migrated: the recent results of a: %+v, %v; want 2", version, got, err)
		}
		if series, err := d.Series(ctx, Query{Benchmark: "havlak6", Figure: "real_seconds"}); err != nil || len(series) != 1 || len(series[0].Points) != 1 {
			t.Errorf("version %s migrated: series %+v, %v", version, series, err)
		}
		if seen, _, err := d.Seen(ctx); err != nil || !slices.ContainsFunc(seen, func(s alert.Seen) bool {
			return s.Benchmark == "havlak6" && s.Figure == "real_seconds" && s.Last.Equal(day0)
		}) {
			t.Errorf("version %s migrated: the series seen lack havlak6's real time at %s: %+v, %v", version, day0, seen, err)
		}
		if got, err := d.Results(ctx, ResultQuery{}.Night(day0), 10); len(got) != 1 || err != nil {
			t.Errorf("version %s migrated: the night of %s: %d results, %v; want 1", version, day0, len(got), err)
		}
		// A commit by its prefix, long and short, in either case.
		for _, prefix := range []string{"c0ffee12", "c0ffee1", "C0FFEE1", "c0f"} {
			want := 1
			if d.postgres && strings.ToLower(prefix) != prefix {
				want = 0 // PostgreSQL's LIKE minds case, as before version 4
			}
			if got, err := d.Results(ctx, ResultQuery{Commit: prefix}, 10); len(got) != want || err != nil {
				t.Errorf("version %s migrated: commit %s: %d results, %v; want %d", version, prefix, len(got), err, want)
			}
		}
	}
	// A series' newest point stays the newest when an older result comes
	// in after it, and moves with a newer one.
	for _, c := range []struct {
		started, last time.Time
	}{{day0.Add(-24 * time.Hour), day0}, {day0.Add(24 * time.Hour), day0.Add(24 * time.Hour)}} {
		ingest(t, d, night{commit: "c0ffee34", started: c.started, real: []float64{1}, instrs: []float64{3}, origin: nightly}.write(t, filepath.Join(t.TempDir(), "r")))
		seen, _, err := d.Seen(ctx)
		if err != nil || !slices.ContainsFunc(seen, func(s alert.Seen) bool {
			return s.Benchmark == "havlak6" && s.Figure == "real_seconds" && s.Last.Equal(c.last)
		}) {
			t.Errorf("after a result of %s: the series seen lack havlak6's real time at %s: %+v, %v", c.started, c.last, seen, err)
		}
	}
	d.Close()
}

// On SQLite, a series and a commit's results are read through the
// indexes, not by a scan of every figure or result.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	d := create(t, "sqlite:"+filepath.Join(t.TempDir(), "history.db"), Personal)
	defer d.Close()
	plan := func(query string, args ...any) string {
		rows, err := d.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, detail)
		}
		return strings.Join(lines, "; ")
	}
	cond, args := where("r.benchmark", "b", "f.name", "m", "r.workload", "quick", "r.env_key", "k")
	if p := plan(selectSeries+cond+orderSeries, args...); !strings.Contains(p, "USING INDEX results_by_series") {
		t.Errorf("the series' plan: %s", p)
	}
	// The newest points of a series: the cut and the read through the
	// series' index, the figures and values looked up by their keys.
	cond, args, err := newest(Query{Benchmark: "b", Figure: "m", Workload: "quick", EnvKey: "k", Newest: 150}, cond, args)
	if err != nil {
		t.Fatal(err)
	}
	if p := plan(selectSeries+cond+orderSeries, args...); strings.Count(p, "USING INDEX results_by_series") != 2 || strings.Contains(p, "SCAN") {
		t.Errorf("the newest points' plan: %s", p)
	}
	if p := plan(selectSeriesOf+" WHERE s.benchmark = ? AND s.workload = ? AND s.env_key = ?"+orderSeriesOf, "b", "quick", "k"); strings.Contains(p, "SCAN") {
		t.Errorf("the series' attributes' plan: %s", p)
	}
	cond, args = where("r.benchmark", "b", "r.workload", "quick", "r.env_key", "k")
	// Either index of a series' results serves it (the identity's starts
	// with the series').
	if p := plan(selectSeriesFiles+cond+orderSeriesFiles, args...); !strings.Contains(p, "USING INDEX results_by_series") && !strings.Contains(p, "USING INDEX results_by_identity") {
		t.Errorf("the series' files' plan: %s", p)
	}
	if p := plan(selectResults+" WHERE "+whereCommit+" AND "+whereCommitKey+orderResults, "c0ffee1", "c0ffee1", 10); !strings.Contains(p, "USING INDEX results_by_commit") {
		t.Errorf("a commit's results' plan: %s", p)
	}
	if p := plan(selectResults+" WHERE "+whereStarted+orderResults, 1, 2, 10); !strings.Contains(p, "USING INDEX results_by_started") {
		t.Errorf("a night's results' plan: %s", p)
	}
	// The recent results of an identity: looked up by it, and the cut by
	// the series' newest (whichever index of a series serves it).
	if p := plan(selectRecent, "b", "quick", "k", "x", "y", "b", "quick", "k", recentScan-1, 0, 10); !strings.Contains(p, "USING INDEX results_by_identity") || strings.Contains(p, "SCAN") {
		t.Errorf("the recent results' plan: %s", p)
	}
	if p := plan(selectNights); !strings.Contains(p, "USING COVERING INDEX results_by_started") {
		t.Errorf("the nights' plan: %s", p)
	}
}
