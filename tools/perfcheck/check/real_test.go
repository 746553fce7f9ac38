package check

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// realProgram is a small C++ program the real test changes, as the
// attribution library's own real tests do: sums of squares over 20,000
// numbers.
const realProgram = `#include <cstdio>
#include <cstdlib>

static long squares(const int* v, int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    sum += static_cast<long>(v[i]) * v[i];
  }
  return sum;
}

int main() {
  int n = 20000;
  int* v = static_cast<int*>(malloc(sizeof(int) * n));
  for (int i = 0; i < n; i++) {
    v[i] = (i * 7919) % 1000;
  }
  printf("%ld\n", squares(v, n));
  free(v);
  return 0;
}
`

// realCount builds source with g++ -O2 -g in dir, as a C++ benchmark is
// built, counts it under Cachegrind, and is its result as a count action
// keeps it: its instructions, and its line counts among its outputs.
func realCount(t *testing.T, dir, source string) Measured {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
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
	counts, err := cachegrind.Run{Valgrind: valgrind, Program: filepath.Join(dir, "prog"), Out: out, Stdout: io.Discard}.Count()
	if err != nil {
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
	kept, err := lines.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	m := withLines("sums_cc", string(kept), map[string]float64{cachegrind.MetricInstructions: float64(counts.Total)})
	m.Metrics[0].Values = append(m.Metrics[0].Values, float64(counts.Total)) // exact: two runs, one count
	return m
}

// realDiff is diff -u's diff of two sides' prog.cc, as git names them.
func realDiff(t *testing.T, base, change string) *attribution.Source {
	t.Helper()
	out, err := exec.Command("diff", "-u", "--label", "a/prog.cc", "--label", "b/prog.cc",
		filepath.Join(base, "prog.cc"), filepath.Join(change, "prog.cc")).Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("diff -u: %v, want exit status 1 (the files differ)", err)
	}
	return attribution.PatchSource(out)
}

// The check's comment on a real program with a real change, counted by
// Cachegrind on both sides: an extra loop fails the gate, as the rule
// says, and the comment says that 90% at least of its instructions are in
// the loop's lines, with them; a comment that only shifts the lines after
// it moves no instruction, and the comment attributes nothing.
func TestRealCommentSaysWhereItWent(t *testing.T) {
	dir := t.TempDir()
	base := realCount(t, filepath.Join(dir, "base"), realProgram)
	loop := realCount(t, filepath.Join(dir, "loop"), strings.Replace(realProgram, "  return sum;\n", `  for (int i = 0; i < n; i++) {
    sum ^= static_cast<long>(v[i]) << (i % 7);
  }
  return sum;
`, 1))
	bases, changes := map[string]Measured{"sums_cc": base}, map[string]Measured{"sums_cc": loop}
	s := compareSides(t, bases, changes)
	attributed, err := Attribute(s, bases, changes, realDiff(t, filepath.Join(dir, "base"), filepath.Join(dir, "loop")))
	if err != nil || len(attributed) != 1 {
		t.Fatalf("%+v, %v: want one attribution", attributed, err)
	}
	a := attributed[0]
	if in := a.Parts[attribution.ChangedLines].Delta(); a.Delta() <= 0 || 10*in < 9*a.Delta() {
		t.Errorf("an extra loop: %+d of %+d instructions in its lines, want 90%% at least", in, a.Delta())
	}
	var b strings.Builder
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "sums_cc"}}, Attributions: attributed}, summary.Pair{}, CommentLimit)
	text := b.String()
	_, where, _ := strings.Cut(text, "**Where the changes went**")
	line := ""
	if lines := strings.Split(where, "\n"); len(lines) > 2 {
		line = lines[2]
	}
	m := regexp.MustCompile("^[*][*]sums_cc[*][*] [+][0-9,]+ instructions: ([0-9]+)% in lines the change added or edited, `prog.cc:[0-9]+–[0-9]+`").FindStringSubmatch(line)
	share := 0
	if m != nil {
		share, _ = strconv.Atoi(m[1])
	}
	if s.Benchmarks[0].Outcome != verdict.Regressed || share < 90 ||
		!strings.Contains(where, "sum ^= static_cast<long>(v[i]) << (i % 7);") {
		t.Errorf("the comment:\n%s", text)
	}

	shifted := realCount(t, filepath.Join(dir, "shifted"), strings.Replace(realProgram, "int main() {", "// main sums the squares.\nint main() {", 1))
	changes = map[string]Measured{"sums_cc": shifted}
	s = compareSides(t, bases, changes)
	attributed, err = Attribute(s, bases, changes, realDiff(t, filepath.Join(dir, "base"), filepath.Join(dir, "shifted")))
	if err != nil || len(attributed) != 0 || s.Benchmarks[0].Outcome != verdict.Unchanged {
		t.Errorf("a comment: %+v, %v, %s; want nothing moved, nothing attributed", attributed, err, s.Benchmarks[0].Outcome)
	}
}
