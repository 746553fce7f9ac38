// Package lint holds the lab's checks of its own code. Its layers test
// holds every import of the non-test Go code under tools/ and internal/ to
// the layers that layers.txt declares, as the Go tree's go/build/deps_test.go
// holds the standard library's: the table is the one owner of who may import
// whom, and docs/architecture.md explains it.
package lint

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var workspaceFile = flag.String("workspace", "", "the WORKSPACE file (a runfile): its real directory is the checkout; without it, the module around the working directory")

// tableFile is the layers table, read from the checkout like the code it
// holds, so that both are of one tree.
const tableFile = "tools/lint/layers.txt"

// roots are the folders whose code the table places.
var roots = []string{"internal", "tools"}

// A layer is one row of floors: its name and its package patterns.
type layer struct {
	name     string
	patterns []string
}

// A pkg is one folder's non-test package, as its files' import clauses say.
type pkg struct {
	dir     string // relative to the checkout, slash-separated
	name    string // its package clause
	imports []fileImport
}

// A fileImport is one import of one file, both named as a reader finds them.
type fileImport struct {
	file string // relative to the checkout
	path string // the import path, as written
}

func TestLayers(t *testing.T) {
	problems := checkTree(t, checkout(t))
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Logf("the layers are declared in %s; docs/architecture.md tells what each holds", tableFile)
	}
}

// TestLayersCatch shows the check failing on a house built wrong: an import
// up a layer, one into a command's folder, one that no row places, a
// package on two rows, a row that names no package, a command below the
// top. A row may place a package outside tools/ and internal/ that the code
// imports (go/placed/lib here).
func TestLayersCatch(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) { writeFile(t, root, name, text) }
	write("go.mod", "module example.com/lab\n\ngo 1.21\n")
	write("internal/files/files.go", "package files\n\nimport \"example.com/lab/tools/model\"\n")
	write("tools/model/model.go", "package model\n\nimport (\n\t_ \"example.com/lab/go/bench\"\n\t_ \"example.com/lab/go/placed/lib\"\n\t_ \"example.com/lab/internal/files\"\n)\n")
	write("tools/model/model_test.go", "package model\n\nimport _ \"example.com/lab/tools/cmd\"\n")
	write("tools/model/testdata/fake.go", "package fake\n\nimport _ \"example.com/lab/tools/cmd\"\n")
	write("tools/cmd/main.go", "package main\n\nimport _ \"example.com/lab/tools/cmd/inside\"\n")
	write("tools/cmd/inside/inside.go", "package inside\n\nimport _ \"example.com/lab/tools/model\"\n")
	write("tools/other/main.go", "package main\n\nimport (\n\t\"fmt\"\n\t_ \"example.com/lab/tools/cmd/inside\"\n)\n")
	write("tools/stray/stray.go", "package stray\n")
	write("tools/lowcmd/main.go", "package main\n")
	write("tools/lint/layers.txt", `# a comment
layer base
internal/...
layer programs
go/placed/...
layer model
tools/model
tools/gone/...
tools/lowcmd
layer commands
tools/cmd/...
tools/cmd/inside
tools/other
`)
	got := checkTree(t, root)
	want := []string{
		"internal/files/files.go imports example.com/lab/tools/model: layer base may not import layer model, which stands above it",
		"tools/cmd/inside: rows tools/cmd/..., tools/cmd/inside of tools/lint/layers.txt all name it: a package stands on one row",
		"tools/lint/layers.txt: row tools/gone/... names no package",
		"tools/lowcmd is a command (package main) but stands in layer model, not in the top layer commands",
		"tools/model/model.go imports example.com/lab/go/bench, which no row of tools/lint/layers.txt places: add one to the layer it belongs to",
		"tools/other/main.go imports example.com/lab/tools/cmd/inside, inside the folder of the command tools/cmd: only that folder's own packages may import it; move it to a library's folder",
		"tools/stray: no row of tools/lint/layers.txt names this package: add it to the layer it belongs to",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadTableRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"a row before any layer": "internal/...\n",
		"a layer twice":          "layer base\ninternal/...\nlayer base\ntools/x\n",
		"an empty layer":         "layer base\nlayer model\ntools/x\n",
		"a row twice":            "layer base\ninternal/...\nlayer model\ninternal/...\n",
		"a row with two words":   "layer base\ninternal/... tools/x\n",
		"no layer":               "# nothing\n",
		"a layer without a name": "layer\n",
	} {
		path := filepath.Join(t.TempDir(), "layers.txt")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readTable(path); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// writeFile writes text to the file name (slash-separated) under root,
// making its folders.
func writeFile(t *testing.T, root, name, text string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkTree reads the table, the module and the packages of the checkout
// at root, and checks them.
func checkTree(t *testing.T, root string) []string {
	t.Helper()
	table, err := readTable(filepath.Join(root, filepath.FromSlash(tableFile)))
	if err != nil {
		t.Fatal(err)
	}
	module, err := modulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := readPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	return check(table, module, pkgs)
}

// check returns every way in which pkgs break the table, sorted: a package
// on no row or on two, a row on no package, an import of a higher layer or
// of a package the table does not place, an import into a command's folder
// from outside it, a command below the top layer.
func check(table []layer, module string, pkgs map[string]*pkg) []string {
	var problems []string
	problem := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// rowsOf finds the rows that name dir, and the layer of the last.
	used := map[string]bool{}
	rowsOf := func(dir string) (rows []string, at int) {
		for i, l := range table {
			for _, pattern := range l.patterns {
				if matches(pattern, dir) {
					rows = append(rows, pattern)
					used[pattern] = true
					at = i
				}
			}
		}
		return rows, at
	}

	layerOf := map[string]int{}
	var commands []string
	for dir, p := range pkgs {
		rows, at := rowsOf(dir)
		switch len(rows) {
		case 0:
			problem("%s: no row of %s names this package: add it to the layer it belongs to", dir, tableFile)
		case 1:
			layerOf[dir] = at
		default:
			problem("%s: rows %s of %s all name it: a package stands on one row", dir, strings.Join(rows, ", "), tableFile)
		}
		if p.name == "main" {
			commands = append(commands, dir)
			if len(rows) == 1 && at != len(table)-1 {
				problem("%s is a command (package main) but stands in layer %s, not in the top layer %s", dir, table[at].name, table[len(table)-1].name)
			}
		}
	}

	for dir, p := range pkgs {
		for _, imp := range p.imports {
			target, ok := strings.CutPrefix(imp.path, module+"/")
			if !ok {
				continue // the standard library's or another module's
			}
			to, toOK := layerOf[target]
			if _, read := pkgs[target]; !read {
				// Outside tools/ and internal/ (the benchmarks' code, say):
				// a row places it where its importers may reach it.
				rows, at := rowsOf(target)
				switch len(rows) {
				case 0:
					problem("%s imports %s, which no row of %s places: add one to the layer it belongs to", imp.file, imp.path, tableFile)
				case 1:
				default:
					problem("%s imports %s, which rows %s of %s all place: it needs one", imp.file, imp.path, strings.Join(rows, ", "), tableFile)
				}
				to, toOK = at, len(rows) == 1
			}
			from, fromOK := layerOf[dir]
			if fromOK && toOK && to > from {
				problem("%s imports %s: layer %s may not import layer %s, which stands above it", imp.file, imp.path, table[from].name, table[to].name)
			}
			for _, command := range commands {
				if matches(command+"/...", target) && !matches(command+"/...", dir) {
					problem("%s imports %s, inside the folder of the command %s: only that folder's own packages may import it; move it to a library's folder", imp.file, imp.path, command)
				}
			}
		}
	}

	for _, l := range table {
		for _, pattern := range l.patterns {
			if !used[pattern] {
				problem("%s: row %s names no package", tableFile, pattern)
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// matches says whether a row names the package in dir: the folder itself,
// or with "/..." the folder and every folder below it.
func matches(pattern, dir string) bool {
	if folder, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dir == folder || strings.HasPrefix(dir, folder+"/")
	}
	return dir == pattern
}

// readTable reads the layers table, refusing what it cannot read as one:
// a row outside a layer, a layer named twice or holding no row, a row twice.
func readTable(path string) ([]layer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var table []layer
	seen := map[string]bool{}
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		line := strings.TrimSpace(lines.Text())
		fields := strings.Fields(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case fields[0] == "layer":
			if len(fields) != 2 {
				return nil, fmt.Errorf("%s:%d: want \"layer NAME\", got %q", path, n, line)
			}
			if seen["layer "+fields[1]] {
				return nil, fmt.Errorf("%s:%d: layer %s declared twice", path, n, fields[1])
			}
			seen["layer "+fields[1]] = true
			table = append(table, layer{name: fields[1]})
		case len(table) == 0:
			return nil, fmt.Errorf("%s:%d: row %q before any layer", path, n, line)
		case len(fields) != 1:
			return nil, fmt.Errorf("%s:%d: want one package pattern a row, got %q", path, n, line)
		case seen[line]:
			return nil, fmt.Errorf("%s:%d: row %s written twice", path, n, line)
		default:
			seen[line] = true
			last := &table[len(table)-1]
			last.patterns = append(last.patterns, line)
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(table) == 0 {
		return nil, fmt.Errorf("%s: declares no layer", path)
	}
	for _, l := range table {
		if len(l.patterns) == 0 {
			return nil, fmt.Errorf("%s: layer %s holds no row", path, l.name)
		}
	}
	return table, nil
}

// readPackages reads the import clauses of every non-test Go file under
// roots, a folder at a time. It passes over testdata (fixtures, not the
// lab's code), folders Go itself ignores (a leading "." or "_") and
// another module's folder (its own go.mod: it cannot import the lab).
func readPackages(root string) (map[string]*pkg, error) {
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	for _, top := range roots {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == top {
					return nil
				}
				name := d.Name()
				if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				} else if !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				return nil
			}
			if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			dir := filepath.ToSlash(filepath.Dir(rel))
			p := pkgs[dir]
			if p == nil {
				p = &pkg{dir: dir, name: f.Name.Name}
				pkgs[dir] = p
			}
			if p.name != f.Name.Name {
				return fmt.Errorf("%s: package %s beside package %s in one folder: the table places folders", rel, f.Name.Name, p.name)
			}
			for _, spec := range f.Imports {
				importPath, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return fmt.Errorf("%s: import %s: %v", rel, spec.Path.Value, err)
				}
				p.imports = append(p.imports, fileImport{file: rel, path: importPath})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s: no Go package under %s", root, strings.Join(roots, ", "))
	}
	return pkgs, nil
}

// modulePath is the module line of the checkout's go.mod: the prefix that
// marks an import as one of the lab's packages.
func modulePath(root string) (string, error) {
	text, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(text), "\n") {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(path), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: go.mod has no module line", root)
}

// checkout is the checkout's root: the WORKSPACE runfile's real directory
// under Bazel, else the folder of the go.mod around the working directory
// (go test runs in this package's folder).
func checkout(t *testing.T) string {
	t.Helper()
	if *workspaceFile != "" {
		path := *workspaceFile
		if !filepath.IsAbs(path) && os.Getenv("TEST_SRCDIR") != "" {
			// A go_test runs in its package's directory, not in the
			// runfiles' root that $(rootpath) is relative to.
			path = filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"), path)
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(real)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory: run me with -workspace=WORKSPACE (bazel test //tools/lint:lint_test gives it)")
		}
		dir = parent
	}
}
