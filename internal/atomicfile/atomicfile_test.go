package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("before Commit the path holds %q, want the old content", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // a no-op now
	assertWritten(t, path, "new", 0o644)
	assertOnly(t, dir, "out.txt")
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	assertOnly(t, dir)
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
}

func TestCreateInMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	_, err := Create(path)
	if err == nil || !strings.Contains(err.Error(), "create "+path+": no such file") {
		t.Errorf("error %v, want one naming %s", err, path)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	assertWritten(t, path, "new", 0o600)
	assertOnly(t, dir, "out.txt")
}

func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	rename = func(string, string) error { return errors.New("disk on fire") }
	defer func() { rename = os.Rename }()
	err := WriteFile(path, []byte("new"), 0o644)
	if err == nil || err.Error() != "write "+path+": disk on fire" {
		t.Errorf("error %v, want one naming %s and the cause", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the path holds %q, want the old content", got)
	}
	assertOnly(t, dir, "out.txt")
}

func TestWriteFileInMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	err := WriteFile(path, []byte("new"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "create "+path+": no such file") {
		t.Errorf("error %v, want one naming %s", err, path)
	}
}

// assertWritten checks that path holds data, with permissions perm.
func assertWritten(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if got, _ := os.ReadFile(path); string(got) != data {
		t.Errorf("%s holds %q, want %q", path, got, data)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != perm {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), perm)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}
