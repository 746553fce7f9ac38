package resulttest

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Every file under the directory is in the zip by its relative name,
// with its content; directories are not entries.
func TestZipDir(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"result.json": "{}", "cpu.pprof": "p", "stages/a/b.txt": "deep"}
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := ZipDir(t, dir, filepath.Join(t.TempDir(), "night", "x_test", "outputs.zip"))
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	got := map[string]string{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		got[f.Name] = string(data)
	}
	if len(got) != len(files) {
		t.Errorf("entries %v, want %v", got, files)
	}
	for name, data := range files {
		if got[name] != data {
			t.Errorf("entry %s: %q, want %q", name, got[name], data)
		}
	}
}
