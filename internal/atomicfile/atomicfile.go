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

// Commit closes the file and renames it to its path, with mode 0644. After
// an error the temporary file is gone and the path is unchanged.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.path)
	}
	f.done = true
	tmp := f.Name()
	err := f.Chmod(0o644)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(tmp, f.path)
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
