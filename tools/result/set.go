package result

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/internal/labdir"
)

// A NightLayout is the names a night's writer puts into the night beside
// its tests' directories, each to whether it is a directory: a night's
// reader passes over them, and no test may have one. The nightly job
// declares its own (tools/nightdir); every reader of a night is
// given them.
type NightLayout map[string]bool

// Reserved tells whether name is one of the layout's own.
func (l NightLayout) Reserved(name string) bool {
	_, ok := l[name]
	return ok
}

// dirs are the layout's directories, sorted, for messages.
func (l NightLayout) dirs() []string {
	var dirs []string
	for name, isDir := range l {
		if isDir {
			dirs = append(dirs, name)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// temporary tells whether name is one of a layout directory's
// temporaries, .NAME.new-… or .NAME.new-….old, which the writer of a
// directory that it replaces whole (the report) makes beside it.
func (l NightLayout) temporary(name string) bool {
	for _, dir := range l.dirs() {
		if strings.HasPrefix(name, "."+dir+".new-") {
			return true
		}
	}
	return false
}

// A LayoutError is an entry of a night's directory where no result of a
// night can be.
type LayoutError struct {
	Path, Why string
}

func (e *LayoutError) Error() string { return e.Path + ": " + e.Why }

// A Night is the results of one night of the nightly job, in the layout
// nightly collect writes and the job uploads: DIR/<test>/outputs.zip, one
// directory per test, each zip a regular file. It is the one definition of
// what a night holds: the gate judges, the report reads, the history
// takes and the promotion copies exactly its results.
type Night struct {
	// Dir is the night's directory.
	Dir string
	// own is what its writer puts beside the tests.
	own NightLayout
	// tests are the names of the tests' directories that hold an
	// outputs.zip, sorted.
	tests []string
}

// OpenNight lists the night in dir. It refuses, naming each path, what a
// night cannot hold and a reader would otherwise pass over or take by
// mistake: symbolic links (of directories or files: a night's results are
// its own files), results stored unpacked (a directory holding
// result.json), an outputs.zip anywhere but DIR/<test>/, anything else in
// a test's directory, files where a test's directory should be, tests
// whose names are not names (CheckName), and a test named like one of the
// writer's own outputs (own). Those outputs are passed over, and
// so is a test's directory without an outputs.zip, the temporaries of the
// job's own directories, and the lab's marker (internal/labdir) of a night
// it keeps.
func OpenNight(dir string, own NightLayout) (*Night, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	n := &Night{Dir: dir, own: own}
	var refused []error
	refuse := func(path, why string, args ...any) {
		refused = append(refused, &LayoutError{path, fmt.Sprintf(why, args...)})
	}
	for _, e := range entries {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		isDir, reserved := own[name]
		switch {
		case e.Type()&os.ModeSymlink != 0:
			refuse(path, "a symbolic link: a night's results are its own files, never followed")
		case reserved && isDir != e.IsDir():
			refuse(path, "not what the nightly job writes under that name")
		case reserved && isDir:
			if held := unpackedOrZip(path); held != "" {
				refuse(held, "a test named %q: the nightly job writes its own %s/ there, which would replace it; rename the test",
					name, name)
			}
		case reserved, e.IsDir() && own.temporary(name):
		case name == labdir.Marker && e.Type().IsRegular():
			// The lab's mark on a night it keeps (the baseline): no result.
		case name == ZipName:
			refuse(path, "an outputs.zip outside a test's directory: a night has %s/<test>/%s", dir, ZipName)
		case name == FileName || name == XTimeName:
			refuse(path, "a result stored unpacked: a night's results are %s/<test>/%s", dir, ZipName)
		case !e.IsDir():
			refuse(path, "not a test's directory: a night has %s/<test>/%s and the nightly job's own files only", dir, ZipName)
		case CheckName(name) != nil:
			refuse(path, "not a test's directory: %v", CheckName(name))
		default:
			zip, why := n.testDir(path)
			refused = append(refused, why...)
			if zip {
				n.tests = append(n.tests, name)
			}
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("%s: not a night's results (%d entries refused):\n%w", dir, len(refused), errors.Join(refused...))
	}
	return n, nil
}

// testDir checks a test's directory: it holds its outputs.zip, a regular
// file, or nothing.
func (n *Night) testDir(dir string) (zip bool, refused []error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, []error{err}
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			refused = append(refused, &LayoutError{path, "a symbolic link: a night's results are its own files, never followed"})
		case e.Name() == ZipName && e.Type().IsRegular():
			zip = true
		case e.Name() == ZipName:
			refused = append(refused, &LayoutError{path, "not a regular file"})
		case e.Name() == FileName || e.Name() == XTimeName:
			refused = append(refused, &LayoutError{dir, "a result stored unpacked: a night's results are <test>/" + ZipName})
		case e.IsDir():
			refused = append(refused, &LayoutError{path, "a directory in a test's directory (results one level deeper?): " +
				"a night has <test>/" + ZipName + " only"})
		default:
			refused = append(refused, &LayoutError{path, "a stray file in a test's directory: a night has <test>/" + ZipName + " only"})
		}
	}
	return zip, refused
}

// unpackedOrZip is the path of a result directly in dir, an outputs.zip
// or a result.json, or "".
func unpackedOrZip(dir string) string {
	for _, name := range []string{ZipName, FileName, XTimeName} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// Tests names the night's tests that left an outputs.zip, in order.
func (n *Night) Tests() []string { return append([]string(nil), n.tests...) }

// Zip is the path of test's outputs.zip.
func (n *Night) Zip(test string) string { return NightZip(n.Dir, test) }

// NightZip is where a night's directory dir keeps the result of test:
// dir/TEST/outputs.zip, as the nightly job collects its tests' results
// and the history's archive keeps a night's (history.ArchivedResult).
func NightZip(dir, test string) string { return filepath.Join(dir, test, ZipName) }

// Test is the name of the test whose result f is, for a result of a
// night.
func Test(f Found) string { return filepath.Base(filepath.Dir(f.Path)) }

// Walk calls fn with each of the night's results, in the tests' order,
// one at a time, read from its outputs.zip: a night's results are never in
// memory at once. A zip that holds no result (a test that is no
// benchmark) is passed over, as by Walk; one that cannot be read comes
// with its Err, as does one that is no longer a regular file. An error
// from fn stops the walk and is returned.
func (n *Night) Walk(fn func(Found) error) error {
	for _, test := range n.tests {
		path := n.Zip(test)
		if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
			if err == nil {
				err = &LayoutError{path, "no longer a regular file"}
			}
			if err := fn(Found{Path: path, Err: err}); err != nil {
				return err
			}
			continue
		}
		r, out, err := Read(path)
		if err != nil && out != nil && !looksLikeResult(out) {
			out.Close()
			continue
		}
		if err := fn(Found{Path: path, Result: r, Outputs: out, Err: err}); err != nil {
			return err
		}
	}
	return nil
}

// CheckOutput refuses a directory or file to write, path, that is the
// night's directory, holds it, or is inside it but under one of its
// writer's own names (NightLayout): writing there could replace the
// night's results.
func (n *Night) CheckOutput(path string) error {
	dir, err := resolve(n.Dir)
	if err != nil {
		return err
	}
	out, err := resolve(path)
	if err != nil {
		return err
	}
	if within(dir, out) {
		return fmt.Errorf("%s: holds the night %s, whose results it would replace", path, n.Dir)
	}
	if !within(out, dir) {
		return nil
	}
	rel, _ := filepath.Rel(dir, out)
	if first, _, _ := strings.Cut(rel, string(filepath.Separator)); !n.own.Reserved(first) {
		return fmt.Errorf("%s: inside the night %s, beside its results: want a place outside it, or one of the nightly job's own (%s)",
			path, n.Dir, strings.Join(n.own.dirs(), ", "))
	}
	return nil
}

// Apart refuses two directories of which one is read and the other
// written (or replaced) when they are one, or one is inside the other,
// once absolute and with their symbolic links resolved: writing the one
// would change or delete what the other holds. what names them, in
// order, for the error.
func Apart(whatA, a, whatB, b string) error {
	ra, err := resolve(a)
	if err != nil {
		return err
	}
	rb, err := resolve(b)
	if err != nil {
		return err
	}
	switch {
	case ra == rb:
		return fmt.Errorf("%s %s and %s %s are the same directory", whatA, a, whatB, b)
	case within(ra, rb):
		return fmt.Errorf("%s %s is inside %s %s", whatA, a, whatB, b)
	case within(rb, ra):
		return fmt.Errorf("%s %s is inside %s %s", whatB, b, whatA, a)
	}
	return nil
}

// resolve makes path absolute and resolves the symbolic links of as much
// of it as exists: a directory yet to be made resolves as it will be.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within tells whether path is dir or inside it; both are clean and
// absolute.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
