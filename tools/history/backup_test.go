package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/history/pgtest"
)

// password is what withPassword puts in a PostgreSQL DSN: no message may
// show it.
const password = "s3cret-pw"

// withPassword is dsn with a password, for a PostgreSQL one (the test's
// server trusts its clients, and never asks for it).
func withPassword(dsn string) string {
	return strings.Replace(dsn, "postgres://postgres@", "postgres://postgres:"+password+"@", 1)
}

// A history with series and alerts, backed up, restores into a fresh
// database as the same series and alerts, as the history reads them; a
// restore over a database that holds one is refused unless told, and
// then replaces it; what is no backup is refused and changes nothing.
func checkBackupRestore(t *testing.T, newDSN func(t *testing.T) string) {
	ctx := context.Background()
	src, dst := withPassword(newDSN(t)), withPassword(newDSN(t))
	d := create(t, src, Shared)
	results := t.TempDir()
	for i, commit := range []string{"c1", "c2", "c3"} {
		ingest(t, d, night{commit: commit, started: day0.AddDate(0, 0, i), real: []float64{1, 1.1 + float64(i)}, instrs: []float64{100 + float64(i)},
			origin: nightly}.write(t, filepath.Join(results, commit)))
	}
	night1, f := regressionOn(1)
	if _, err := d.RecordAlerts(ctx, night1, []alert.Finding{f}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ChangeAlert(ctx, 1, alert.Change{State: alert.Acknowledged, By: "ann", At: night1.Time.Add(time.Hour), Note: "looking"}); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "history.backup")
	tools := pgtest.Bin()
	if err := Backup(ctx, src, out, BackupOptions{PostgresBin: tools}); err != nil {
		t.Fatal(err)
	}
	restored, err := Restore(ctx, dst, out, RestoreOptions{PostgresBin: tools})
	if err != nil {
		t.Fatal(err)
	}
	if restored.Results != 3 || restored.Alerts != 1 || strings.Contains(restored.Name, password) {
		t.Errorf("Restore = %+v, want 3 results and 1 alert, and a name without the password", restored)
	}
	r, err := Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	sameHistory(t, d, r)
	before, name := dump(t, r), r.Name()
	// Closed, as a database is when nothing uses it.
	r.Close()

	// Over a history, only when told.
	_, err = Restore(ctx, dst, out, RestoreOptions{PostgresBin: tools})
	if err == nil || !strings.Contains(err.Error(), "holds") || !strings.Contains(err.Error(), "refused, nothing changed") ||
		!strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), password) {
		t.Errorf("Restore over a history: %v, want it refused, naming the backup and the DSN without its password", err)
	}
	if r, err = Open(ctx, dst); err != nil {
		t.Fatal(err)
	}
	if dump(t, r) != before {
		t.Error("the refused restore changed the database")
	}
	r.Close()
	notBackup := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notBackup, []byte("not a backup"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, dst, notBackup, RestoreOptions{PostgresBin: tools, Replace: true}); err == nil ||
		!strings.Contains(err.Error(), notBackup) || !strings.Contains(err.Error(), "not ") {
		t.Errorf("restoring a text file: %v, want it refused, naming it", err)
	}
	if r, err = Open(ctx, dst); err != nil {
		t.Fatal(err)
	}
	if dump(t, r) != before {
		t.Error("restoring what is no backup changed the database")
	}
	r.Close()

	// The next backup replaces the last whole, and the restore with
	// Replace replaces the history.
	ingest(t, d, night{commit: "c4", started: day0.AddDate(0, 0, 3), real: []float64{2}, instrs: []float64{104}, origin: nightly}.
		write(t, filepath.Join(results, "c4")))
	if err := Backup(ctx, src, out, BackupOptions{PostgresBin: tools}); err != nil {
		t.Fatal(err)
	}
	if restored, err = Restore(ctx, dst, out, RestoreOptions{PostgresBin: tools, Replace: true}); err != nil || restored.Results != 4 {
		t.Fatalf("Restore --replace = %+v, %v; want the 4 results", restored, err)
	}
	if r, err = Open(ctx, dst); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sameHistory(t, d, r)
	if entries, err := os.ReadDir(filepath.Dir(out)); err != nil || len(entries) != 1 {
		t.Errorf("beside the backup: %v (%v), want the backup alone", entries, err)
	}
}

// sameHistory checks that the history got holds what want does: every
// series with its points, every alert with its changes, and every row.
func sameHistory(t *testing.T, want, got *DB) {
	t.Helper()
	ctx := context.Background()
	wantSeries, err := want.Series(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	gotSeries, err := got.Series(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(wantSeries) == 0 || !reflect.DeepEqual(gotSeries, wantSeries) {
		t.Errorf("restored series:\n%+v\nwant\n%+v", gotSeries, wantSeries)
	}
	wantAlerts, err := want.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotAlerts, err := got.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantAlerts) == 0 || !reflect.DeepEqual(gotAlerts, wantAlerts) {
		t.Errorf("restored alerts:\n%+v\nwant\n%+v", gotAlerts, wantAlerts)
	}
	if dump(t, got) != dump(t, want) {
		t.Errorf("the restored tables differ:\n%s\nwant\n%s", dump(t, got), dump(t, want))
	}
}

// A backup of the other engine's is refused, naming what it is.
func TestRestoreRefusesTheOtherEngine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dump := filepath.Join(dir, "pg.dump")
	if err := os.WriteFile(dump, []byte(pgDumpMagic+"\x01\x0e"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Restore(ctx, "sqlite:"+filepath.Join(dir, "h.db"), dump, RestoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "pg_dump's archive of a PostgreSQL history") {
		t.Errorf("restoring pg_dump's archive into SQLite: %v", err)
	}
	sqliteFile := filepath.Join(dir, "backup.sqlite")
	create(t, "sqlite:"+sqliteFile, Shared).Close()
	_, err = Restore(ctx, "postgres://nobody@127.0.0.1:1/none", sqliteFile, RestoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "an SQLite history's backup") {
		t.Errorf("restoring an SQLite file into PostgreSQL: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "h.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused restore made the database: %v", err)
	}
}

// A damaged backup is refused before it replaces anything, and leaves
// nothing beside the database; so is a restore over a database whose
// write-ahead log is there (a process has it open).
func TestRestoreSQLiteChecksFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := "sqlite:" + filepath.Join(dir, "src.db")
	d := create(t, src, Shared)
	for i := range 20 {
		ingest(t, d, night{commit: "c1", started: day0.Add(time.Duration(i) * time.Hour), real: []float64{1, 2, 3}, instrs: []float64{1, 2},
			origin: nightly}.write(t, filepath.Join(t.TempDir(), "r")))
	}
	backup := filepath.Join(dir, "backup.sqlite")
	if err := Backup(ctx, src, backup, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "history.db")
	old := create(t, "sqlite:"+target, Personal)
	old.Close()
	was, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	damage(t, backup)
	_, err = Restore(ctx, "sqlite:"+target, backup, RestoreOptions{Replace: true})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the backup "+backup) {
		t.Errorf("restoring a damaged backup: %v, want ErrCorrupt naming the backup", err)
	}
	if now, err := os.ReadFile(target); err != nil || string(now) != string(was) {
		t.Errorf("the refused restore changed the database (%v)", err)
	}
	entries, err := os.ReadDir(filepath.Dir(target))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "history.db" && e.Name() != "history.db"+checkedSuffix {
			t.Errorf("the refused restore left %s", e.Name())
		}
	}

	if err := Backup(ctx, src, backup, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	open, err := Open(ctx, "sqlite:"+target)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if _, err := open.Count(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, "sqlite:"+target, backup, RestoreOptions{Replace: true}); err == nil || !strings.Contains(err.Error(), "-wal is there") {
		t.Errorf("restoring over a database in use: %v, want it refused", err)
	}
}
