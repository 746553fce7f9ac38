// Package resulttest makes, for tests, results as the lab's jobs leave
// them.
package resulttest

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

// ZipDir zips the files under dir into path, making path's directory, as
// Bazel makes outputs.zip, and returns path.
func ZipDir(tb testing.TB, dir, path string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	z := zip.NewWriter(f)
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := z.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	})
	if err == nil {
		err = z.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path
}
