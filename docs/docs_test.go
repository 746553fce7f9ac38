// Package docs holds the lab's chapters; its test checks README.md,
// every chapter (docs/*.md) and every record (docs/records/*.md) against
// the checkout: every record (a dated measurement, under docs/records/)
// is linked from a chapter or the README, every relative link leads to a file or
// directory that exists (and to a heading that exists, for a #fragment),
// and every Bazel label they name (//pkg:target, //pkg, //pkg/...) exists.
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
	"sort"
	"strings"
	"testing"
	"unicode"
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
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
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
// stage's package).
func labels(doc document) []labelUse {
	var uses []labelUse
	inDiff := false
	for i, line := range strings.Split(doc.text, "\n") {
		if fence, ok := strings.CutPrefix(line, "```"); ok {
			inDiff = !inDiff && strings.TrimSpace(fence) == "diff"
			continue
		}
		if inDiff {
			continue
		}
		for _, m := range labelPattern.FindAllStringSubmatch(line, -1) {
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
