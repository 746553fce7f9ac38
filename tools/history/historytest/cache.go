package historytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"havlak-lab/internal/labcache"
	"havlak-lab/tools/history"
)

// Cached returns the path of an SQLite history filled with s (Fill), made
// the first time in the lab's cache directory (labcache: historytest/, its
// name says the generator's Version and s) and reused by later runs, which
// must only read it. Remove it with os.Remove when done with it for good.
func Cached(tb testing.TB, s Spec) string {
	tb.Helper()
	dir, err := labcache.Dir("historytest")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	trust := ""
	if s.Trusted {
		trust = "t"
	}
	path := filepath.Join(dir, fmt.Sprintf("history-v%d-%db%df%dn%dr%da%s.sqlite",
		Version, s.Benchmarks, s.Figures, s.Nights, s.Runs, s.Alerts, trust))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	// Made beside it and renamed: a run that dies midway leaves no
	// half-filled history under its name.
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		tb.Fatal(err)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	defer os.Remove(tmp.Name())
	// The record of its integrity check is of the name it was made under.
	defer os.Remove(history.CheckRecord(tmp.Name()))
	start := time.Now()
	if err := Fill(context.Background(), tmp.Name(), s); err != nil {
		tb.Fatalf("generating %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("generated %s (%d results, %d points, %d alerts) in %s", path, s.Results(), s.Points(), s.Alerts,
		time.Since(start).Round(time.Second))
	return path
}
