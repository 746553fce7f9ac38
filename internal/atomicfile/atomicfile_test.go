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

// A writer killed between Create and Commit leaves its temporary file: the
// next writer of the path removes it, and only it: not another file's, not
// a name that merely looks alike, not a directory.
func TestRemoveLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	killed, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	killed.Close() // never committed nor aborted
	for _, name := range []string{"out.txt", ".other.txt.tmp-123", ".out.txt.tmp-12a", ".out.txt.tmp-"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".out.txt.tmp-77"), 0o755); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveLeftovers(path)
	if err != nil || len(removed) != 1 || removed[0] != killed.Name() {
		t.Fatalf("removed %q (%v), want %s alone", removed, err, killed.Name())
	}
	assertOnly(t, dir, ".other.txt.tmp-123", ".out.txt.tmp-", ".out.txt.tmp-12a", ".out.txt.tmp-77", "out.txt")
	if removed, err := RemoveLeftovers(filepath.Join(dir, "missing", "out.txt")); err != nil || removed != nil {
		t.Errorf("in a missing directory: %q, %v", removed, err)
	}
}
