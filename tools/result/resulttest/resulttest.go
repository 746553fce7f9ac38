// Package resulttest makes, for tests, results as the lab's jobs leave
// them.
package resulttest

import (
	"os"
	"path/filepath"
	"testing"

	"havlak-lab/tools/result"
)

// ZipDir zips the files under dir into path, making path's directory, as
// Bazel makes outputs.zip, and returns path.
func ZipDir(tb testing.TB, dir, path string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := result.WriteZip(dir, path); err != nil {
		tb.Fatal(err)
	}
	return path
}
