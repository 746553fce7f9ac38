package docs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// blockFile is the file a fenced block says it is taken from: the second
// word of its info string (```starlark examples/consumer/WORKSPACE), or ""
// when it names none. The block must then be that file's text, lines one
// after the other (a part of the file, not all of it), so that what a
// chapter shows of a file is what the file says. A directory instead
// (```sh examples/consumer) says where the block's commands run: it must
// exist, and the labels they name are that directory's workspace's.
func blockFile(info string) string {
	words := strings.Fields(info)
	if len(words) < 2 || !strings.Contains(words[1], "/") {
		return ""
	}
	return words[1]
}

// otherWorkspace says whether a path is in a workspace of its own inside
// the checkout (examples/consumer, which .bazelignore keeps out of this
// one): its labels are that workspace's.
func otherWorkspace(path string) bool {
	return strings.HasPrefix(path, "examples/")
}

// checkBlockFiles returns a problem for each fenced block of doc that
// names a file which does not exist in t or does not hold the block's
// lines one after the other.
func checkBlockFiles(t tree, doc document) []problem {
	var problems []problem
	var block []string
	open, start := false, 0
	for i, line := range scan(doc.text) {
		file := blockFile(line.info)
		switch {
		case line.fence && !open:
			open, start, block = true, i+1, nil
		case line.fence:
			open = false
			if file == "" {
				continue
			}
			if p := checkBlockFile(t, file, block); p != "" {
				problems = append(problems, problem{doc.path, start, p})
			}
		case open:
			block = append(block, line.text)
		}
	}
	return problems
}

// checkBlockFile says what is wrong with a block taken from file, "" when
// nothing is.
func checkBlockFile(t tree, file string, block []string) string {
	if filepath.IsAbs(file) || strings.Contains(file, "..") {
		return fmt.Sprintf("a block taken from %s: name a file of the checkout, relative to its root", file)
	}
	text, err := t.read(file)
	if err != nil && t.exists(file) {
		return "" // a directory: the commands run there
	}
	if err != nil {
		return fmt.Sprintf("a block taken from %s, which does not exist", file)
	}
	if strings.TrimSpace(strings.Join(block, "")) == "" {
		return fmt.Sprintf("an empty block taken from %s", file)
	}
	if !holds(strings.Split(text, "\n"), block) {
		return fmt.Sprintf("a block taken from %s is not that file's text: copy the lines again, one after the other", file)
	}
	return ""
}

func TestBlockFiles(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		for _, p := range checkBlockFiles(dirTree(root), doc) {
			t.Error(p)
		}
	}
}

func TestChecksFindBlockFileProblems(t *testing.T) {
	tree := mapTree{"examples/consumer/BUILD.bazel": "load(\"@x//:y.bzl\", \"z\")\n\nz(\n    name = \"a\",\n    dep = \"//lib\",\n)\n"}
	doc := func(info string, lines ...string) document {
		return document{"docs/x.md", "# X\n\nText.\n\n```" + info + "\n" + strings.Join(lines, "\n") + "\n```\n\nMore.\n"}
	}
	for _, c := range []struct {
		name string
		doc  document
		want string
	}{
		{"the file's lines", doc("starlark examples/consumer/BUILD.bazel", "z(", `    name = "a",`, `    dep = "//lib",`, ")"), ""},
		{"no file named", doc("starlark", "anything()"), ""},
		{"a line changed", doc("starlark examples/consumer/BUILD.bazel", "z(", `    name = "b",`, ")"), "is not that file's text"},
		{"lines out of order", doc("starlark examples/consumer/BUILD.bazel", ")", "z("), "is not that file's text"},
		{"lines apart", doc("starlark examples/consumer/BUILD.bazel", "z(", ")"), "is not that file's text"},
		{"no such file", doc("starlark examples/consumer/WORKSPACE", "z("), "does not exist"},
		{"commands run in a directory", doc("sh examples/consumer", "bazel build //lib"), ""},
		{"no such directory", doc("sh examples/other", "bazel build //lib"), "does not exist"},
		{"outside the checkout", doc("starlark ../etc/passwd", "root"), "relative to its root"},
		{"empty", doc("starlark examples/consumer/BUILD.bazel"), "an empty block"},
	} {
		var got []string
		for _, p := range checkBlockFiles(tree, c.doc) {
			got = append(got, p.String())
		}
		all := strings.Join(got, "; ")
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(all, c.want) || !strings.HasPrefix(all, "docs/x.md:5: ")) {
			t.Errorf("%s: problems %q, want one at docs/x.md:5 saying %q", c.name, all, c.want)
		}
	}
	// The labels of a block taken from another workspace's file are that
	// workspace's: //lib is not looked for here. The same label in prose is.
	d := doc("starlark examples/consumer/BUILD.bazel", `    dep = "//lib",`)
	d.text += "See `//lib`.\n"
	var named []string
	for _, use := range labels(d) {
		named = append(named, fmt.Sprintf("%s:%d", use.label, use.line))
	}
	if strings.Join(named, " ") != "//lib:10" {
		t.Errorf("labels named: %q, want only the prose's //lib at line 10", named)
	}
}
