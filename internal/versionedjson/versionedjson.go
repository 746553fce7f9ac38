// Package versionedjson reads and writes the lab's JSON files that hold
// one value each (a summary, a run's record, the suite's detection record,
// a trends file, a bisection's answer): one Format per kind, which refuses
// a version it does not know, a field it does not know (so that a
// misspelt one is not silently lost), a second value after the first and
// a file over its bound, and writes a file whole or not at all.
package versionedjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"havlak-lab/internal/atomicfile"
)

// A Format is a kind of file, holding one JSON value of T.
type Format[T any] struct {
	// Name names the kind in errors, with its article: "a summary".
	Name string
	// MaxBytes bounds a file, read or written.
	MaxBytes int
	// VersionField is the JSON name of the version's field
	// ("schema_version"), "" for a kind without versions: Version is then
	// never called.
	VersionField string
	// Version points at the version's field of a value.
	Version func(*T) *int
	// Oldest and Current are the versions read, Current the one written.
	Oldest, Current int
	// Check checks a value read, or about to be written, once its version
	// is known; nil takes any.
	Check func(*T) error
}

// Marshal checks v and encodes it, indented and ending in a newline, at
// the current version, which it sets in v.
func (f *Format[T]) Marshal(v *T) ([]byte, error) {
	if f.VersionField != "" {
		*f.Version(v) = f.Current
	}
	if err := f.check(v); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	if len(data)+1 > f.MaxBytes {
		return nil, f.tooLarge()
	}
	return append(data, '\n'), nil
}

// Write writes v to path, whole or not at all: a value that Marshal
// refuses leaves path as it was, and the error names it.
func (f *Format[T]) Write(path string, v *T) error {
	data, err := f.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: not written: %w", path, err)
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// Parse decodes and checks one value of the kind.
func (f *Format[T]) Parse(data []byte) (*T, error) {
	if len(data) > f.MaxBytes {
		return nil, f.tooLarge()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	v := new(T)
	if err := dec.Decode(v); err != nil {
		return nil, decodeError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("line %d: more than one JSON value", lineOf(data, dec.InputOffset()))
	}
	if err := f.check(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Read reads and checks the file at path, at most MaxBytes of it; an
// error names the file.
func (f *Format[T]) Read(path string) (*T, error) {
	return f.ReadFS(osFS{}, path)
}

// ReadFS is Read of the file name of fsys (an os.Root's, for a reader
// that must stay inside a directory). What is not a regular file is
// refused before it is opened (a named pipe would block the reader), and
// a file that is not there is an error that is fs.ErrNotExist.
func (f *Format[T]) ReadFS(fsys fs.FS, name string) (*T, error) {
	if info, err := fs.Stat(fsys, name); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s: not a regular file", name, atomicfile.Kind(info.Mode()))
	}
	file, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, int64(f.MaxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	v, err := f.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not %s: %w", name, f.Name, err)
	}
	return v, nil
}

// check checks v's version, then v.
func (f *Format[T]) check(v *T) error {
	if f.VersionField != "" {
		switch version := *f.Version(v); {
		case version >= f.Oldest && version <= f.Current:
		case f.Oldest == f.Current:
			return fmt.Errorf("%s %d: this reader knows version %d", f.VersionField, version, f.Current)
		default:
			return fmt.Errorf("%s %d: this reader knows versions %d to %d", f.VersionField, version, f.Oldest, f.Current)
		}
	}
	if f.Check == nil {
		return nil
	}
	return f.Check(v)
}

func (f *Format[T]) tooLarge() error {
	return fmt.Errorf("more than %d bytes, larger than %s may be", f.MaxBytes, f.Name)
}

// decodeError is a decoding error with the line it is on, where it has
// one.
func decodeError(data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("line %d: %v", lineOf(data, syntax.Offset), err)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("line %d: %q: a JSON %s, want %v", lineOf(data, typ.Offset), typ.Field, typ.Value, typ.Type)
	case errors.As(err, &typ):
		// A type's own unmarshaler refused it, and said why.
		return fmt.Errorf("line %d: %w", lineOf(data, typ.Offset), err)
	case errors.Is(err, io.EOF):
		return errors.New("empty: want a JSON value")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("ends too early (%w): truncated?", err)
	}
	// Unknown fields and values a type refuses (a time), which carry no
	// offset.
	return err
}

func lineOf(data []byte, offset int64) int {
	return 1 + bytes.Count(data[:min(int(offset), len(data))], []byte("\n"))
}

// osFS opens paths as os.Open does, relative or absolute.
type osFS struct{}

func (osFS) Open(name string) (fs.File, error)     { return os.Open(name) }
func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
