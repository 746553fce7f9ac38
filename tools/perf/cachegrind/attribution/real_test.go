package attribution

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
}

// runReal builds source with g++ -O2 -g in a directory of its own, as a
// C++ benchmark is built, runs it under Cachegrind and keeps its line
// counts, the directory stripped from its file names.
func runReal(t *testing.T, source string) realRun {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prog.cc"), []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("g++", "-O2", "-g", "-o", "prog", "prog.cc")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out) // a missing compiler is no pass
	}
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cachegrind.out")
	run := cachegrind.Run{Valgrind: valgrind, Program: filepath.Join(dir, "prog"), Out: out, Stdout: io.Discard}
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
	return realRun{dir, lines}
}

// realDiff is diff -u's diff of the two sides' prog.cc, as git names
// them.
func realDiff(t *testing.T, base, change realRun) *Diff {
	t.Helper()
	cmd := exec.Command("diff", "-u", "--label", "a/prog.cc", "--label", "b/prog.cc",
		filepath.Join(base.dir, "prog.cc"), filepath.Join(change.dir, "prog.cc"))
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("diff -u: %v, want exit status 1 (the files differ)", err)
	}
	return diff(t, string(out))
}

// attributeReal attributes the instructions' change from base to change.
func attributeReal(t *testing.T, base, change realRun) *Attribution {
	t.Helper()
	w, err := FigureWeight(cachegrind.MetricInstructions, false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Attribute(base.lines, change.lines, realDiff(t, base, change), w)
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
