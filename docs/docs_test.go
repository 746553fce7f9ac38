// Package docs holds the lab's chapters; its test checks README.md,
// every chapter (docs/*.md) and every record (docs/records/*.md) against
// the checkout: every record (a dated measurement, under docs/records/)
// is linked from a chapter or the README, every relative link leads to a file or
// directory that exists (and to a heading that exists, for a #fragment),
// and every Bazel label they name (//pkg:target, //pkg, //pkg/...) exists.
// In the README and the chapters no line of prose is over 100 characters
// (proseExempt says which lines are not prose), and every fenced diff
// block still applies to the checkout, unless it is marked as an
// illustration of a change never meant to be applied (```diff
// illustration).
//
// Labels are checked through the genquery :doc_labels (BUILD.bazel): its
// list is the set of labels the documents name, and the build fails when
// one of them does not exist; this test fails when a document names a
// label the list lacks, or the list keeps one no document names. A label
// whose package or name has a word in capitals of three letters or more
// (//benchmarks:STAGE, NAME_quick_test) is a placeholder, and a label in a
// fenced diff block an example of a change: neither is checked. A pattern
// (//go/..., //benchmarks:all) must name a directory of the checkout.
package docs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var (
	workspaceFile = flag.String("workspace", "", "the WORKSPACE file (a runfile): its real directory is the checkout")
	labelsFile    = flag.String("labels", "", "the genquery output: the documents' labels that exist, one a line")
)

// A document is a Markdown file of the checkout: its path relative to the
// checkout's root, with / separators, and its text.
type document struct {
	path, text string
}

// tree is what a check needs of the checkout: whether a path (relative to
// its root, / separators) exists, and a Markdown file's text.
type tree interface {
	exists(path string) bool
	read(path string) (string, error)
}

// dirTree is the checkout on disk.
type dirTree string

func (d dirTree) exists(path string) bool {
	_, err := os.Stat(filepath.Join(string(d), filepath.FromSlash(path)))
	return err == nil
}

func (d dirTree) read(path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(string(d), filepath.FromSlash(path)))
	return string(b), err
}

// mapTree is a made-up checkout for the checks' own tests: file paths to
// their text; a directory exists when a file is under it.
type mapTree map[string]string

func (m mapTree) exists(path string) bool {
	if _, ok := m[path]; ok {
		return true
	}
	for name := range m {
		if strings.HasPrefix(name, strings.TrimSuffix(path, "/")+"/") {
			return true
		}
	}
	return false
}

func (m mapTree) read(path string) (string, error) {
	if text, ok := m[path]; ok {
		return text, nil
	}
	return "", fmt.Errorf("%s: no such file", path)
}

// A problem is one finding, at a document's line.
type problem struct {
	path string
	line int
	what string
}

func (p problem) String() string {
	if p.line == 0 {
		return fmt.Sprintf("%s: %s", p.path, p.what)
	}
	return fmt.Sprintf("%s:%d: %s", p.path, p.line, p.what)
}

// linkPattern finds Markdown inline links and images: [text](target) and
// [text](target "title").
var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// checkLinks returns the relative links of doc that lead nowhere in t: a
// missing file or directory, a path outside the checkout, or a #fragment
// that is no heading of the Markdown file it names.
func checkLinks(t tree, doc document) []problem {
	var problems []problem
	for i, line := range strings.Split(doc.text, "\n") {
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if isURL(target) {
				continue
			}
			report := func(format string, args ...any) {
				problems = append(problems, problem{doc.path, i + 1, fmt.Sprintf("link %s: ", target) + fmt.Sprintf(format, args...)})
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := doc.path
			if file != "" {
				if strings.HasPrefix(file, "/") {
					report("an absolute path; links are relative to the file")
					continue
				}
				path = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc.path), file)))
				if path == ".." || strings.HasPrefix(path, "../") {
					report("leads out of the checkout")
					continue
				}
				if !t.exists(path) {
					report("%s does not exist", path)
					continue
				}
			}
			if fragment == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				report("a #fragment of a file that is not Markdown")
				continue
			}
			text, err := t.read(path)
			if err != nil {
				report("%v", err)
				continue
			}
			if !anchors(text)[fragment] {
				report("%s has no heading whose anchor is #%s", path, fragment)
			}
		}
	}
	return problems
}

// linkedFiles returns the files of the checkout that doc's relative links
// lead to (paths relative to its root, / separators), whether they exist
// or not: checkLinks says which do not.
func linkedFiles(doc document) map[string]bool {
	linked := map[string]bool{}
	for _, m := range linkPattern.FindAllStringSubmatch(doc.text, -1) {
		file, _, _ := strings.Cut(m[1], "#")
		if isURL(m[1]) || file == "" || strings.HasPrefix(file, "/") {
			continue
		}
		linked[filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc.path), file)))] = true
	}
	return linked
}

// isRecord says whether a document is a record (docs/records/*.md) rather
// than the README or a chapter.
func isRecord(path string) bool {
	return strings.HasPrefix(path, "docs/records/")
}

// checkRecordsLinked returns the records no chapter (nor the README)
// links to: a record is read from the chapter whose measurements it keeps.
// A chapter has no size limit: it is as long as its subject needs, and
// dated runs go to records because they are records, not to save bytes.
func checkRecordsLinked(docs []document) []problem {
	var problems []problem
	linked := map[string]bool{}
	for _, doc := range docs {
		if !isRecord(doc.path) {
			for path := range linkedFiles(doc) {
				linked[path] = true
			}
		}
	}
	for _, doc := range docs {
		if isRecord(doc.path) && !linked[doc.path] {
			problems = append(problems, problem{doc.path, 0, "a record no chapter links to: link it from the chapter whose measurements it keeps"})
		}
	}
	return problems
}

// isURL says whether a link target has a scheme (https:, mailto:, ...).
func isURL(target string) bool {
	scheme, _, ok := strings.Cut(target, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/#.") {
		return false
	}
	for _, r := range scheme {
		if !unicode.IsLetter(r) && r != '+' && r != '-' {
			return false
		}
	}
	return true
}

// anchors are the fragments a Markdown file's headings answer to, as
// GitHub makes them: lower case, punctuation dropped (not - or _), spaces
// as hyphens, and -1, -2, ... after a repeated one. Headings inside fenced
// code blocks are not headings.
func anchors(text string) map[string]bool {
	found := map[string]bool{}
	seen := map[string]int{}
	for _, line := range scan(text) {
		if line.fenced || !strings.HasPrefix(line.text, "#") {
			continue
		}
		title := strings.TrimLeft(line.text, "#")
		if !strings.HasPrefix(title, " ") {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				slug.WriteRune(r)
			case r == ' ':
				slug.WriteRune('-')
			}
		}
		anchor := slug.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		found[anchor] = true
	}
	return found
}

// labelPattern finds Bazel labels of the main repository: //pkg:name,
// //pkg, //:name, //pkg/... . The // must start the text or follow a space,
// a quote, a bracket or = (so that grpc://host:port and @repo//pkg are no
// labels).
var labelPattern = regexp.MustCompile("(?:^|[\\s`'\"(\\[=,])(//[A-Za-z0-9_./-]*(?::[A-Za-z0-9_.+,=@~-]+)?)")

// placeholder finds a word of capitals that stands for a name
// (//benchmarks:STAGE, NAME_quick_test).
var placeholder = regexp.MustCompile(`[A-Z]{3,}`)

// A labelUse is a label a document names, where it names it.
type labelUse struct {
	label string // as written, less trailing punctuation
	path  string
	line  int
}

// labels returns the labels doc names, placeholders left out, and those
// of a fenced diff block too: a diff shows a change not yet made (a new
// stage's package). A block taken from a file of another workspace
// (blockFile: the example consumer's) names that workspace's labels, not
// this one's: blockFile's own check holds it to that file instead.
func labels(doc document) []labelUse {
	var uses []labelUse
	for i, line := range scan(doc.text) {
		if line.fenced && (line.isDiff() || otherWorkspace(blockFile(line.info))) {
			continue
		}
		for _, m := range labelPattern.FindAllStringSubmatch(line.text, -1) {
			label := m[1]
			if !strings.HasSuffix(label, "/...") {
				label = strings.TrimRight(label, ".,:")
			}
			if placeholder.MatchString(label) {
				continue
			}
			uses = append(uses, labelUse{label, doc.path, i + 1})
		}
	}
	return uses
}

// patternDir says whether a label is a target pattern (//pkg/...,
// //pkg:all, //pkg:*, //pkg:all-targets) and, if so, the directory it
// starts from ("" for the root).
func patternDir(label string) (string, bool) {
	pkg, name, _ := strings.Cut(strings.TrimPrefix(label, "//"), ":")
	switch name {
	case "", "all", "*", "all-targets":
	default:
		return "", false
	}
	if dir, ok := strings.CutSuffix(pkg, "/..."); ok {
		return dir, true
	}
	if pkg == "..." {
		return "", true
	}
	return pkg, name != ""
}

// canonical writes a label as Bazel query prints it: //pkg:name, with the
// name of a bare //pkg being its last path element.
func canonical(label string) string {
	if strings.Contains(label, ":") {
		return label
	}
	pkg := strings.TrimSuffix(label, "/")
	return pkg + ":" + pkg[strings.LastIndex(pkg, "/")+1:]
}

// checkLabels compares the labels the documents name with known, the
// genquery's answer (the listed labels, all of which exist): every label
// named must be known, every known one named; a pattern's directory must
// exist in t.
func checkLabels(t tree, docs []document, known map[string]bool) []problem {
	var problems []problem
	named := map[string]bool{}
	for _, doc := range docs {
		for _, use := range labels(doc) {
			if dir, ok := patternDir(use.label); ok {
				if dir != "" && !t.exists(dir) {
					problems = append(problems, problem{use.path, use.line, fmt.Sprintf("%s: no directory %s in the checkout", use.label, dir)})
				}
				continue
			}
			label := canonical(use.label)
			named[label] = true
			if !known[label] {
				problems = append(problems, problem{use.path, use.line, fmt.Sprintf(
					"%s is not among the labels docs/BUILD.bazel lists (DOC_LABELS): add it there, and the build checks that it exists", use.label)})
			}
		}
	}
	var unnamed []string
	for label := range known {
		if !named[label] {
			unnamed = append(unnamed, label)
		}
	}
	sort.Strings(unnamed)
	for _, label := range unnamed {
		problems = append(problems, problem{"docs/BUILD.bazel", 0, fmt.Sprintf("DOC_LABELS lists %s, which no document names: remove it", label)})
	}
	return problems
}

// An mdLine is a line of a Markdown file as the checks see it: its text,
// and whether it is inside a fenced code block (the fences included), with
// that block's info string ("sh", "diff illustration", ...).
type mdLine struct {
	text   string
	fenced bool
	fence  bool // a fence itself, opening or closing a block
	info   string
}

// isDiff says whether the line is in a fenced diff block: one whose info
// string's first word is diff, as GitHub picks a block's language.
func (l mdLine) isDiff() bool {
	language, _, _ := strings.Cut(l.info, " ")
	return language == "diff"
}

// illustration is the word that marks a fenced diff block as an
// illustration of a change never meant to be applied to the tree
// (```diff illustration): such a block is not checked against the tree.
// Every other diff block must still apply, so that an example of how to
// make a change is tested by the checkout it describes.
const illustration = "illustration"

// scan splits a Markdown file into lines, i of the result being line i+1,
// each knowing the fenced code block it is in. A fence may be indented (a
// code block inside a list item).
func scan(text string) []mdLine {
	var lines []mdLine
	fenced, info := false, ""
	for _, text := range strings.Split(text, "\n") {
		rest, isFence := strings.CutPrefix(strings.TrimLeft(text, " "), "```")
		switch {
		case isFence && !fenced:
			fenced, info = true, strings.TrimSpace(rest)
			lines = append(lines, mdLine{text, true, true, info})
		case isFence:
			lines = append(lines, mdLine{text, true, true, info})
			fenced, info = false, ""
		default:
			lines = append(lines, mdLine{text, fenced, false, info})
		}
	}
	return lines
}

// maxProseLine is the longest a line of prose of the README or a chapter
// may be, in characters: a reader follows a paragraph in an editor and a
// diff as well as on GitHub, where long lines wrap wherever they must.
const maxProseLine = 100

// linkDefinition matches a Markdown link reference definition,
// "[label]: target".
var linkDefinition = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*\S+`)

// proseExempt says why a line is not prose that the line limit holds, or
// "": a fenced code block (commands and output are quoted as they are), a
// table row (Markdown has no way to wrap one), a heading (a heading is a
// line), a link reference definition, and a single word (a long URL or
// path, which no wrapping shortens). Nothing else is exempt; a long
// command in running text goes into a code block.
func proseExempt(line mdLine) string {
	trimmed := strings.TrimSpace(line.text)
	switch {
	case line.fenced:
		return "a code block"
	case strings.HasPrefix(trimmed, "|"):
		return "a table row"
	case strings.HasPrefix(trimmed, "#"):
		return "a heading"
	case linkDefinition.MatchString(line.text):
		return "a link reference definition"
	case !strings.ContainsAny(strings.TrimLeft(trimmed, "-*+ "), " \t"):
		return "a single word"
	}
	return ""
}

// checkProseLines returns the lines of prose of doc over maxProseLine
// characters.
func checkProseLines(doc document) []problem {
	var problems []problem
	for i, line := range scan(doc.text) {
		if n := utf8.RuneCountInString(line.text); n > maxProseLine && proseExempt(line) == "" {
			problems = append(problems, problem{doc.path, i + 1, fmt.Sprintf(
				"a line of prose of %d characters, over %d: wrap it (code blocks, tables, headings, link definitions and single words are exempt)", n, maxProseLine)})
		}
	}
	return problems
}

// A diffBlock is a fenced diff block of a document: the line of its
// opening fence, whether it is marked an illustration, and its lines.
type diffBlock struct {
	line         int
	illustration bool
	lines        []string
}

// diffBlocks returns doc's fenced diff blocks.
func diffBlocks(doc document) []diffBlock {
	var blocks []diffBlock
	open := false
	for i, line := range scan(doc.text) {
		switch {
		case !line.isDiff():
		case line.fence && !open:
			open = true
			blocks = append(blocks, diffBlock{line: i + 1, illustration: slices.Contains(strings.Fields(line.info), illustration)})
		case line.fence:
			open = false
		default:
			b := &blocks[len(blocks)-1]
			b.lines = append(b.lines, line.text)
		}
	}
	return blocks
}

// A fileDiff is what a diff block changes in one file: the file's path in
// the checkout ("" for /dev/null: a file the diff creates or deletes),
// the path it has after the change, and its hunks.
type fileDiff struct {
	from, to string
	hunks    []hunk
}

// A hunk is one hunk of a fileDiff: the document's line of its @@
// header, its old side (its context and removed lines, in order) and its
// new side (its context and added lines).
type hunk struct {
	line     int
	old, new []string
}

// hunkHeader matches a hunk's header, "@@ -START,COUNT +START,COUNT @@";
// a COUNT left out is 1.
var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// parseDiff reads a diff block as git writes one: for each file a line
// "--- a/PATH" (or /dev/null) and a line "+++ b/PATH", then its hunks, each
// a header whose counts its lines must match, so that `git apply` would
// take it. Lines "diff --git" and "index" may come before a file's. What
// is not such a diff is returned as problems at the document's lines.
func parseDiff(path string, b diffBlock) ([]fileDiff, []problem) {
	var files []fileDiff
	var problems []problem
	var oldLeft, newLeft int // of the current hunk's lines
	for i := 0; i < len(b.lines); i++ {
		text, at := b.lines[i], b.line+1+i
		report := func(format string, args ...any) {
			problems = append(problems, problem{path, at, "diff block: " + fmt.Sprintf(format, args...)})
		}
		if oldLeft > 0 || newLeft > 0 {
			h := &files[len(files)-1].hunks[len(files[len(files)-1].hunks)-1]
			kind, line := byte(' '), ""
			if text != "" {
				kind, line = text[0], text[1:]
			}
			switch {
			case kind == ' ' && oldLeft > 0 && newLeft > 0:
				h.old, h.new = append(h.old, line), append(h.new, line)
				oldLeft, newLeft = oldLeft-1, newLeft-1
			case kind == '-' && oldLeft > 0:
				h.old = append(h.old, line)
				oldLeft--
			case kind == '+' && newLeft > 0:
				h.new = append(h.new, line)
				newLeft--
			case kind == '\\': // "\ No newline at end of file"
			default:
				report("a hunk's lines do not match its header's counts (%d old and %d new lines still owed at %q)", oldLeft, newLeft, text)
				return files, problems
			}
			continue
		}
		switch {
		case strings.HasPrefix(text, "diff --git ") || strings.HasPrefix(text, "index "):
		case strings.HasPrefix(text, "--- "):
			if i+1 == len(b.lines) || !strings.HasPrefix(b.lines[i+1], "+++ ") {
				report("%q is not followed by a line \"+++ b/PATH\"", text)
				return files, problems
			}
			from, okFrom := diffPath(strings.TrimPrefix(text, "--- "), "a/")
			to, okTo := diffPath(strings.TrimPrefix(b.lines[i+1], "+++ "), "b/")
			if !okFrom || !okTo || from == "" && to == "" {
				report("%q and %q: want --- a/PATH (or /dev/null) and +++ b/PATH, paths from the checkout's root", text, b.lines[i+1])
				return files, problems
			}
			files = append(files, fileDiff{from: from, to: to})
			i++
		case strings.HasPrefix(text, "@@"):
			m := hunkHeader.FindStringSubmatch(text)
			if m == nil || len(files) == 0 {
				report("%q is not a hunk's header of a file (--- a/PATH, +++ b/PATH, then @@ -START,COUNT +START,COUNT @@)", text)
				return files, problems
			}
			oldLeft, newLeft = count(m[1]), count(m[2])
			f := &files[len(files)-1]
			f.hunks = append(f.hunks, hunk{line: at})
		case len(files) == 0:
			report("%s", noFile)
			return files, problems
		default:
			report("%q is outside any hunk: a hunk has as many lines as its header counts", text)
			return files, problems
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		problems = append(problems, problem{path, b.line + 1 + len(b.lines), fmt.Sprintf(
			"diff block: it ends with %d old and %d new lines of its last hunk missing", oldLeft, newLeft)})
	}
	return files, problems
}

// noFile is what is wrong with a diff block that names no file.
const noFile = "it names no file (--- a/PATH, +++ b/PATH): give it one, so that the test can check " +
	"it still applies, or mark it ```diff " + illustration

// diffPath is the checkout path of a diff's file name after its prefix
// (a/ or b/), "" for /dev/null; false for a name that is neither, or
// that leads out of the checkout.
func diffPath(name, prefix string) (string, bool) {
	name, _, _ = strings.Cut(name, "\t") // git may add a timestamp
	if name == "/dev/null" {
		return "", true
	}
	path, ok := strings.CutPrefix(name, prefix)
	if !ok || path == "" || strings.HasPrefix(path, "/") {
		return "", false
	}
	path = filepath.ToSlash(filepath.Clean(path))
	return path, path != ".." && !strings.HasPrefix(path, "../")
}

// count is a hunk header's COUNT, 1 when left out.
func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s) // the pattern matched digits
	return n
}

// checkDiffs returns the fenced diff blocks of doc that no longer apply
// to t, as `git apply --check` would judge them, but for where a hunk
// starts (a hunk applies wherever its old side is, as git lets it when
// the file moved around it): a file the diff changes must exist and hold
// each hunk's old side, its context and removed lines, one after the
// other; a file it creates must not exist; and a hunk whose new side the
// file holds already was applied, so the diff shows a change made long
// ago. A block marked an illustration (```diff illustration) is not
// checked; a block without a file is a problem, not an illustration.
func checkDiffs(t tree, doc document) []problem {
	var problems []problem
	for _, b := range diffBlocks(doc) {
		if b.illustration {
			continue
		}
		files, found := parseDiff(doc.path, b)
		problems = append(problems, found...)
		if len(files) == 0 && len(found) == 0 {
			problems = append(problems, problem{doc.path, b.line, "diff block: " + noFile})
		}
		for _, f := range files {
			if f.from == "" {
				if t.exists(f.to) {
					problems = append(problems, problem{doc.path, b.line, fmt.Sprintf("diff block: it creates %s, which exists already", f.to)})
				}
				continue
			}
			text, err := t.read(f.from)
			if err != nil {
				problems = append(problems, problem{doc.path, b.line, fmt.Sprintf("diff block: it changes %s, which the checkout lacks", f.from)})
				continue
			}
			lines := strings.Split(text, "\n")
			for _, h := range f.hunks {
				switch {
				case !slices.Equal(h.old, h.new) && holds(lines, h.new):
					problems = append(problems, problem{doc.path, h.line, fmt.Sprintf(
						"diff block: %s holds this hunk's new side already: the change was made; show one still to make, or mark the block ```diff %s", f.from, illustration)})
				case !holds(lines, h.old):
					problems = append(problems, problem{doc.path, h.line, fmt.Sprintf(
						"diff block: this hunk no longer applies: %s", missing(lines, h.old, f.from))})
				}
			}
		}
	}
	return problems
}

// holds says whether lines hold want one after the other, trailing spaces
// aside (Markdown editors drop them from an empty context line).
func holds(lines, want []string) bool {
	trim := func(s string) string { return strings.TrimRight(s, " \t\r") }
	for start := 0; start+len(want) <= len(lines); start++ {
		if slices.EqualFunc(lines[start:start+len(want)], want, func(a, b string) bool { return trim(a) == trim(b) }) {
			return true
		}
	}
	return false
}

// missing says what of a hunk's old side path lacks: the first of its
// lines the file has nowhere, or that they are not in that order.
func missing(lines, old []string, path string) string {
	for _, line := range old {
		if !holds(lines, []string{line}) {
			return fmt.Sprintf("%s has no line %q", path, line)
		}
	}
	return fmt.Sprintf("%s has its context and removed lines, but not one after the other", path)
}

// documents reads README.md, docs/*.md and docs/records/*.md from the
// checkout at root.
func documents(root string) ([]document, error) {
	var paths []string
	for _, pattern := range []string{filepath.Join(root, "docs", "*.md"), filepath.Join(root, "docs", "records", "*.md")} {
		found, err := filepath.Glob(pattern)
		if err != nil {
			return nil, err
		}
		paths = append(paths, found...)
	}
	sort.Strings(paths)
	paths = append([]string{filepath.Join(root, "README.md")}, paths...)
	var docs []document
	for _, path := range paths {
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil, err
		}
		docs = append(docs, document{filepath.ToSlash(rel), string(text)})
	}
	return docs, nil
}

// runfile resolves a $(rootpath) argument: a go_test runs in its
// package's directory, not in the runfiles' root.
func runfile(path string) string {
	if filepath.IsAbs(path) || os.Getenv("TEST_SRCDIR") == "" {
		return path
	}
	return filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"), path)
}

// checkout is the checkout's root, from -workspace.
func checkout(t *testing.T) string {
	t.Helper()
	if *workspaceFile == "" {
		t.Fatal("run me with -workspace=WORKSPACE (bazel test //docs:docs_test gives it)")
	}
	real, err := filepath.EvalSymlinks(runfile(*workspaceFile))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(real)
}

func TestRecordsLinked(t *testing.T) {
	docs, err := documents(checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkRecordsLinked(docs) {
		t.Error(p)
	}
}

func TestLinks(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		for _, p := range checkLinks(dirTree(root), doc) {
			t.Error(p)
		}
	}
}

func TestLabels(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	if *labelsFile == "" {
		t.Fatal("run me with -labels=FILE (bazel test //docs:docs_test gives it)")
	}
	out, err := os.ReadFile(runfile(*labelsFile))
	if err != nil {
		t.Fatal(err)
	}
	// The genquery cannot name this test, which depends on it; that it
	// runs shows it exists.
	known := map[string]bool{"//docs:docs_test": true}
	for _, line := range strings.Fields(string(out)) {
		known[line] = true
	}
	if len(known) == 1 {
		t.Fatalf("%s lists no labels", *labelsFile)
	}
	for _, p := range checkLabels(dirTree(root), docs, known) {
		t.Error(p)
	}
}

// TestProseLines holds the README and the chapters to lines of prose of at
// most maxProseLine characters; the records are generated, and left as
// their generators write them.
func TestProseLines(t *testing.T) {
	docs, err := documents(checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		if !isRecord(doc.path) {
			for _, p := range checkProseLines(doc) {
				t.Error(p)
			}
		}
	}
}

// TestDiffsApply holds every fenced diff block of the documents to the
// checkout: each still applies, or says it is an illustration.
func TestDiffsApply(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		for _, p := range checkDiffs(dirTree(root), doc) {
			t.Error(p)
		}
	}
}

// The checks themselves, on a made-up checkout: each finds what it must
// and nothing else.
func TestChecksFindProblems(t *testing.T) {
	files := mapTree{
		"README.md": strings.Join([]string{
			"# Lab",
			"## Two commands",
			"See [measuring](docs/measuring.md), [its runs](docs/measuring.md#timed-runs),",
			"[the tools](tools/), [the article](https://go.dev/blog/pprof), [above](#two-commands).",
			"Broken: [gone](docs/gone.md), [no such part](docs/measuring.md#nowhere), [out](../x.md), [here](#nowhere).",
			"`tools/bazel run //benchmarks:havlak6`, `//tools/bisect`, `bazel test //go/...`, `//nothere/...`, `//benchmarks:all`,",
			"--run_under=//tools/ci:where_test_ran, `//benchmarks:STAGE`, `//benchmarks:NAME_quick_test`,",
			"grpc://127.0.0.1:8980, @go_sdk//:bin/go and `//nope:nothing`.",
			"```diff",
			`+    _stage("havlak8", "//go/havlak8", "Go", 8, "flag"),`,
			"```",
			"```sh",
			"tools/bazel test //tools/ci:where_test_ran",
			"```",
		}, "\n"),
		"docs/measuring.md":        "# Measuring\n\n```sh\n# not a heading\n```\n\n## Timed runs\n",
		"tools/bisect/BUILD.bazel": "",
		"go/havlak6/BUILD.bazel":   "",
		"benchmarks/BUILD.bazel":   "",
	}
	readme := document{"README.md", files["README.md"]}

	var got []string
	for _, p := range checkLinks(files, readme) {
		got = append(got, p.String())
	}
	want := []string{
		"README.md:5: link docs/gone.md: docs/gone.md does not exist",
		"README.md:5: link docs/measuring.md#nowhere: docs/measuring.md has no heading whose anchor is #nowhere",
		"README.md:5: link ../x.md: leads out of the checkout",
		"README.md:5: link #nowhere: README.md has no heading whose anchor is #nowhere",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("link problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var named []string
	for _, use := range labels(readme) {
		named = append(named, use.label)
	}
	wantNamed := []string{"//benchmarks:havlak6", "//tools/bisect", "//go/...", "//nothere/...", "//benchmarks:all", "//tools/ci:where_test_ran", "//nope:nothing", "//tools/ci:where_test_ran"}
	if strings.Join(named, " ") != strings.Join(wantNamed, " ") {
		t.Errorf("labels named: %q, want %q", named, wantNamed)
	}

	// What the genquery would answer: the listed labels that exist, one
	// of them (//tools/perf:defs.bzl) named by no document.
	known := map[string]bool{
		"//benchmarks:havlak6":      true,
		"//tools/bisect:bisect":     true,
		"//tools/ci:where_test_ran": true,
		"//tools/perf:defs.bzl":     true,
	}
	got = nil
	for _, p := range checkLabels(files, []document{readme}, known) {
		got = append(got, p.String())
	}
	want = []string{
		"README.md:6: //nothere/...: no directory nothere in the checkout",
		"README.md:8: //nope:nothing is not among the labels docs/BUILD.bazel lists (DOC_LABELS): add it there, and the build checks that it exists",
		"docs/BUILD.bazel: DOC_LABELS lists //tools/perf:defs.bzl, which no document names: remove it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("label problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The records check on made-up documents: a long chapter is no problem, a
// record no chapter links to is; a record's own links do not count.
func TestChecksFindUnlinkedRecords(t *testing.T) {
	docs := []document{
		{"README.md", strings.Repeat("x", 20000) + "\n[noise](docs/noise.md)\n"},
		{"docs/noise.md", "# Noise\n\nThe runs: [records/noise.md](records/noise.md#runs).\n"},
		{"docs/scale.md", strings.Repeat("y", 20000)},
		{"docs/records/noise.md", "# Runs\n\nBack: [the chapter](../noise.md).\n"},
		{"docs/records/orphan.md", "# Nobody links here\n"},
		{"docs/records/backlinked.md", "# Only a record links here\n"},
	}
	docs[3].text += "[b](backlinked.md)\n"
	var got []string
	for _, p := range checkRecordsLinked(docs) {
		got = append(got, p.String())
	}
	want := []string{
		"docs/records/orphan.md: a record no chapter links to: link it from the chapter whose measurements it keeps",
		"docs/records/backlinked.md: a record no chapter links to: link it from the chapter whose measurements it keeps",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if linked := linkedFiles(docs[3]); !linked["docs/noise.md"] || !linked["docs/records/backlinked.md"] || len(linked) != 2 {
		t.Errorf("a record's links: %v, want docs/noise.md and docs/records/backlinked.md", linked)
	}
}

func TestAnchors(t *testing.T) {
	text := "# havlak-lab\n## Toolchains, and why they are pinned\n## `tools/ci`: CI's own tests\n## Notes\n## Notes\n"
	got := anchors(text)
	for _, want := range []string{"havlak-lab", "toolchains-and-why-they-are-pinned", "toolsci-cis-own-tests", "notes", "notes-1"} {
		if !got[want] {
			t.Errorf("no anchor #%s among %v", want, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("anchors %v, want 5", got)
	}
}

// The line check on a made-up chapter: only prose over 100 characters is
// found, counted in characters, not bytes; code blocks (an indented one
// in a list too), tables, headings, link definitions and a single long
// word are not prose.
func TestChecksFindLongProseLines(t *testing.T) {
	long := strings.Repeat("word ", 20) + "over" // 104 characters
	doc := document{"docs/x.md", strings.Join([]string{
		"# " + long,
		"",
		long,
		strings.Repeat("é", 50) + " " + strings.Repeat("ü", 49), // 100 characters, 200 bytes
		"| " + long + " |",
		"- an item:",
		"  ```",
		"  " + long,
		"  ```",
		"```diff",
		"+" + long,
		"```",
		"[label]: https://example.com/" + strings.Repeat("p", 100),
		"  https://example.com/" + strings.Repeat("p", 100),
		"- " + long,
	}, "\n")}
	var got []string
	for _, p := range checkProseLines(doc) {
		got = append(got, p.String())
	}
	what := "a line of prose of %d characters, over 100: wrap it (code blocks, tables, headings, link definitions and single words are exempt)"
	want := []string{
		"docs/x.md:3: " + fmt.Sprintf(what, 104),
		"docs/x.md:15: " + fmt.Sprintf(what, 106),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("long lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The diff check on a made-up checkout: a diff that applies, and one
// marked an illustration, pass; one whose context moved on, one made
// already, one of a file that is gone, one creating a file that exists,
// one whose header miscounts and one naming no file are each found.
func TestChecksFindStaleDiffs(t *testing.T) {
	files := mapTree{
		"benchmarks/stages.bzl": "STAGES = [\n    stage(\"a\"),\n    stage(\"b\", fast = True),\n]\n",
	}
	fence := func(info string, lines ...string) string {
		return strings.Join(append(append([]string{"```" + info}, lines...), "```"), "\n")
	}
	header := []string{"--- a/benchmarks/stages.bzl", "+++ b/benchmarks/stages.bzl"}
	doc := document{"docs/x.md", strings.Join([]string{
		"Applies:",
		fence("diff", append(header, "@@ -2,2 +2,3 @@", `     stage("a"),`, `     stage("b", fast = True),`, `+    stage("c"),`)...),
		"Moved on:",
		fence("diff", append(header, "@@ -2,2 +2,3 @@", `     stage("a"),`, `     stage("b"),`, `+    stage("c"),`)...),
		"Made already:",
		fence("diff", append(header, "@@ -1,2 +1,3 @@", " STAGES = [", `+    stage("a"),`, `     stage("b", fast = True),`)...),
		"An illustration:",
		fence("diff illustration", `+    stage("z"),`),
		"Gone, and new:",
		fence("diff", "--- a/gone.bzl", "+++ b/gone.bzl", "@@ -1 +1 @@", "-x", "+y",
			"--- /dev/null", "+++ b/benchmarks/stages.bzl", "@@ -0,0 +1 @@", "+x"),
		"Miscounted:",
		fence("diff", append(header, "@@ -2,2 +2,3 @@", `     stage("a"),`, `+    stage("c"),`)...),
		"No file:",
		fence("diff", `+    stage("c"),`),
		fence("diff", "--- a/../x", "+++ b/../x"),
	}, "\n")}
	var got []string
	for _, p := range checkDiffs(files, doc) {
		got = append(got, p.String())
	}
	want := []string{
		`docs/x.md:14: diff block: this hunk no longer applies: benchmarks/stages.bzl has no line "    stage(\"b\"),"`,
		"docs/x.md:23: diff block: benchmarks/stages.bzl holds this hunk's new side already: the change was made; show one still to make, or mark the block ```diff illustration",
		"docs/x.md:33: diff block: it changes gone.bzl, which the checkout lacks",
		"docs/x.md:33: diff block: it creates benchmarks/stages.bzl, which exists already",
		"docs/x.md:51: diff block: it ends with 1 old and 1 new lines of its last hunk missing",
		"docs/x.md:54: diff block: it names no file (--- a/PATH, +++ b/PATH): give it one, so that the test can check it still applies, or mark it ```diff illustration",
		`docs/x.md:57: diff block: "--- a/../x" and "+++ b/../x": want --- a/PATH (or /dev/null) and +++ b/PATH, paths from the checkout's root`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
