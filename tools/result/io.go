package result

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode"

	"havlak-lab/internal/atomicfile"
)

// ZipName is the name Bazel gives a test's zipped undeclared outputs.
const ZipName = "outputs.zip"

// XTimeName is the file of xtime's record of a program's timed runs
// (ReadXTime), among a result's data; a result of the format before
// result.json was that file and benchmark.json.
const XTimeName = "xtime.json"

// Limits on what a reader of results takes in, checked before it
// allocates: a result is untrusted input (a pull request's, say), and a
// small zip can claim entries of gigabytes. A full-size result's largest
// files, CPU profiles and their SVG graphs, are a few MiB.
const (
	// MaxFileBytes bounds one file of a result.
	MaxFileBytes = 128 << 20
	// MaxResultBytes bounds a result: its zip, and the sum of what its
	// zip's entries claim.
	MaxResultBytes = 512 << 20
	// MaxResultJSONBytes bounds result.json, which the readers decode
	// whole: a full-size result's is a few KiB.
	MaxResultJSONBytes = 4 << 20
	// MaxZipEntries bounds the entries of a result's zip. A reader holds
	// every entry's header while the zip is open (archive/zip keeps a File
	// of a few hundred bytes each, and more to look names up), so a zip of
	// a million empty entries, 95 MB and under MaxResultBytes, took a
	// reader's memory past a gigabyte. A result's outputs are a few dozen
	// files (a program's 18: profiles, their views and graphs, xtime's
	// and Cachegrind's files; a server's a few more profiles): 4096 is
	// two hundred times that, and its headers cost a reader about 2 MiB.
	MaxZipEntries = 4096
	// maxDirectoryBytes bounds the zip's central directory, which
	// archive/zip reads whole into headers before anything else can be
	// checked: MaxZipEntries of 256 bytes each (the fixed 46 and the name
	// and extra fields; a result's names are under 64 bytes, Bazel's
	// extras 24). Its count is only the zip's claim (archive/zip reads
	// headers until one is not, so a zip can hold 65536 more than it
	// says): bounding the bytes bounds the headers whatever it claims.
	maxDirectoryBytes = MaxZipEntries * 256
)

// A LimitError is a file or a result over a limit.
type LimitError struct {
	Path        string
	Size, Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %d bytes, over the limit of %d", e.Path, e.Size, e.Limit)
}

// Outputs are the files of one result, in a directory or a zip. A zip's
// are read from the zip's file when asked for, never held in memory: a
// reader keeps of a result only what it takes from it.
type Outputs interface {
	// ReadFile reads the file name of the result.
	ReadFile(name string) ([]byte, error)
	// OpenFile opens the file name of the result for reading, for a
	// reader that copies or checks it without holding it whole. Reading
	// it past MaxFileBytes is an error.
	OpenFile(name string) (io.ReadCloser, error)
	// Path names a file for people: dir/name, or outputs.zip:name.
	Path(name string) string
	// Close closes the zip's file the outputs read from (nothing for a
	// directory's); reading them afterwards is an error. Outputs nobody
	// closes hold their file open until they are garbage.
	Close() error
}

type dirOutputs string

func (d dirOutputs) ReadFile(name string) ([]byte, error) { return d.readLimited(name, MaxFileBytes) }

func (d dirOutputs) OpenFile(name string) (io.ReadCloser, error) {
	f, info, err := OpenRegular(d.Path(name))
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxFileBytes {
		f.Close()
		return nil, &LimitError{d.Path(name), info.Size(), MaxFileBytes}
	}
	return &limitedFile{f, d.Path(name), MaxFileBytes}, nil
}

func (d dirOutputs) Close() error { return nil }

// A limitedFile is a file of a result that refuses to be read past its
// limit: one that grows while it is read.
type limitedFile struct {
	io.ReadCloser
	path string
	left int64
}

func (l *limitedFile) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &LimitError{l.path, MaxFileBytes + 1, MaxFileBytes}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.ReadCloser.Read(p)
	if l.left -= int64(n); l.left < 0 {
		return n, &LimitError{l.path, MaxFileBytes + 1, MaxFileBytes}
	}
	return n, err
}

func (d dirOutputs) readLimited(name string, limit int64) ([]byte, error) {
	return ReadFileLimited(d.Path(name), limit)
}
func (d dirOutputs) Path(name string) string { return filepath.Join(string(d), name) }

// ErrNotRegular is the error of a reader asked to read what is not a
// regular file: a named pipe would block it, a device (a symlink to
// /dev/zero) would feed it without end, a directory or socket has no
// bytes of a result.
var ErrNotRegular = errors.New("not a regular file")

// checkRegular refuses info of path unless it is a regular file, saying
// what it is.
func checkRegular(path string, info fs.FileInfo) error {
	mode := info.Mode()
	if mode.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: %s: %w", path, atomicfile.Kind(mode), ErrNotRegular)
}

// OpenRegular opens the file at path for reading, refusing anything but a
// regular file (ErrNotRegular), a symlink's target included, before it
// reads a byte or waits for a writer.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(path, info); err != nil {
		return nil, nil, err
	}
	// O_NONBLOCK: a named pipe put in the file's place since the Stat
	// opens at once instead of waiting for a writer, and is refused
	// below; a regular file ignores the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err == nil {
		err = checkRegular(path, info)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// ReadFileLimited reads the file at path, refusing one over limit bytes,
// or one that grows past it while read, and anything but a regular file
// (OpenRegular).
func ReadFileLimited(path string, limit int64) ([]byte, error) {
	f, info, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, &LimitError{path, info.Size(), limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &LimitError{path, int64(len(data)), limit}
	}
	return data, nil
}

// zipOutputs reads the entries of a zip from its file, each when asked
// for: the zip is never in memory whole.
type zipOutputs struct {
	file *os.File
	r    *zip.Reader
	path string
}

func (z zipOutputs) ReadFile(name string) ([]byte, error) { return z.readLimited(name, MaxFileBytes) }

func (z zipOutputs) readLimited(name string, limit int64) ([]byte, error) {
	rc, err := z.open(name, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", z.Path(name), err)
	}
	return data, nil
}

func (z zipOutputs) OpenFile(name string) (io.ReadCloser, error) { return z.open(name, MaxFileBytes) }

// open opens the entry name, refusing one whose header claims more than
// limit bytes: archive/zip refuses an entry that inflates past the size
// its header claims, so checking the claim bounds the read.
func (z zipOutputs) open(name string, limit int64) (io.ReadCloser, error) {
	for _, f := range z.r.File {
		if f.Name == name && f.UncompressedSize64 > uint64(limit) {
			return nil, &LimitError{z.Path(name), int64(min(f.UncompressedSize64, 1<<62)), limit}
		}
	}
	f, err := z.r.Open(name)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", z.Path(name), err)
	}
	return f, nil
}

func (z zipOutputs) Path(name string) string { return z.path + ":" + name }

func (z zipOutputs) Close() error { return z.file.Close() }

// Open opens the result at path: a directory holding result.json, or an
// outputs.zip. A zip's file stays open, read from when its entries are
// (Outputs.Close closes it); Open reads every entry once, to check it, and
// keeps none of it.
func Open(path string) (Outputs, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return dirOutputs(path), nil
	}
	f, info, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	return openZip(f, info.Size(), path)
}

// OpenZipIn opens the outputs.zip named name under root as Open does,
// for a reader that serves a directory of results to others (the
// dashboard): os.Root resolves name, symlinks included, inside root only,
// so neither ../ nor a symlink leads out of it; anything but a regular
// file is refused (ErrNotRegular) before a byte is read.
func OpenZipIn(root *os.Root, name string) (Outputs, error) {
	path := filepath.Join(root.Name(), name)
	// O_NONBLOCK: a named pipe opens at once and is refused below.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = checkRegular(path, info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return openZip(f, info.Size(), path)
}

// openZip reads the directory of the zip f of size bytes at path and
// checks its entries; the Outputs it returns owns f, which it closes when
// it fails.
func openZip(f *os.File, size int64, path string) (_ Outputs, err error) {
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if size > MaxResultBytes {
		return nil, &LimitError{path, size, MaxResultBytes}
	}
	z, err := newZipReader(f, size, path)
	if err != nil {
		return nil, err
	}
	var claimed uint64
	names := map[string]bool{}
	for _, f := range z.File {
		claimed += min(f.UncompressedSize64, 1<<62)
		if claimed > MaxResultBytes {
			return nil, fmt.Errorf("%s: its entries claim more than %d bytes together (%s: %d bytes): not read",
				path, MaxResultBytes, f.Name, f.UncompressedSize64)
		}
		if names[f.Name] {
			return nil, fmt.Errorf("%s: %s: two entries of that name", path, f.Name)
		}
		names[f.Name] = true
	}
	for _, f := range z.File {
		if err := checkEntry(f); err != nil {
			return nil, fmt.Errorf("%s:%s: %w", path, f.Name, err)
		}
	}
	return zipOutputs{f, z, path}, nil
}

// checkEntry reads the zip entry f to its end and checks it against the
// CRC-32 its header records: archive/zip checks an entry only when it is
// read to its end, and not at all when the header's CRC is 0, so an entry
// nobody reads (a profile the report only links to) would go unchecked
// into a baseline. The claims checked before bound the reading: archive/zip
// refuses an entry that inflates past its claimed size.
func checkEntry(f *zip.File) error {
	if f.FileInfo().IsDir() {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sum := crc32.NewIEEE()
	if _, err := io.Copy(sum, rc); err != nil {
		return err
	}
	if got := sum.Sum32(); got != f.CRC32 {
		return fmt.Errorf("CRC-32 %08x, its header says %08x: %w", got, f.CRC32, zip.ErrChecksum)
	}
	return nil
}

// Read reads and validates the result at path (see Open), and returns it
// with its files. Its errors name the file at fault.
func Read(path string) (*Result, Outputs, error) {
	out, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := ReadFrom(out)
	return r, out, err
}

// A limitedReader reads a file of a result under a limit of its own.
type limitedReader interface {
	readLimited(name string, limit int64) ([]byte, error)
}

// ReadFrom reads and validates the result.json of out, refusing one over
// MaxResultJSONBytes before reading it when out is Open's.
func ReadFrom(out Outputs) (*Result, error) {
	read := out.ReadFile
	if l, ok := out.(limitedReader); ok {
		read = func(name string) ([]byte, error) { return l.readLimited(name, MaxResultJSONBytes) }
	}
	data, err := read(FileName)
	if errors.Is(err, fs.ErrNotExist) {
		if _, legacy := out.ReadFile(XTimeName); legacy == nil {
			return nil, fmt.Errorf("%s: missing: this is a result of the format before schema version %d "+
				"(%s and benchmark.json, no %s); rerun the benchmark", out.Path(FileName), OldestSchemaVersion, XTimeName, FileName)
		}
		return nil, fmt.Errorf("%s: missing", out.Path(FileName))
	}
	if err != nil {
		return nil, err
	}
	return Decode(data, out.Path(FileName))
}

// Decode parses and validates result.json's data; name says where it came
// from in errors. It refuses data over MaxResultJSONBytes, an object that
// gives a key twice (encoding/json would keep the last silently) and
// nesting deeper than maxJSONDepth.
func Decode(data []byte, name string) (*Result, error) {
	if len(data) > MaxResultJSONBytes {
		return nil, &LimitError{name, int64(len(data)), MaxResultJSONBytes}
	}
	var version struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &version); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonError(data, err))
	}
	switch {
	case version.SchemaVersion == nil:
		return nil, fmt.Errorf("%s: no schema_version: not a result", name)
	case *version.SchemaVersion < OldestSchemaVersion || *version.SchemaVersion > SchemaVersion:
		return nil, fmt.Errorf("%s: schema version %d; this lab reads versions %d to %d", name, *version.SchemaVersion, OldestSchemaVersion, SchemaVersion)
	}
	if err := checkKeys(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonError(data, err))
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.metricAt = make(map[string]int, len(r.Metrics))
	for i, m := range r.Metrics {
		r.metricAt[m.Name] = i
	}
	return &r, nil
}

// maxJSONDepth bounds the nesting of result.json's objects and arrays:
// its deepest value, a sweep point's argument, is at depth 4.
const maxJSONDepth = 16

// checkKeys refuses JSON data holding an object that gives a key twice,
// at any depth, naming the key and its line, or nesting deeper than
// maxJSONDepth. Keys are compared as encoding/json matches them with a
// struct's fields: without regard to case ("Cores" repeats "cores").
// Syntax errors are left to encoding/json's own reading.
func checkKeys(data []byte) error {
	type level struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []level
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	line := func() int { return 1 + bytes.Count(data[:dec.InputOffset()], []byte("\n")) }
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			top := &stack[n-1]
			if top.wantKey {
				if key, ok := tok.(string); ok {
					folded := foldKey(key)
					if top.keys[folded] {
						return fmt.Errorf("line %d: key %q given twice in one object", line(), key)
					}
					top.keys[folded] = true
					top.wantKey = false
					continue
				}
			} else {
				top.wantKey = true // this token is, or opens, the key's value
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) == maxJSONDepth {
				return fmt.Errorf("line %d: nested deeper than %d", line(), maxJSONDepth)
			}
			object := tok == json.Delim('{')
			l := level{object: object, wantKey: object}
			if object {
				l.keys = map[string]bool{}
			}
			stack = append(stack, l)
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// foldKey maps every letter of key to the smallest of the letters
// unicode.SimpleFold makes it equal to, so that two keys equal without
// regard to case, as encoding/json compares them, fold alike.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}

// jsonError adds the line to a JSON syntax error.
func jsonError(data []byte, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		line := 1 + bytes.Count(data[:syntax.Offset], []byte("\n"))
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// Write validates r, checks that every file it lists is in dir, and writes
// dir/result.json atomically: it appears whole or not at all.
func Write(dir string, r *Result) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, FileName), err)
	}
	var missing []string
	for _, name := range r.listed() {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: lists files that are not there: %v", filepath.Join(dir, FileName), missing)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, FileName), append(data, '\n'), 0o644)
}

// listed is the names of every file r refers to.
func (r *Result) listed() []string {
	var names []string
	if r.GoBench != "" {
		names = append(names, r.GoBench)
	}
	if r.LineCounts != "" {
		names = append(names, r.LineCounts)
	}
	var figures []string
	for _, name := range r.FigureLineCounts {
		figures = append(figures, name)
	}
	sort.Strings(figures)
	names = append(names, figures...)
	for _, f := range r.Files {
		names = append(names, f.Name)
	}
	return names
}

// A Found is a result found under a directory: read, or why not.
type Found struct {
	Path    string // the directory or zip
	Result  *Result
	Outputs Outputs
	Err     error
}

// FindAll finds the results under roots: every outputs.zip (as Bazel
// leaves them in its testlogs, or as CI uploads them) and every directory
// holding a result.json (an unpacked one) or, from before result.json, an
// xtime.json, in path order. A zip or
// directory that looks like a result but cannot be read is returned with
// its Err; a zip of a test that is no benchmark (no result.json, no
// xtime.json) is skipped.
func FindAll(roots ...string) ([]Found, error) {
	var found []Found
	for _, root := range roots {
		err := Walk(root, func(f Found) error {
			found = append(found, f)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Path < found[j].Path })
	return found, nil
}

// Walk calls fn with each result under root that FindAll would find, in
// path order, one at a time: a long tree of artifacts is never in memory
// at once. An error from fn stops the walk and is returned.
func Walk(root string, fn func(Found) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		isResult := d.IsDir() && (exists(filepath.Join(path, FileName)) || exists(filepath.Join(path, XTimeName))) ||
			!d.IsDir() && d.Name() == ZipName
		if !isResult {
			return nil
		}
		r, out, err := Read(path)
		if err != nil && out != nil && !looksLikeResult(out) {
			return out.Close()
		}
		if err := fn(Found{Path: path, Result: r, Outputs: out, Err: err}); err != nil {
			return err
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// looksLikeResult tells whether out holds a result.json or an older
// result's xtime.json or benchmark.json.
func looksLikeResult(out Outputs) bool {
	for _, name := range []string{FileName, XTimeName, "benchmark.json"} {
		rc, err := out.OpenFile(name)
		if err == nil {
			rc.Close()
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
