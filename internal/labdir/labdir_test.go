package labdir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }

	if s, err := Check("--out", path("new"), Report, nil); s != Absent || err != nil {
		t.Errorf("a new path: %v, %v; want Absent", s, err)
	}
	os.Mkdir(path("empty"), 0o755)
	if s, err := Check("--out", path("empty"), Report, nil); s != Empty || err != nil {
		t.Errorf("an empty directory: %v, %v; want Empty", s, err)
	}
	os.Mkdir(path("ours"), 0o755)
	os.WriteFile(path("ours/index.html"), nil, 0o644)
	if err := Mark(path("ours"), Report); err != nil {
		t.Fatal(err)
	}
	if s, err := Check("--out", path("ours"), Report, nil); s != Marked || err != nil {
		t.Errorf("a marked directory: %v, %v; want Marked", s, err)
	}
	os.Symlink(path("ours"), path("link"))
	if s, err := Check("--out", path("link"), Report, nil); s != Marked || err != nil {
		t.Errorf("a link to a marked directory: %v, %v; want Marked", s, err)
	}
	os.Mkdir(path("adoptable"), 0o755)
	os.WriteFile(path("adoptable/x"), nil, 0o644)
	if s, err := Check("--out", path("adoptable"), Report, func(string) error { return nil }); s != Adoptable || err != nil {
		t.Errorf("an adoptable directory: %v, %v; want Adoptable", s, err)
	}

	os.WriteFile(path("file"), []byte("precious"), 0o644)
	os.Mkdir(path("home"), 0o755)
	os.WriteFile(path("home/notes.txt"), []byte("precious"), 0o644)
	os.Symlink(path("nowhere"), path("dangling"))
	os.Mkdir(path("badmarker"), 0o755)
	os.Mkdir(path("badmarker/"+Marker), 0o755)
	syscall.Mkfifo(path("fifo"), 0o644)
	for name, c := range map[string]struct {
		path  string
		adopt func(string) error
		want  string
	}{
		"a file":           {path("file"), nil, "--out " + path("file") + ": not a directory but a regular file: refused, nothing written"},
		"a named pipe":     {path("fifo"), nil, "not a directory but a named pipe"},
		"a home directory": {path("home"), nil, "a directory the lab did not write (no .havlak-lab in it)"},
		"not adoptable": {path("home"), func(string) error { return errors.New("notes.txt: not a result") },
			"it is not a report: notes.txt: not a result"},
		"another kind":    {path("ours"), nil, `the lab's report directory, not a nightly-baseline one`},
		"a dangling link": {path("dangling"), nil, "a symbolic link to nothing"},
		"a bad marker":    {path("badmarker"), nil, "its .havlak-lab is unreadable"},
	} {
		kind := Report
		if name == "another kind" {
			kind = Baseline
		}
		s, err := Check("--out", c.path, kind, c.adopt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want an error saying %q", name, s, err, c.want)
		}
	}
	if data, _ := os.ReadFile(path("file")); string(data) != "precious" {
		t.Errorf("the file was changed: %q", data)
	}
	if data, _ := os.ReadFile(path("home/notes.txt")); string(data) != "precious" {
		t.Errorf("the directory was changed: %q", data)
	}
}

func TestRemoveLeftovers(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline")
	for _, name := range []string{".baseline.new-123", ".baseline.new-4.old", ".baseline.new-x", ".other.new-1", "baseline"} {
		os.MkdirAll(filepath.Join(dir, name, "t"), 0o755)
	}
	// A link of a leftover's name is removed as nothing: what it leads to
	// is not the lab's.
	os.MkdirAll(filepath.Join(dir, "kept"), 0o755)
	os.Symlink(filepath.Join(dir, "kept"), filepath.Join(dir, ".baseline.new-5"))
	// Without the lock, nothing is removed: their writers may be alive.
	if removed, err := (*Lock)(nil).RemoveLeftovers(); removed != nil || err == nil {
		t.Errorf("without the lock: removed %q, %v; want a refusal", removed, err)
	}
	lock, err := TakeLock(base, Baseline, "the test", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	removed, err := lock.RemoveLeftovers()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, ".baseline.new-123"), filepath.Join(dir, ".baseline.new-4.old")}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, name := range []string{".baseline.new-x", ".other.new-1", "baseline", "kept", ".baseline.new-5"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v, want it kept", name, err)
		}
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if removed, err := lock.RemoveLeftovers(); removed != nil || err == nil {
		t.Errorf("with the lock released: removed %q, %v; want a refusal", removed, err)
	}
}
