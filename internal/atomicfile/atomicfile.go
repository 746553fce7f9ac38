// Package atomicfile writes output files so that their final path either
// does not exist or holds the whole file: the data goes to a temporary file
// in the same directory, renamed onto the path only when complete.
package atomicfile

import (
	"errors"
	"fmt"
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

// Commit closes the file and renames it to its path, with mode 0644. After
// an error the temporary file is gone and the path is unchanged.
func (f *File) Commit() error {
	return f.commit(0o644)
}

// rename is os.Rename, a variable so that a test can make it fail.
var rename = os.Rename

func (f *File) commit(perm os.FileMode) error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.path)
	}
	f.done = true
	tmp := f.Name()
	err := f.Chmod(perm)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = rename(tmp, f.path)
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
