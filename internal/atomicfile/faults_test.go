package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// steps records the fault points a write of path passes, in order.
func steps(t *testing.T, write func() error) []FaultPoint {
	t.Helper()
	var seen []FaultPoint
	InjectFaultsForTest(t, func(p FaultPoint) error {
		seen = append(seen, p)
		return nil
	})
	if err := write(); err != nil {
		t.Fatal(err)
	}
	injected.Store(nil)
	return seen
}

// A write passes its fault points in the order that keeps the path whole
// through a crash: the data written and synced before the rename; a
// copy (io.Copy, which takes ReadFrom) and WriteString pass the write's
// point too.
func TestFaultPointsInOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	want := []FaultPoint{{StepCreate, path}, {StepWrite, path}, {StepSync, path}, {StepRename, path}}
	for name, write := range map[string]func() error{
		"WriteFile": func() error { return WriteFile(path, []byte("new"), 0o644) },
		"WriteString": func() error {
			f, err := Create(path)
			if err != nil {
				return err
			}
			defer f.Abort()
			f.WriteString("new")
			return f.Commit()
		},
		"io.Copy": func() error {
			f, err := Create(path)
			if err != nil {
				return err
			}
			defer f.Abort()
			if _, err := f.ReadFrom(strings.NewReader("new")); err != nil {
				return err
			}
			return f.Commit()
		},
	} {
		if got := steps(t, write); !slices.Equal(got, want) {
			t.Errorf("%s: fault points %v, want %v", name, got, want)
		}
		assertWritten(t, path, "new", 0o644)
	}
	if got, want := steps(t, func() error { return SyncDir(dir) }), []FaultPoint{{StepSyncDir, dir}}; !slices.Equal(got, want) {
		t.Errorf("SyncDir: fault points %v, want %v", got, want)
	}
}

// A disk full at any step of a write fails it with ENOSPC, named, and
// leaves the path as it was and no temporary beside it.
func TestNoSpaceAtEachStep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	all := steps(t, func() error { return WriteFile(path, []byte("old"), 0o644) })
	for _, at := range all {
		InjectFaultsForTest(t, func(p FaultPoint) error {
			if p == at {
				return syscall.ENOSPC
			}
			return nil
		})
		err := WriteFile(path, []byte("new"), 0o644)
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), path) {
			t.Errorf("no space at %s: %v, want ENOSPC naming %s", at, err, path)
		}
		assertWritten(t, path, "old", 0o644)
		assertOnly(t, dir, "out.txt")
	}
	InjectFaultsForTest(t, func(p FaultPoint) error { return syscall.ENOSPC })
	if err := SyncDir(dir); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("no space at SyncDir: %v, want ENOSPC", err)
	}
	if err := Rename(path, path+".2"); !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path+".2") {
		t.Errorf("no space at Rename: %v, want ENOSPC naming the destination", err)
	}
	assertOnly(t, dir, "out.txt")
}
