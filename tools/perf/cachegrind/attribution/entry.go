package attribution

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// The entry every consumer calls (the perf check's comment, the
// dashboard's page, the nightly's alerts, the regression suite's record):
// two sides' line counts, the change that lies between them, a figure →
// the attribution. What a change is, how its diff is read and bounded and
// how a figure weighs a line are decided here alone.

// A Source is the change between the two sides: the diff of repository
// Repo from commit Base to Change, or, when Change is "", to the checkout
// as it is (its commits, its uncommitted edits, and each file git does not
// track yet but would, as a file the change added: what the perf check's
// reach counts as changed). It is read once, when an attribution first
// needs it, and bounded as the change's diff is (MaxDiffBytes). A change
// that is no repository's, a patch file's, is its Patch instead: a unified
// diff (git's, or diff -u's).
type Source struct {
	Repo         gitwork.Repo
	Base, Change string
	Patch        []byte

	once sync.Once
	diff *Diff
	err  error
}

// NewSource is the change of repo from commit base to change ("" for the
// checkout as it is).
func NewSource(repo gitwork.Repo, base, change string) *Source {
	return &Source{Repo: repo, Base: base, Change: change}
}

// PatchSource is the change patch, a unified diff, says.
func PatchSource(patch []byte) *Source {
	return &Source{Patch: patch}
}

// maxUntracked bounds an untracked file the diff takes as added: a source
// file is kilobytes.
const maxUntracked = 1 << 20

// Diff is the source's diff, read on the first call.
func (s *Source) Diff() (*Diff, error) {
	s.once.Do(func() { s.diff, s.err = s.read() })
	return s.diff, s.err
}

func (s *Source) read() (*Diff, error) {
	if s.Repo == "" {
		return parseDiff(s.Patch)
	}
	revs := []string{s.Base}
	if s.Change != "" {
		revs = append(revs, s.Change)
	}
	data, err := s.Repo.OutputLimited(MaxDiffBytes, gitDiffArgs(revs...)...)
	if err != nil {
		return nil, err
	}
	if s.Change == "" {
		untracked, err := s.Repo.Files("--others", "--exclude-standard")
		if err != nil {
			return nil, err
		}
		if data, err = addUntracked(data, string(s.Repo), untracked); err != nil {
			return nil, err
		}
	}
	d, err := parseDiff(data)
	if err != nil {
		return nil, fmt.Errorf("the change's diff: %w", err)
	}
	return d, nil
}

// gitDiffArgs are git's arguments for a diff that parseDiff reads, in
// git's own spelling whatever the user's settings (quoted paths, a/ and
// b/ prefixes, renames found): of revs, a base commit against the
// checkout or two commits.
func gitDiffArgs(revs ...string) []string {
	args := []string{"-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
		"--src-prefix=a/", "--dst-prefix=b/", "--find-renames"}
	return append(append(args, revs...), "--")
}

// addUntracked adds to a diff each of files, untracked files of the
// checkout dir, as added: a regular file of at most maxUntracked bytes
// and no NUL byte (source), read inside dir only (os.Root); the others,
// a link among them, are left out, as is any past MaxDiffBytes in all.
func addUntracked(diff []byte, dir string, files []string) ([]byte, error) {
	if len(files) == 0 {
		return diff, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := bytes.NewBuffer(diff)
	for _, name := range files {
		info, err := root.Lstat(name)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxUntracked || out.Len()+2*int(info.Size())+3*len(name)+100 > MaxDiffBytes {
			continue
		}
		data, err := root.ReadFile(name)
		if err != nil || len(data) == 0 || len(data) > maxUntracked || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		fmt.Fprintf(out, "diff --git %s %s\nnew file mode 100644\n--- /dev/null\n+++ %s\n@@ -0,0 +1,%d @@\n",
			strconv.Quote("a/"+name), strconv.Quote("b/"+name), strconv.Quote("b/"+name), len(lines))
		for _, line := range lines {
			out.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
	}
	return out.Bytes(), nil
}

// A FigureError is a figure an attribution cannot weigh: not one that
// Cachegrind counts per line, or one of the cache simulation's where a
// side's counts have Ir alone. It is the asker's mistake, not the data's.
type FigureError struct{ Err error }

func (e *FigureError) Error() string { return e.Err.Error() }
func (e *FigureError) Unwrap() error { return e.Err }

// Attribute splits figure's change from base to change, whose sources
// differ by src (nil: no source, so no line is the change's), into the
// parts. Figure is one of the figures it Explains, as
// it counts for a Go program when goProgram (its own figures leave the
// runtime out), or one of Cachegrind's events ("Ir", "D1mr", ...), every function
// counted. An error of the figure is a *FigureError.
func Attribute(base, change *linecounts.File, src *Source, figure string, goProgram bool) (*Attribution, error) {
	w, err := weightOf(figure, goProgram)
	if err == nil && w.NeedsCache && (!base.Cache || !change.Cache) {
		side := map[bool]string{true: "the change's", false: "the base's"}[base.Cache]
		err = fmt.Errorf("%s needs the cache simulation's events, which %s line counts have not (Ir alone)", figure, side)
	}
	if err != nil {
		return nil, &FigureError{err}
	}
	var d *Diff
	if src != nil {
		if d, err = src.Diff(); err != nil {
			return nil, err
		}
	}
	return attribute(base, change, d, w)
}

// weightOf is how figure, one of the figures it Explains or one of
// Cachegrind's events, weighs a line's events.
func weightOf(figure string, goProgram bool) (Weight, error) {
	if Explains(figure) {
		return figureWeight(figure, goProgram)
	}
	if slices.Contains(cachegrind.CacheEvents[:], figure) {
		return eventWeight(figure)
	}
	return Weight{}, errors.New(strconv.Quote(figure) + " is not a figure of Cachegrind's")
}
