package result

import (
	"os"
	"path/filepath"
	"testing"
)

// zipDir is resulttest.ZipDir, which this package's own tests cannot
// import: WriteZip, into a directory it makes.
func zipDir(tb testing.TB, dir, path string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := WriteZip(dir, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestWriteZipIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"out/a.txt": "a", "out/sub/b.txt": "bb"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zip := zipDir(t, filepath.Join(dir, "out"), filepath.Join(dir, "z", ZipName))
	out, err := Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if b, err := out.ReadFile("sub/b.txt"); err != nil || string(b) != "bb" {
		t.Errorf("sub/b.txt: %q, %v", b, err)
	}
	// An unreadable directory: no zip at all, not half of one.
	bad := filepath.Join(dir, "bad.zip")
	if err := WriteZip(filepath.Join(dir, "absent"), bad); err == nil {
		t.Error("a zip of a missing directory: no error")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("%s after a failed WriteZip: %v, want none", bad, err)
	}
}
