// Package labdir is the one rule of which directories the lab may replace
// whole: those it made, which hold its marker file, and those that do not
// exist yet or are empty. A path a user or an agent's setting names (the
// nightly baseline, a report's --out) could name anything: a home
// directory, a file, another tool's directory. Replacing it would delete
// what it held, so a writer asks Check before it writes a byte, and marks
// each directory it makes (Mark) so that the next run knows it for its own.
//
// A directory made before the lab marked its directories has no marker: a
// writer may adopt it when what it holds is what the writer would have
// written there (Check's adopt), and nothing else.
package labdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/internal/atomicfile"
)

// Marker is the name of the file that marks a directory as one the lab
// wrote. It starts with a dot: readers of a directory's results and
// listings of its files pass over it.
const Marker = ".havlak-lab"

// A Kind is what the lab keeps in a directory. The marker names it, so
// that one writer never takes another's directory for its own (a report
// for a baseline, say).
type Kind string

const (
	// Baseline is the nightly job's baseline: the last good night's
	// results (tools/nightly).
	Baseline Kind = "nightly-baseline"
	// Report is a report's directory (tools/report --out).
	Report Kind = "report"
	// NightArchive is a night's directory of the history's archive
	// (tools/nightly): marked last, once every result the night archives
	// is in, so that a directory holding less (an earlier run's record
	// alone, a copy cut short) is never taken for the night's archive.
	NightArchive Kind = "nightly-archive"
)

// A State is what Check found at a path the lab may write.
type State int

const (
	// Absent: nothing is there; the writer makes it.
	Absent State = iota
	// Empty: an empty directory, which holds nothing to lose.
	Empty
	// Marked: a directory the lab wrote, of the kind asked for.
	Marked
	// Adoptable: a directory without the marker whose contents are what
	// the writer would have written (Check's adopt said so): made before
	// the lab marked its directories. The writer says so and marks it.
	Adoptable
)

// maxMarkerBytes bounds the marker's reading: it holds a line of a few
// dozen bytes, and the directory it is in is not trusted yet.
const maxMarkerBytes = 1 << 10

// content is the marker's text for kind.
func content(kind Kind) string { return "havlak-lab " + string(kind) + "\n" }

// Check says whether the lab may write the directory of kind at path, or
// replace it whole, and refuses, naming flag (the option or variable that
// named path) and path, anything but: nothing at path, an empty
// directory, a directory holding the marker of kind, or one whose
// contents adopt accepts (nil: none are). A symbolic link is judged by
// what it leads to. Check writes nothing.
func Check(flag, path string, kind Kind, adopt func(dir string) error) (State, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return 0, refused(flag, path, "a symbolic link to nothing")
		}
		return Absent, nil
	case err != nil:
		return 0, fmt.Errorf("%s %s: %w", flag, path, err)
	case !info.IsDir():
		return 0, refused(flag, path, "not a directory but "+what(info.Mode()))
	}
	data, err := readMarker(filepath.Join(path, Marker))
	switch {
	case err == nil && data == content(kind):
		return Marked, nil
	case err == nil:
		other := strings.TrimSpace(strings.TrimPrefix(data, "havlak-lab "))
		return 0, refused(flag, path, fmt.Sprintf("the lab's %s directory, not a %s one (its %s says %q)", other, kind, Marker, other))
	case !errors.Is(err, fs.ErrNotExist):
		return 0, refused(flag, path, fmt.Sprintf("its %s is unreadable: %v", Marker, err))
	}
	empty, err := isEmpty(path)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s %s: %w", flag, path, err)
	case empty:
		return Empty, nil
	case adopt == nil:
		return 0, refused(flag, path, "a directory the lab did not write (no "+Marker+" in it)")
	}
	if err := adopt(path); err != nil {
		return 0, refused(flag, path, fmt.Sprintf("a directory the lab did not write (no %s in it, and it is not a %s: %v)", Marker, kind, err))
	}
	return Adoptable, nil
}

// refused is Check's error: what path is, and what to do instead.
func refused(flag, path, why string) error {
	return fmt.Errorf("%s %s: %s: refused, nothing written; name a new or empty directory, or move this one away", flag, path, why)
}

// what names a file mode for people.
func what(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a " + mode.Type().String()
}

// readMarker reads a marker file: a regular file, not a link, of at most
// maxMarkerBytes.
func readMarker(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMarkerBytes+1))
	if err == nil && len(data) > maxMarkerBytes {
		err = fmt.Errorf("%s: over %d bytes", path, maxMarkerBytes)
	}
	return string(data), err
}

// isEmpty tells whether the directory at path has no entries, reading at
// most one of them: the directory could be huge.
func isEmpty(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// Mark writes the marker of kind into the directory dir, whole or not at
// all.
func Mark(dir string, kind Kind) error {
	return atomicfile.WriteFile(filepath.Join(dir, Marker), []byte(content(kind)), 0o644)
}

// Leftover tells whether name, an entry of the directory that holds the
// lab's directory base, is one of the temporaries a writer that replaces
// base whole makes beside it (os.MkdirTemp's ".BASE.new-" and digits, and
// that name with ".old"): a writer killed before it could remove it leaves
// it behind, and the next writer of base removes it, holding base's lock
// (Lock.RemoveLeftovers).
func Leftover(base, name string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+".new-")
	if !ok {
		return false
	}
	rest = strings.TrimSuffix(rest, ".old")
	return rest != "" && strings.Trim(rest, "0123456789") == ""
}
