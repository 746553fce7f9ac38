package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The sizes past which the tools' code is split by meaning: a reader takes
// in a function at once and a file in one sitting, and a command's main.go
// is its flags and one call of a library (docs/architecture.md).
const (
	maxFunctionLines = 100
	maxFileLines     = 800
	maxMainLines     = 250
)

// sizesRoot is the folder whose non-test Go code the sizes hold: the tools,
// other modules under it included. The programs the lab measures (go/) are
// written as their stages are, one idea each.
const sizesRoot = "tools"

func TestSizes(t *testing.T) {
	problems, err := checkSizes(checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestSizesCatch shows the check failing on each size it holds, and
// passing what is at the limit or is a test.
func TestSizesCatch(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) { writeFile(t, root, name, text) }
	// function returns a function of n lines, its braces included.
	function := func(name string, n int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", n-2) + "}\n"
	}
	write("tools/a/a.go", "package a\n\n"+function("long", maxFunctionLines+1)+function("atLimit", maxFunctionLines))
	write("tools/a/a_test.go", "package a\n\n"+function("longTest", 3*maxFunctionLines))
	write("tools/a/testdata/big.go", "package big\n\n"+function("fixture", 3*maxFunctionLines))
	write("tools/b/b.go", "package b\n"+strings.Repeat("\n", maxFileLines))
	write("tools/c/main.go", "package main\n"+strings.Repeat("\n", maxMainLines))
	write("tools/d/main.go", "package main\n"+strings.Repeat("\n", maxMainLines-1))

	got, err := checkSizes(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("tools/a/a.go:3: func long is %d lines, over %d: split it by meaning", maxFunctionLines+1, maxFunctionLines),
		fmt.Sprintf("tools/b/b.go: %d lines, over %d: split it by meaning", maxFileLines+1, maxFileLines),
		fmt.Sprintf("tools/c/main.go: %d lines, over %d for a command's main.go: move its work into a library", maxMainLines+1, maxMainLines),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkSizes returns, sorted, every non-test Go file under sizesRoot over
// its limit and every function declared there over maxFunctionLines.
func checkSizes(root string) ([]string, error) {
	var problems []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, sizesRoot), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		lines := fset.File(f.Pos()).LineCount()
		switch {
		case d.Name() == "main.go" && lines > maxMainLines:
			problems = append(problems, fmt.Sprintf("%s: %d lines, over %d for a command's main.go: move its work into a library", rel, lines, maxMainLines))
		case lines > maxFileLines:
			problems = append(problems, fmt.Sprintf("%s: %d lines, over %d: split it by meaning", rel, lines, maxFileLines))
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := end - start + 1; n > maxFunctionLines {
				problems = append(problems, fmt.Sprintf("%s:%d: func %s is %d lines, over %d: split it by meaning", rel, start, fn.Name.Name, n, maxFunctionLines))
			}
		}
		return nil
	})
	sort.Strings(problems)
	return problems, err
}
