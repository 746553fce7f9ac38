// Package pgo makes and checks the CPU profiles that the Go compiler reads
// for profile-guided optimisation (-pgoprofile): it merges the profiles of
// several runs into one, and it finds the functions a profile names that a
// package's sources no longer declare, which is how a checked-in profile
// goes stale.
package pgo

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// maxProfileBytes bounds what ReadProfile reads: a CPU profile of one
// havlak run is a few kilobytes, and a merged one stays far below this.
const maxProfileBytes = 64 << 20

// ReadProfile reads and validates a pprof profile file.
func ReadProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxProfileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxProfileBytes)
	}
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Merge merges CPU profiles of runs of the same program into one, as
// `go tool pprof -proto` does: more samples, so the compiler's choice of hot
// calls depends less on one run's luck. It fails on a profile without
// samples, which the compiler would read as "nothing is hot".
func Merge(profiles []*profile.Profile) (*profile.Profile, error) {
	if len(profiles) == 0 {
		return nil, errors.New("no profiles to merge")
	}
	for i, p := range profiles {
		if len(p.Sample) == 0 {
			return nil, fmt.Errorf("profile %d has no samples", i+1)
		}
	}
	merged, err := profile.Merge(profiles)
	if err != nil {
		return nil, fmt.Errorf("merge profiles: %w", err)
	}
	return merged, nil
}

// Functions returns the names of the functions of package pkg (its import
// path as the linker spells it: "main" for a command) that the profile's
// samples pass through, inlined or not, sorted.
func Functions(p *profile.Profile, pkg string) []string {
	prefix := pkg + "."
	seen := map[string]bool{}
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function != nil && strings.HasPrefix(line.Function.Name, prefix) {
					seen[line.Function.Name] = true
				}
			}
		}
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Declared returns the functions and methods that Go source files declare,
// named as the compiler names their symbols in package pkg:
// "pkg.F", "pkg.T.M", "pkg.(*T).M", with the type parameters of a generic
// receiver left out.
func Declared(pkg string, paths []string) (map[string]bool, error) {
	fset := token.NewFileSet()
	declared := map[string]bool{}
	for _, path := range paths {
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			declared[pkg+"."+receiverPrefix(fn)+fn.Name.Name] = true
		}
	}
	return declared, nil
}

// receiverPrefix is "T." or "(*T)." for a method, "" for a function.
func receiverPrefix(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	typ := fn.Recv.List[0].Type
	pointer := false
	if star, ok := typ.(*ast.StarExpr); ok {
		pointer, typ = true, star.X
	}
	switch t := typ.(type) {
	case *ast.IndexExpr:
		typ = t.X
	case *ast.IndexListExpr:
		typ = t.X
	}
	name := "?"
	if ident, ok := typ.(*ast.Ident); ok {
		name = ident.Name
	}
	if pointer {
		return "(*" + name + ")."
	}
	return name + "."
}

// compilerSuffix matches what the compiler appends to the name of the
// function a symbol comes from: closures (.func1, and .1 inside them),
// deferred and go'd calls' wrappers, numbered init functions.
var compilerSuffix = regexp.MustCompile(`(\.(func|deferwrap|gowrap)?[0-9]+)+$`)

// typeArgs matches the type arguments of an instantiated generic.
var typeArgs = regexp.MustCompile(`\[[^\[\]]*\]`)

// declaringFunction is the source function behind a profile's function
// name: closures, wrappers and instantiations fold into it.
func declaringFunction(name string) string {
	for {
		folded := typeArgs.ReplaceAllString(name, "")
		if folded == name {
			break
		}
		name = folded
	}
	return compilerSuffix.ReplaceAllString(name, "")
}

// Stale returns the functions of package pkg that the profile names and
// the declared set (from Declared) lacks: renamed, removed or moved since
// the profile was taken, so the compiler no longer finds them. The
// package's initialisation, pkg.init, is the compiler's own and never
// stale.
func Stale(p *profile.Profile, pkg string, declared map[string]bool) []string {
	var stale []string
	for _, name := range Functions(p, pkg) {
		fn := declaringFunction(name)
		if fn == pkg+".init" || declared[fn] {
			continue
		}
		stale = append(stale, name)
	}
	return stale
}
