package caught

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

// count reads a count's outputs.zip: its result and the line counts that
// explain figure (linecounts.OpenFigure), or, for "", the run's.
func count(t *testing.T, path, figure string) (*result.Result, *linecounts.File) {
	t.Helper()
	r, out, err := result.Read(runfile(path))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var f *linecounts.File
	if figure == "" {
		f, err = linecounts.Open(r, out)
	} else {
		f, err = linecounts.OpenFigure(r, out, figure)
	}
	if err != nil {
		t.Fatalf("%s: the line counts of %q: %v", path, figure, err)
	}
	return r, f
}

// loopEdit is the change that makes Spin's 1% more work a line of source,
// as the plus1pct variant's extra turns do: its loop's bound raised by a
// hundredth. It is a diff of spin.go as the counts name it (file), and
// the line it edits.
func loopEdit(t *testing.T, file string) (string, uint64) {
	t.Helper()
	data, err := os.ReadFile(runfile(*spinSource))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "func Spin(") })
	const loop = "\tfor i := 0; i < n; i++ {"
	at := slices.Index(lines[max(start, 0):], loop)
	if start < 0 || at < 0 {
		t.Fatalf("%s: no %q in func Spin", *spinSource, loop)
	}
	line := start + at + 1
	return fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d +%d @@\n-%s\n+\tfor i := 0; i < n+n/100; i++ {\n",
		file, file, file, file, line, line, loop), uint64(line)
}

// median is the median of values.
func median(values []float64) float64 {
	v := slices.Sorted(slices.Values(values))
	return v[len(v)/2]
}

// 1% more work in one testing.B function of a test of two is attributed,
// from each function's own line counts, to the line of that function that
// the change edited, and none of it to the other function: Stir's counts
// have no line of Spin's. The run's line counts, which add up both
// functions', would have put Spin's extra work in Stir's change too.
func TestOnePercentIsInItsFunctionsLine(t *testing.T) {
	if *baseCounts == "" {
		t.Skip("the count actions' outputs come from Bazel (BUILD.bazel's caught_test)")
	}
	spin := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	stir := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Stir")
	baseResult, spinBase := count(t, *baseCounts, spin)
	changeResult, spinChange := count(t, *plus1pctCounts, spin)
	var file string
	for _, r := range spinBase.Records {
		if strings.HasSuffix(r.File, "spinbench/spin.go") {
			file = r.File
		}
	}
	if file == "" {
		t.Fatalf("Spin's line counts have no line of spin.go: %+v", spinBase.Records)
	}
	patch, line := loopEdit(t, file)
	src := attribution.PatchSource([]byte(patch))

	a, err := attribution.Attribute(spinBase, spinChange, src, spin, true)
	if err != nil {
		t.Fatal(err)
	}
	moved := median(changeResult.Metric(spin).Values) - median(baseResult.Metric(spin).Values)
	own := a.Parts[attribution.ChangedLines].Delta() + a.Parts[attribution.EditedFunctions].Delta()
	t.Logf("%s: %+.1f an operation; its line counts %+d, %+d in the edited line and its function: %+v", spin, moved, a.Delta(), own, a.Parts)
	if moved < 30 || math.Abs(float64(a.Delta())-moved) > 0.25*moved {
		t.Errorf("%s's line counts moved %+d an operation, its figure %+.1f: want about the same, some 60", spin, a.Delta(), moved)
	}
	if a.Parts[attribution.ChangedLines].Delta() <= 0 || float64(own) < 0.9*float64(a.Delta()) {
		t.Errorf("%s: parts %+v; want most of %+d in the edited line %s:%d and its function", spin, a.Parts, a.Delta(), file, line)
	}
	if i := slices.IndexFunc(a.Lines, func(l attribution.LineDelta) bool { return l.Part == attribution.ChangedLines }); i < 0 ||
		a.Lines[i].File != file || a.Lines[i].Line != line || a.Lines[i].Delta() <= 0 {
		t.Errorf("%s: its changed lines %+v; want %s:%d, moved", spin, a.Lines, file, line)
	}

	_, stirBase := count(t, *baseCounts, stir)
	_, stirChange := count(t, *plus1pctCounts, stir)
	b, err := attribution.Attribute(stirBase, stirChange, src, stir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: its line counts %+d: %+v", stir, b.Delta(), b.Parts)
	if b.Parts[attribution.ChangedLines] != (attribution.Sums{}) || b.Parts[attribution.EditedFunctions] != (attribution.Sums{}) {
		t.Errorf("%s: parts %+v; want nothing in Spin's edited line or function", stir, b.Parts)
	}
	if b.Base == 0 || math.Abs(float64(b.Delta())) > 0.2*moved {
		t.Errorf("%s: %d → %d an operation; want its own work, unmoved", stir, b.Base, b.Change)
	}

	_, runBase := count(t, *baseCounts, "")
	_, runChange := count(t, *plus1pctCounts, "")
	mixed, err := attribution.Attribute(runBase, runChange, src, stir, true)
	if err != nil {
		t.Fatal(err)
	}
	if mixed.Parts[attribution.ChangedLines].Delta() <= 0 {
		t.Errorf("the run's line counts put %+v of Stir's change in Spin's edited line; want Spin's extra work", mixed.Parts)
	}
}
