package historytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Cached returns the path of an SQLite history filled with s (Fill), made
// the first time under the system's temporary directory (its name says
// the generator's Version and s) and reused by later runs, which must only
// read it. Remove it with os.Remove when done with it for good.
func Cached(tb testing.TB, s Spec) string {
	tb.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("havlak-lab-history-v%d-%db%df%dn%dr%da.sqlite",
		Version, s.Benchmarks, s.Figures, s.Nights, s.Runs, s.Alerts))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	// Made beside it and renamed: a run that dies midway leaves no
	// half-filled history under its name.
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		tb.Fatal(err)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	defer os.Remove(tmp.Name())
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
