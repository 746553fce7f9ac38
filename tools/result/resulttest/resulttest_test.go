package resulttest

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"havlak-lab/tools/result"
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

// The made-up results are valid, and have every declared figure of their
// kind.
func TestDeclared(t *testing.T) {
	for _, kind := range []string{result.KindProgram, result.KindServer} {
		r := Declared(kind)
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		figures, err := result.Figures(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range result.Declarations(kind) {
			if !slices.ContainsFunc(figures, func(f result.Figure) bool { return f.Name == d.Name && len(f.Values) == 5 }) {
				t.Errorf("%s: no %s of five values: record its field in Declared", kind, d.Name)
			}
		}
	}
}
