package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxAdoptingBlock is the most lines the WORKSPACE block a consumer copies
// may have.
const maxAdoptingBlock = 15

// adoptingBlock returns the first fenced starlark block after the heading
// "## The WORKSPACE block" of docs/adopting.md's text, without its fences.
func adoptingBlock(text string) ([]string, bool) {
	var block []string
	inSection, inBlock := false, false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case inBlock && strings.TrimSpace(line) == "```":
			return block, true
		case inBlock:
			block = append(block, line)
		case strings.HasPrefix(line, "## "):
			inSection = line == "## The WORKSPACE block"
		case inSection && strings.TrimSpace(line) == "```starlark":
			inBlock = true
		}
	}
	return nil, false
}

// checkAdoptingBlock says what is wrong with the chapter's block against
// the example consumer's WORKSPACE: it must be there, line for line and
// one after the other, and be at most maxAdoptingBlock lines.
func checkAdoptingBlock(chapter, workspace string) []string {
	block, ok := adoptingBlock(chapter)
	if !ok || len(block) == 0 {
		return []string{`docs/adopting.md has no starlark block under "## The WORKSPACE block"`}
	}
	var problems []string
	if len(block) > maxAdoptingBlock {
		problems = append(problems, fmt.Sprintf("docs/adopting.md's WORKSPACE block has %d lines, more than %d",
			len(block), maxAdoptingBlock))
	}
	if !holds(strings.Split(workspace, "\n"), block) {
		problems = append(problems, "examples/consumer/WORKSPACE does not have docs/adopting.md's "+
			"WORKSPACE block as written: the chapter must show the lines the example uses")
	}
	return problems
}

func TestAdoptingBlock(t *testing.T) {
	root := checkout(t)
	chapter, err := os.ReadFile(filepath.Join(root, "docs", "adopting.md"))
	if err != nil {
		t.Fatal(err)
	}
	workspace, err := os.ReadFile(filepath.Join(root, "examples", "consumer", "WORKSPACE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkAdoptingBlock(string(chapter), string(workspace)) {
		t.Error(p)
	}
}

func TestChecksFindAdoptingBlockProblems(t *testing.T) {
	block := []string{"local_repository(", `    name = "havlak_lab",`, `    path = "../..",`, ")", "", "havlak_lab_setup()"}
	chapter := func(lines []string) string {
		return "# Adopting\n\n## The WORKSPACE block\n\nText.\n\n```starlark\n" +
			strings.Join(lines, "\n") + "\n```\n\n## Next\n\n```starlark\nother()\n```\n"
	}
	workspace := `workspace(name = "consumer")` + "\n\n" + strings.Join(block, "\n") + "\n"
	long := append(append([]string{}, block...), strings.Split(strings.Repeat("x()\n", maxAdoptingBlock), "\n")...)
	for _, c := range []struct {
		name, chapter, workspace, want string
	}{
		{"the same lines", chapter(block), workspace, ""},
		{"a line the example lacks", chapter(append([]string{"load(\"@x//:y.bzl\", \"z\")"}, block...)), workspace, "does not have"},
		{"out of order", chapter([]string{block[5], block[0]}), workspace, "does not have"},
		{"too long", chapter(long), workspace + strings.Join(long, "\n"), "more than 15"},
		{"no block", "# Adopting\n\n## The WORKSPACE block\n\nNone.\n", workspace, "has no starlark block"},
		{"a block of another section", "## Other\n\n```starlark\n" + strings.Join(block, "\n") + "\n```\n", workspace, "has no starlark block"},
	} {
		problems := checkAdoptingBlock(c.chapter, c.workspace)
		got := strings.Join(problems, "; ")
		if c.want == "" && len(problems) > 0 || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, got, c.want)
		}
	}
}
