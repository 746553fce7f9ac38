package atomicfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A TooLargeError is a file CopyFile refused for its size.
type TooLargeError struct {
	Path        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, over the limit of %d", e.Path, e.Size, e.Limit)
}

// CopyFile copies the regular file at from (symbolic links followed) to
// to, which appears whole or not at all (as WriteFile's path does), a
// piece at a time: the file is never held in memory. The directories
// down to to are made. The copy gets the permission bits perm, or from's
// when perm is 0. A limit over 0 refuses a file of more bytes, with a
// *TooLargeError, and what is not a regular file is refused before it is
// read: a named pipe would block the copy.
func CopyFile(from, to string, perm os.FileMode, limit int64) error {
	in, info, err := openRegular(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if limit > 0 && info.Size() > limit {
		return &TooLargeError{Path: from, Size: info.Size(), Limit: limit}
	}
	if perm == 0 {
		perm = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := Create(to)
	if err != nil {
		return err
	}
	defer out.Abort()
	var r io.Reader = in
	if limit > 0 {
		r = io.LimitReader(in, limit+1)
	}
	n, err := io.Copy(out, r)
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	if limit > 0 && n > limit {
		return &TooLargeError{Path: from, Size: n, Limit: limit}
	}
	return out.commit(perm)
}

// openRegular opens path for reading when it is a regular file, checked
// before it is opened and again of what was opened.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	// O_NONBLOCK: a named pipe put in the file's place since the Stat
	// opens at once instead of waiting for a writer, and is refused
	// below; a regular file ignores the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// Kind names, for people, what a file of mode is when it is not a
// regular file: "a named pipe", "a directory", ... Every refusal of a
// file that is not regular says it in these words.
func Kind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode.IsDir():
		return "a directory"
	}
	return "a " + mode.Type().String()
}
