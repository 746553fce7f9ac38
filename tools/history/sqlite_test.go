package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A database another process is writing is waited for, then reported as
// busy, not as "not a results database".
func TestBusySQLite(t *testing.T) {
	defer func(old time.Duration) { busyTimeout = old }(busyTimeout)
	busyTimeout = 200 * time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	create(t, "sqlite:"+path, Personal)
	results := t.TempDir()
	one := night{commit: "c1", started: day0, real: []float64{1}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(results, "one"))

	writer, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	conn, err := writer.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Another ingest holds the write lock: an exclusive one keeps readers
	// out too, as a long write's journal does at its end.
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, "sqlite:"+path)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "waited 200ms") {
		t.Errorf("Open while another process writes: %v, want it busy", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	d, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Ingest(ctx, one); !errors.Is(err, ErrBusy) {
		t.Errorf("Ingest while another process writes: %v, want it busy", err)
	}
	conn.ExecContext(ctx, "ROLLBACK")
	if in, err := d.Ingest(ctx, one); err != nil || !in.Added {
		t.Errorf("Ingest once the other is done: %+v, %v", in, err)
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
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite a page in the middle of the file: rows of the results'
	// tables, not the first pages that say what the file is.
	const page = 4096
	pages := info.Size() / page
	if pages < 6 {
		t.Fatalf("the database has %d pages: too few to damage one in the middle", pages)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xde\xad", page/2)), (pages-2)*page); err != nil {
		t.Fatal(err)
	}
	f.Close()

	d, err = Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatalf("the damaged database does not even open: %v", err)
	}
	defer d.Close()
	next := night{commit: "c99", started: day0.Add(99 * time.Hour), real: []float64{1}, instrs: []float64{1}, origin: nightly}.write(t, filepath.Join(results, "99"))
	if _, err := d.Ingest(ctx, next); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "quick_check") {
		t.Errorf("Ingest into a damaged database: %v, want it refused", err)
	}
}
