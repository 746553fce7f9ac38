package attribution

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// realBase is a small C++ program the real tests change: sums of squares
// and a count of even numbers over 20,000 numbers.
const realBase = `// A small program for the attribution's test.
#include <cstdio>
#include <cstdlib>

static long squares(const int* v, int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    sum += static_cast<long>(v[i]) * v[i];
  }
  return sum;
}

static long evens(const int* v, int n) {
  long count = 0;
  for (int i = 0; i < n; i++) {
    count += (v[i] & 1) == 0;
  }
  return count;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  int* v = static_cast<int*>(malloc(sizeof(int) * n));
  for (int i = 0; i < n; i++) {
    v[i] = (i * 7919) % 1000;
  }
  printf("%ld %ld\n", squares(v, n), evens(v, n));
  free(v);
  return 0;
}
`

// realRun is one side of a real test: the program's line counts and its
// source's directory.
type realRun struct {
	dir   string
	lines *linecounts.File
	name  string // the source's file name
}

// runReal builds source with g++ -O2 -g in a directory of its own, as a
// C++ benchmark is built, runs it under Cachegrind and keeps its line
// counts, the directory stripped from its file names.
func runReal(t *testing.T, source string) realRun {
	return runBuilt(t, "prog.cc", source, false, "g++", "-O2", "-g", "-o", "prog", "prog.cc")
}

// runRealGo is runReal's for a Go program, run with the environment a Go
// benchmark's counts have (cachegrind.GoEnv), built by $GO (Bazel's SDK,
// which BUILD.bazel passes) or the go command that runs the test.
func runRealGo(t *testing.T, source string) realRun {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	// Bazel's $(rootpath) is relative to the workspace's runfiles root,
	// not to the package's directory a Go test runs in.
	if root := filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE")); !filepath.IsAbs(goCmd) && os.Getenv("TEST_SRCDIR") != "" {
		goCmd = filepath.Join(root, goCmd)
	}
	goCmd, err := filepath.Abs(goCmd) // the build runs in its directory
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("GOCACHE") == "" && os.Getenv("HOME") == "" {
		t.Setenv("GOCACHE", t.TempDir()) // a Bazel test has no home
	}
	return runBuilt(t, "prog.go", source, true, goCmd, "build", "-o", "prog", "prog.go")
}

// runBuilt writes source to name in a directory of its own, builds prog
// there with build and runs it under Cachegrind.
func runBuilt(t *testing.T, name, source string, goProgram bool, build ...string) realRun {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(build[0], build[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=off", "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build[0], err, out) // a missing compiler is no pass
	}
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cachegrind.out")
	run := cachegrind.Run{Valgrind: valgrind, Program: filepath.Join(dir, "prog"), Out: out, Stdout: io.Discard, GoProgram: goProgram}
	if _, err := run.Count(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := linecounts.FromCachegrind(bytes.NewReader(data), out, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return realRun{dir, lines, name}
}

// realDiff is diff -u's diff of the two sides' prog.cc, as git names
// them.
func realDiff(t *testing.T, base, change realRun) *Diff {
	t.Helper()
	cmd := exec.Command("diff", "-u", "--label", "a/"+base.name, "--label", "b/"+change.name,
		filepath.Join(base.dir, base.name), filepath.Join(change.dir, change.name))
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("diff -u: %v, want exit status 1 (the files differ)", err)
	}
	return diff(t, string(out))
}

// attributeReal attributes the instructions' change from base to change,
// a Go program's own (cachegrind.MetricOwnInstructions, the figure a Go
// benchmark gates).
func attributeReal(t *testing.T, base, change realRun) *Attribution {
	t.Helper()
	figure := cachegrind.MetricInstructions
	if strings.HasSuffix(base.name, ".go") {
		figure = cachegrind.MetricOwnInstructions
	}
	w, err := figureWeight(figure, figure == cachegrind.MetricOwnInstructions)
	if err != nil {
		t.Fatal(err)
	}
	a, err := attribute(base.lines, change.lines, realDiff(t, base, change), w)
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, a)
	for p, s := range a.Parts {
		t.Logf("%v: %+d", Part(p), s.Delta())
	}
	for _, l := range a.Lines[:min(len(a.Lines), 5)] {
		t.Logf("%s:%d (base %d) %v: %d → %d", l.File, l.Line, l.BaseLine, l.Part, l.Base, l.Change)
	}
	return a
}

// The real tests build a program and change it as the regression suite's
// patches do, then run both under Cachegrind: an extra loop lands in the
// lines that add it, a comment that shifts the lines after it lands
// nowhere in the change.
func TestRealExtraWork(t *testing.T) {
	base := runReal(t, realBase)
	loop := runReal(t, strings.Replace(realBase, `    sum += static_cast<long>(v[i]) * v[i];
  }
`, `    sum += static_cast<long>(v[i]) * v[i];
  }
  for (int i = 0; i < n; i++) {
    sum ^= static_cast<long>(v[i]) << (i % 7);
  }
`, 1))
	a := attributeReal(t, base, loop)
	if a.Delta() <= 0 {
		t.Fatalf("an extra loop: %+d instructions, want more", a.Delta())
	}
	if in := a.Parts[ChangedLines].Delta(); 10*in < 9*a.Delta() {
		t.Errorf("an extra loop: %+d of %+d instructions in its lines, want 90%% at least", in, a.Delta())
	}
	if l := a.Lines[0]; l.File != "prog.cc" || l.Part != ChangedLines || l.Line < 10 || l.Line > 12 {
		t.Errorf("the line that moved most: %+v, want one of the loop's, prog.cc:10-12", l)
	}
}

func TestRealNeutral(t *testing.T) {
	base := runReal(t, realBase)
	shifted := runReal(t, strings.Replace(realBase, "static long evens(", "// evens counts the even numbers.\nstatic long evens(", 1))
	a := attributeReal(t, base, shifted)
	if a.Parts[ChangedLines] != (Sums{}) || a.Parts[EditedFunctions] != (Sums{}) {
		t.Errorf("a comment: %+v in changed lines, %+v in edited functions; want nothing", a.Parts[ChangedLines], a.Parts[EditedFunctions])
	}
	for _, l := range a.Lines {
		if l.File == "prog.cc" && l.Delta() != 0 {
			t.Errorf("a comment moved prog.cc:%d (base %d): %d → %d; want its lines only shifted", l.Line, l.BaseLine, l.Base, l.Change)
		}
	}
}

// realGoBase is realBase's program in Go.
const realGoBase = `// A small program for the attribution's test.
package main

import "fmt"

func squares(v []int) int {
	sum := 0
	for _, x := range v {
		sum += x * x
	}
	return sum
}

func evens(v []int) int {
	count := 0
	for _, x := range v {
		if x&1 == 0 {
			count++
		}
	}
	return count
}

func main() {
	v := make([]int, 20000)
	for i := range v {
		v[i] = i * 7919 % 1000
	}
	fmt.Println(squares(v), evens(v))
}
`

// The same for a Go program, on its own instructions: the runtime's
// noise between two runs is set apart as the figure sets it apart. Go's
// compiler inlines squares into main and puts some of the added loop's
// instructions on a line of main it did not touch (measured with Go
// 1.27: 320,004 of 359,995 in the loop's lines, 40,000 on main's
// "v := make(...)"): they land in the edited functions' part, main being
// edited through the inlined loop, and the two parts hold all of it.
func TestRealGo(t *testing.T) {
	base := runRealGo(t, realGoBase)
	loop := runRealGo(t, strings.Replace(realGoBase, "\treturn sum\n", "\tfor i, x := range v {\n\t\tsum ^= x << (i % 7)\n\t}\n\treturn sum\n", 1))
	a := attributeReal(t, base, loop)
	in, edited := a.Parts[ChangedLines].Delta(), a.Parts[EditedFunctions].Delta()
	if a.Delta() <= 0 || 100*in < 80*a.Delta() || 100*(in+edited) < 99*a.Delta() {
		t.Errorf("an extra loop: %+d of %+d own instructions in its lines, %+d in edited functions; want 80%% and 99%% at least", in, a.Delta(), edited)
	}
	shifted := runRealGo(t, strings.Replace(realGoBase, "func evens(", "// evens counts the even numbers.\nfunc evens(", 1))
	a = attributeReal(t, base, shifted)
	if a.Parts[ChangedLines] != (Sums{}) || a.Parts[EditedFunctions] != (Sums{}) {
		t.Errorf("a comment: %+v in changed lines, %+v in edited functions; want nothing", a.Parts[ChangedLines], a.Parts[EditedFunctions])
	}
}
