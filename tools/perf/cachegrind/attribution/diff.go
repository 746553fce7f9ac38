package attribution

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Limits of a diff: it is the change's, untrusted.
const (
	// MaxDiffBytes bounds a diff; a change of the lab is kilobytes.
	MaxDiffBytes = 64 << 20
	// maxDiffLine bounds one line of it.
	maxDiffLine = 4 << 20
	// maxLineNumber bounds a hunk's line numbers.
	maxLineNumber = 1 << 31
)

// A Diff is a unified diff between the base's source tree and the
// change's (git diff BASE CHANGE, or diff -u), as far as an attribution
// needs it: for each file it touches, which lines the change added or
// edited, which base lines it removed, and where every other line moved;
// and the text of its hunks' lines (Text), for an excerpt of the change.
type Diff struct {
	files    []*fileDiff
	byChange map[string]*fileDiff
	byBase   map[string]*fileDiff
}

// A fileDiff is one file's part of a diff.
type fileDiff struct {
	base, change string // workspace paths; "" for /dev/null
	hunks        []hunk
}

// A hunk is one "@@ -a,b +c,d @@" and its lines.
type hunk struct {
	baseStart, baseLines, changeStart, changeLines int
	// kinds are its lines' first characters (' ', '-', '+') in order;
	// texts, the rest of each.
	kinds []byte
	texts []string
}

// hunkHeader is a hunk's first line; a count left out is 1.
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseDiff reads a unified diff: git's ("diff --git", "--- a/PATH",
// "+++ b/PATH", "rename from", "rename to", "@@ -a,b +c,d @@", its lines)
// or diff -u's, with or without git's a/ and b/. A path must be the
// workspace's (clean, relative, no ".."); a hunk whose lines do not match
// its counts, or a combined diff ("@@@"), is refused with its line.
func parseDiff(data []byte) (*Diff, error) {
	if len(data) > MaxDiffBytes {
		return nil, fmt.Errorf("a diff of %d bytes, over the limit of %d", len(data), MaxDiffBytes)
	}
	p := diffParser{d: &Diff{byChange: map[string]*fileDiff{}, byBase: map[string]*fileDiff{}}}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(nil, maxDiffLine)
	for s.Scan() {
		p.line++
		if err := p.take(s.Text()); err != nil {
			return nil, fmt.Errorf("diff:%d: %w", p.line, err)
		}
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("diff:%d: %w", p.line+1, err)
	}
	if err := p.end(); err != nil {
		return nil, fmt.Errorf("diff:%d: %w", p.line, err)
	}
	return p.d, nil
}

// diffParser is parseDiff's state between lines.
type diffParser struct {
	d    *Diff
	line int
	file *fileDiff // the file whose header or hunks are being read
	// open is the hunk being read, with the lines it still expects.
	open                 *hunk
	baseLeft, changeLeft int
	renameFrom, renameTo string
	haveMinus, havePlus  bool
	minusPath, plusPath  string
}

// take reads one line.
func (p *diffParser) take(text string) error {
	if p.open != nil && (p.baseLeft > 0 || p.changeLeft > 0) {
		return p.hunkLine(text)
	}
	p.open = nil
	switch {
	case strings.HasPrefix(text, "diff --git ") || strings.HasPrefix(text, "diff "):
		return p.startFile()
	case strings.HasPrefix(text, "@@@"):
		return errors.New("a combined diff (@@@): want a diff of two trees")
	case strings.HasPrefix(text, "@@"):
		return p.startHunk(text)
	case strings.HasPrefix(text, "--- "):
		if p.haveMinus && p.havePlus || p.file != nil && len(p.file.hunks) > 0 {
			if err := p.startFile(); err != nil {
				return err
			}
		}
		p.haveMinus, p.minusPath = true, diffPath(text[4:], "a/")
	case strings.HasPrefix(text, "+++ "):
		p.havePlus, p.plusPath = true, diffPath(text[4:], "b/")
	case strings.HasPrefix(text, "rename from "):
		p.renameFrom = strings.TrimPrefix(text, "rename from ")
	case strings.HasPrefix(text, "rename to "):
		p.renameTo = strings.TrimPrefix(text, "rename to ")
	}
	return nil
}

// diffPath is a path of a "---" or "+++" line: its quotes undone (git
// quotes a name with unusual bytes), its date (diff -u's, after a tab)
// and git's prefix dropped; "" for /dev/null.
func diffPath(text, prefix string) string {
	if unquoted, err := strconv.Unquote(text); err == nil && strings.HasPrefix(text, `"`) {
		text = unquoted
	} else if name, _, ok := strings.Cut(text, "\t"); ok {
		text = name
	}
	if text == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(text, prefix)
}

// startFile ends the file being read, if any, and starts another.
func (p *diffParser) startFile() error {
	if err := p.end(); err != nil {
		return err
	}
	p.file, p.open = nil, nil
	p.renameFrom, p.renameTo = "", ""
	p.haveMinus, p.havePlus, p.minusPath, p.plusPath = false, false, "", ""
	return nil
}

// fileOf makes the file of the header read so far, at its first hunk.
func (p *diffParser) fileOf() (*fileDiff, error) {
	if p.file != nil {
		return p.file, nil
	}
	if !p.haveMinus || !p.havePlus {
		return nil, errors.New("a hunk before its file's --- and +++ lines")
	}
	f := &fileDiff{base: p.minusPath, change: p.plusPath}
	if err := p.add(f); err != nil {
		return nil, err
	}
	p.file = f
	return f, nil
}

// add adds a file of the diff, checking its paths.
func (p *diffParser) add(f *fileDiff) error {
	for _, name := range []string{f.base, f.change} {
		if name != "" && !workspacePath(name) {
			return fmt.Errorf("path %q: want a relative path of the workspace", name)
		}
	}
	switch {
	case f.base == "" && f.change == "":
		return errors.New("a file from /dev/null to /dev/null")
	case f.change != "" && p.d.byChange[f.change] != nil, f.base != "" && p.d.byBase[f.base] != nil:
		return fmt.Errorf("%s: a file twice in one diff", cmpOr(f.change, f.base))
	}
	p.d.files = append(p.d.files, f)
	if f.change != "" {
		p.d.byChange[f.change] = f
	}
	if f.base != "" {
		p.d.byBase[f.base] = f
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// workspacePath tells whether name is a clean relative path inside the
// workspace.
func workspacePath(name string) bool {
	return name != "." && path.Clean(name) == name && !path.IsAbs(name) && name != ".." && !strings.HasPrefix(name, "../")
}

// end ends the file being read: a hunk cut short is refused, and a pure
// rename (git's rename lines, no hunk) maps its lines one to one.
func (p *diffParser) end() error {
	if p.open != nil && (p.baseLeft > 0 || p.changeLeft > 0) {
		return fmt.Errorf("a hunk cut short: %d base and %d change lines missing", p.baseLeft, p.changeLeft)
	}
	if p.file == nil && p.renameFrom != "" && p.renameTo != "" {
		return p.add(&fileDiff{base: p.renameFrom, change: p.renameTo})
	}
	return nil
}

// startHunk reads a hunk's header.
func (p *diffParser) startHunk(text string) error {
	m := hunkHeader.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("%q: want @@ -a,b +c,d @@", text)
	}
	n := [4]int{}
	for i, field := range m[1:] {
		if field == "" {
			n[i] = 1
			continue
		}
		v, err := strconv.Atoi(field)
		if err != nil || v > maxLineNumber {
			return fmt.Errorf("%q: a line number over %d", text, maxLineNumber)
		}
		n[i] = v
	}
	f, err := p.fileOf()
	if err != nil {
		return err
	}
	h := hunk{baseStart: n[0], baseLines: n[1], changeStart: n[2], changeLines: n[3]}
	if err := h.follows(f.hunks); err != nil {
		return fmt.Errorf("%q: %w", text, err)
	}
	f.hunks = append(f.hunks, h)
	p.open = &f.hunks[len(f.hunks)-1]
	p.baseLeft, p.changeLeft = h.baseLines, h.changeLines
	return nil
}

// follows checks that h can follow hunks on both sides: a range that
// holds lines starts at line 1 or later (line 0 only names an empty range
// at the top), after the previous hunk's lines, or after the line an
// empty range sits behind; and the lines between hunks, which both sides
// share, have moved by what the hunks before added and removed. mapLine
// needs no less to map a line there and back.
func (h *hunk) follows(hunks []hunk) error {
	for _, s := range []side{baseSide, changeSide} {
		if h.count(s) > 0 && h.start(s) == 0 {
			return errors.New("lines from line 0: want 1 or later")
		}
		if k := len(hunks); k > 0 && h.start(s) < hunks[k-1].start(s)+max(hunks[k-1].count(s), 1) {
			return errors.New("hunks out of order or overlapping")
		}
	}
	shift := 0
	for i := range hunks {
		shift += hunks[i].changeLines - hunks[i].baseLines
	}
	if h.first(changeSide)-h.first(baseSide) != shift {
		return fmt.Errorf("the lines before it moved by %+d, not the %+d the hunks before add", h.first(changeSide)-h.first(baseSide), shift)
	}
	return nil
}

// first is the first line of side s the hunk's range holds, or the one
// an empty range sits before.
func (h *hunk) first(s side) int {
	if h.count(s) == 0 {
		return h.start(s) + 1
	}
	return h.start(s)
}

// hunkLine reads a line of the open hunk.
func (p *diffParser) hunkLine(text string) error {
	kind := byte(' ') // an empty context line may have lost its space
	if text != "" {
		kind = text[0]
	}
	switch {
	case kind == '\\': // "\ No newline at end of file"
		return nil
	case kind == ' ' && p.baseLeft > 0 && p.changeLeft > 0:
		p.baseLeft--
		p.changeLeft--
	case kind == '-' && p.baseLeft > 0:
		p.baseLeft--
	case kind == '+' && p.changeLeft > 0:
		p.changeLeft--
	default:
		return fmt.Errorf("%q: not a line the hunk has left (%d base, %d change)", text, p.baseLeft, p.changeLeft)
	}
	p.open.kinds = append(p.open.kinds, kind)
	p.open.texts = append(p.open.texts, strings.TrimPrefix(text, string(kind)))
	return nil
}

// A side is the base or the change.
type side int

const (
	baseSide side = iota
	changeSide
)

// start, count, and own are a hunk's range on one side, and the kind of
// line only that side has.
func (h *hunk) start(s side) int {
	if s == baseSide {
		return h.baseStart
	}
	return h.changeStart
}

func (h *hunk) count(s side) int {
	if s == baseSide {
		return h.baseLines
	}
	return h.changeLines
}

func own(s side) byte {
	if s == baseSide {
		return '-'
	}
	return '+'
}

// mapLine maps line n of side s of the file to the other side's: a line
// outside every hunk moves by the lines the hunks before it added and
// removed; a context line of a hunk to its pair. A line only s has (added
// or edited, or removed) maps to none: ok is false.
func (f *fileDiff) mapLine(s side, n int) (other int, ok bool) {
	shift := 0
	for i := range f.hunks {
		h := &f.hunks[i]
		start := h.first(s) // an empty range sits after its line
		if n < start {
			break
		}
		if n < start+h.count(s) {
			return h.pair(s, n)
		}
		shift += h.count(1-s) - h.count(s)
	}
	return n + shift, true
}

// pair is the other side's line of line n of side s inside the hunk.
func (h *hunk) pair(s side, n int) (int, bool) {
	at, other := h.start(s), h.start(1-s)
	for _, kind := range h.kinds {
		switch kind {
		case ' ':
			if at == n {
				return other, true
			}
			at++
			other++
		case own(s):
			if at == n {
				return 0, false
			}
			at++
		default:
			other++
		}
	}
	return 0, false
}

// changed tells whether line n of side s is one only that side has: added
// or edited in the change, removed from the base.
func (f *fileDiff) changed(s side, n int) bool {
	_, ok := f.mapLine(s, n)
	return !ok
}

// Files are the paths the diff touches, the change's (the base's for a
// file it deletes), in its order.
func (d *Diff) Files() []string {
	var names []string
	for _, f := range d.files {
		names = append(names, cmpOr(f.change, f.base))
	}
	return slices.Clip(names)
}

// Text is the text of a line as the diff shows it, named as a LineDelta
// names it: line of the change's file, a line the change added or edited
// or a context line; or, line being 0, baseLine of the base's, a line the
// change removed or edited. ok is false for a line the diff does not show
// (outside every hunk, or of a file it does not touch). The text is the
// change's, untrusted: whoever shows it escapes it.
func (d *Diff) Text(file string, line, baseLine uint64) (text string, ok bool) {
	f := d.byChange[file]
	if f == nil {
		f = d.byBase[file]
	}
	s, n := changeSide, line
	if line == 0 {
		s, n = baseSide, baseLine
	}
	if f == nil || n == 0 || n > maxLineNumber {
		return "", false
	}
	for i := range f.hunks {
		h := &f.hunks[i]
		at := uint64(h.start(s))
		for j, kind := range h.kinds {
			if kind != ' ' && kind != own(s) {
				continue
			}
			if at == n {
				return h.texts[j], true
			}
			at++
		}
	}
	return "", false
}
