package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/history"
	"havlak-lab/tools/history/historytest"
)

// prune --dry-run says which nights it would remove and removes nothing;
// prune removes them, and only them.
func TestPrune(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dsn := history.DirDSN(dir)
	db, err := history.Create(ctx, dsn, history.Shared)
	if err != nil {
		t.Fatal(err)
	}
	spec := historytest.Spec{Benchmarks: 1, Figures: 6, Nights: 4, Runs: 1, Trusted: true}
	for n := range 3 {
		if _, err := historytest.ArchiveNight(ctx, db, dir, spec, n, n == 0); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	recordOnly, err := historytest.RecordNight(dir, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	// A name from anywhere: printed escaped.
	mine := filepath.Join(dir, history.NightsDir, "my\nnotes")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	// Nights 0 to 2 keep their results; night 3, its record alone, is
	// the newest, kept with --keep-nights 1.
	out, errs, status := runHistory(t, "prune", dsn, "--history-dir", dir, "--keep-nights", "1", "--dry-run", "-v")
	if status != 0 || strings.Contains(out, "would remove 2") || !strings.Contains(out, "would keep 4 and remove 0") ||
		!strings.Contains(out, `left my\nnotes: not named as a night`) || !strings.Contains(out, "keep "+filepath.Base(recordOnly)+": the newest night\n") ||
		!strings.Contains(out, "keep "+filepath.Base(historytest.NightDir(dir, 0))+": results of the history were ingested from it; the baseline was promoted from it") {
		t.Errorf("prune --dry-run -v: status %d\n%s%s", status, out, errs)
	}
	// With --max-age-days, the results of long ago no longer keep their
	// nights: nights 1 and 2 go, the baseline's stays.
	old := []string{filepath.Base(historytest.NightDir(dir, 1)), filepath.Base(historytest.NightDir(dir, 2))}
	out, errs, status = runHistory(t, "prune", dsn, "--history-dir", dir, "--keep-nights", "1", "--max-age-days", "30", "--dry-run")
	if status != 0 || !strings.Contains(out, "would remove "+old[0]+"\nwould remove "+old[1]+"\n") ||
		!strings.Contains(out, "4 nights; would keep 2 and remove 2 (dry run: nothing removed)") {
		t.Errorf("prune --dry-run --max-age-days 30: status %d\n%s%s", status, out, errs)
	}
	for _, night := range []string{historytest.NightDir(dir, 1), historytest.NightDir(dir, 2)} {
		if _, err := os.Stat(night); err != nil {
			t.Errorf("the dry run removed %s: %v", night, err)
		}
	}
	out, errs, status = runHistory(t, "prune", dsn, "--history-dir", dir, "--keep-nights", "1", "--max-age-days", "30")
	if status != 0 || !strings.Contains(out, "removed "+old[0]+"\nremoved "+old[1]+"\n") || !strings.Contains(out, "kept 2, removed 2") {
		t.Errorf("prune --max-age-days 30: status %d\n%s%s", status, out, errs)
	}
	for _, gone := range []string{historytest.NightDir(dir, 1), historytest.NightDir(dir, 2)} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s after the prune: %v, want it removed", gone, err)
		}
	}
	for _, kept := range []string{historytest.NightDir(dir, 0), recordOnly, mine} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s after the prune: %v, want it kept", kept, err)
		}
	}
	if _, errs, status := runHistory(t, "prune", dsn, "--history-dir", dir, "--keep-nights", "0"); status != 2 || !strings.Contains(errs, "at least 1") {
		t.Errorf("prune --keep-nights 0: status %d, %s", status, errs)
	}
}

// backup writes the history to a file; restore makes a new database of
// it, and refuses one that holds a history without --replace.
func TestBackupRestore(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "h.db")
	writeNight(t, filepath.Join(dir, "r"), "c1", "2026-11-20T02:00:00Z", true, 1.0, 1.1)
	for _, args := range [][]string{{"init", db}, {"ingest", db, filepath.Join(dir, "r")}} {
		if out, errs, status := runHistory(t, args...); status != 0 {
			t.Fatalf("%v: status %d\n%s%s", args, status, out, errs)
		}
	}
	backup := filepath.Join(dir, "h.backup")
	if out, errs, status := runHistory(t, "backup", db, backup); status != 0 || out != backup+": backed up\n" {
		t.Fatalf("backup: status %d\n%s%s", status, out, errs)
	}
	restored := filepath.Join(dir, "restored.db")
	out, errs, status := runHistory(t, "restore", restored, backup)
	if status != 0 || out != restored+": restored from "+backup+": 1 results, 0 alerts\n" {
		t.Errorf("restore: status %d\n%s%s", status, out, errs)
	}
	if out, errs, status = runHistory(t, "series", restored, "--figure", "real_seconds"); status != 0 || !strings.Contains(out, "havlak6 real_seconds") {
		t.Errorf("series of the restored history: status %d\n%s%s", status, out, errs)
	}
	if _, errs, status = runHistory(t, "restore", restored, backup); status != 1 || !strings.Contains(errs, "refused, nothing changed") {
		t.Errorf("restore over a history: status %d, %s", status, errs)
	}
	if _, errs, status = runHistory(t, "restore", restored, backup, "--replace"); status != 0 {
		t.Errorf("restore --replace: status %d, %s", status, errs)
	}
}
