package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A database another process is writing can be read meanwhile (the
// write-ahead log); a write waits for it, then is reported as busy; a
// file another process holds for itself alone is waited for, then
// reported as busy, not as "not a results database".
func TestBusySQLite(t *testing.T) {
	defer func(old time.Duration) { busyTimeout = old }(busyTimeout)
	busyTimeout = 200 * time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	create(t, "sqlite:"+path, Personal).Close()
	results := t.TempDir()
	one := night{commit: "c1", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(results, "one"))

	other := func() (*sql.DB, *sql.Conn) {
		writer, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { writer.Close() })
		conn, err := writer.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return writer, conn
	}
	writer, conn := other()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO history_meta (key, value) VALUES ('other', 'writing')"); err != nil {
		t.Fatal(err)
	}
	d, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatalf("Open while another process writes: %v, want it read", err)
	}
	defer d.Close()
	if n, err := d.Count(ctx); err != nil || n != 0 {
		t.Errorf("Count while another process writes: %d, %v; want 0", n, err)
	}
	if _, err := d.Ingest(ctx, one); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "waited 200ms") {
		t.Errorf("Ingest while another process writes: %v, want it busy", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if in, err := d.Ingest(ctx, one); err != nil || !in.Added {
		t.Errorf("Ingest once the other is done: %+v, %v", in, err)
	}
	d.Close()
	conn.Close()
	writer.Close()

	// The other holds the file for itself alone (a program that is not the
	// lab's, say): neither read nor write gets in.
	_, alone := other()
	if _, err := alone.ExecContext(ctx, "PRAGMA locking_mode=EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	if _, err := alone.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	if _, err := alone.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, "sqlite:"+path)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "waited 200ms") {
		t.Errorf("Open while another process holds the file: %v, want it busy", err)
	}
}

// A database file damaged in its middle is refused for writing, before
// anything is added to it.
func TestCorruptSQLiteIsNotWritten(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	d := create(t, "sqlite:"+path, Personal)
	results := t.TempDir()
	for i := range 20 {
		ingest(t, d, night{commit: fmt.Sprintf("c%d", i), started: day0.Add(time.Duration(i) * time.Hour),
			real: []float64{1, 2, 3}, instrs: []float64{1, 2}, origin: nightly}.write(t, filepath.Join(results, fmt.Sprint(i))))
	}
	d.Close()
	// The damage comes after the check's record: a write from outside.
	if _, err := os.Stat(path + checkedSuffix); err != nil {
		t.Fatalf("no record of the check: %v", err)
	}
	damage(t, path)

	d, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatalf("the damaged database does not even open: %v", err)
	}
	defer d.Close()
	next := night{commit: "c99", started: day0.Add(99 * time.Hour), real: []float64{1}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(results, "99"))
	if _, err := d.Ingest(ctx, next); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "quick_check") {
		t.Errorf("Ingest into a damaged database: %v, want it refused", err)
	}
}

// damage overwrites a page in the middle of the SQLite file at path: rows
// of the results' tables, not the first pages that say what the file is.
func damage(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := info.Size() / page
	if pages < 6 {
		t.Fatalf("the database has %d pages: too few to damage one in the middle", pages)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xde\xad", page/2)), (pages-2)*page); err != nil {
		t.Fatal(err)
	}
}

// The integrity check runs once per file as the lab's writers leave it:
// a process whose file is as the last checked writer left it does not
// read it all again; a file written since by anything else, or checked
// too long ago, is checked, and refused when damaged.
func TestIntegrityCheckedOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	results := t.TempDir()
	d := create(t, "sqlite:"+path, Personal)
	nights := 0
	ingestNight := func(d *DB) error {
		nights++
		_, err := d.Ingest(ctx, night{commit: fmt.Sprintf("c%d", nights), started: day0.Add(time.Duration(nights) * time.Hour),
			real: []float64{1, 2}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(results, fmt.Sprint(nights))))
		return err
	}
	record := func() checkRecord {
		t.Helper()
		data, err := os.ReadFile(path + checkedSuffix)
		if err != nil {
			t.Fatal(err)
		}
		var r checkRecord
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := ingestNight(d); err != nil {
		t.Fatal(err)
	}
	d.Close()
	first := record()
	if time.Since(time.Unix(0, first.CheckedNS)) > time.Minute {
		t.Fatalf("the check's record: %+v, want it checked now", first)
	}
	// Untouched since: the next process writes on that check.
	d, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ingestNight(d); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if again := record(); again.CheckedNS != first.CheckedNS || again.Stamp == first.Stamp {
		t.Errorf("after a write on the recorded check: %+v, want the check of %d and the file's new stamp", again, first.CheckedNS)
	}
	// A check older than integrityRecheck runs again.
	old := record()
	old.CheckedNS = time.Now().Add(-integrityRecheck - time.Hour).UnixNano()
	writeRecord := func(r checkRecord) {
		data, _ := json.Marshal(r)
		if err := os.WriteFile(path+checkedSuffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeRecord(old)
	d, err = Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ingestNight(d); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if r := record(); time.Since(time.Unix(0, r.CheckedNS)) > time.Minute {
		t.Errorf("after a check older than %s: %+v, want it checked now", integrityRecheck, r)
	}
	// Damage that leaves the recorded stamp (a forged record, or a disk's
	// decay, which no stamp shows) is found once the check is due.
	damage(t, path)
	stamp, ok := stampOf(path)
	if !ok {
		t.Fatal("no stamp of the database")
	}
	writeRecord(checkRecord{Stamp: stamp, CheckedNS: time.Now().Add(-integrityRecheck).UnixNano()})
	d, err = Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := ingestNight(d); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Ingest into a damaged database whose check is due: %v, want it refused", err)
	}
}
