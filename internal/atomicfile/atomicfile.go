// Package atomicfile writes output files so that their final path either
// does not exist or holds the whole file: the data goes to a temporary file
// in the same directory, synced to disk and only then renamed onto the path,
// so that a crash never leaves the path naming a file whose data was lost.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A File is an output file being written under a temporary name. Write to
// it, then call Commit to publish it or Abort to throw it away.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing the file that will appear at path. It fails at once,
// naming path, when the directory does not exist or is not writable.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := fault(StepCreate, path); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: tmp, path: path}, nil
}

// Write writes p to the file (os.File's Write, through the fault point).
func (f *File) Write(p []byte) (int, error) {
	if err := fault(StepWrite, f.path); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

// WriteString writes s to the file, as Write does.
func (f *File) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// ReadFrom copies r into the file (os.File's ReadFrom, which io.Copy
// uses, through the fault point).
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	if err := fault(StepWrite, f.path); err != nil {
		return 0, err
	}
	return f.File.ReadFrom(r)
}

// WriteFile writes data to path with permissions perm, like os.WriteFile,
// but whole or not at all: after an error the path holds what it held
// before, and no temporary file is left.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.commit(perm)
}

// Commit syncs the file to disk, closes it and renames it to its path, with
// mode 0644. After an error the temporary file is gone and the path is
// unchanged. The rename is not yet durable: a writer that must know it is
// syncs the directory after (SyncDir).
func (f *File) Commit() error {
	return f.commit(0o644)
}

// rename is os.Rename, a variable so that a test can make it fail.
var rename = os.Rename

// sync is the file's fsync(2), through the fault point.
func (f *File) sync() error {
	if err := fault(StepSync, f.path); err != nil {
		return err
	}
	return f.Sync()
}

// Rename renames from to to, as os.Rename does, through the fault point
// of a rename: the lab's writers rename what they write into place
// through it (a file by Commit, a directory replaced whole by its
// writer), so that a test can fail each in turn.
func Rename(from, to string) error {
	if err := fault(StepRename, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err.(*os.PathError).Err}
	}
	return rename(from, to)
}

// SyncDir syncs the directory dir to disk (fsync(2)): the names renamed or
// made in it since are then durable, as a crash would find them.
func SyncDir(dir string) error {
	if err := fault(StepSyncDir, dir); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing the directory %s: %w", dir, err)
	}
	return nil
}

func (f *File) commit(perm os.FileMode) error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.path)
	}
	f.done = true
	tmp := f.Name()
	err := f.Chmod(perm)
	if err == nil {
		// The data reaches the disk before the name does: renamed first, a
		// crash could leave the path naming an empty file.
		err = f.sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file, unless Commit or Abort has
// already run; it is safe to defer right after Create.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// RemoveLeftovers removes what a Create of path leaves beside it when its
// writer is killed before Commit or Abort (".BASE.tmp-" and the digits
// os.CreateTemp adds), and returns their paths: the next writer of path
// calls it. Only regular files are removed; the name is the proof of
// ownership, as no one else names a file so beside one a lab tool writes.
func RemoveLeftovers(path string) ([]string, error) {
	return RemoveBeside(path, func(base string, e fs.DirEntry) bool {
		digits, ok := strings.CutPrefix(e.Name(), "."+base+".tmp-")
		return ok && digits != "" && strings.Trim(digits, "0123456789") == "" && e.Type().IsRegular()
	})
}

// RemoveBeside removes the entries of path's directory that leftover
// (given path's base name and the entry) says a killed writer of path
// left beside it, each whole, never what a symbolic link leads to, and
// returns their paths. A writer that replaces path whole calls it, with
// the names its temporaries have, before it writes.
func RemoveBeside(path string, leftover func(base string, e fs.DirEntry) bool) ([]string, error) {
	dir, base := filepath.Split(filepath.Clean(path))
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !leftover(base, e) {
			continue
		}
		left := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(left); err != nil {
			return removed, fmt.Errorf("removing %s, left by an earlier writer of %s: %w", left, path, err)
		}
		removed = append(removed, left)
	}
	return removed, nil
}
