package check

import (
	"strconv"
	"strings"
	"testing"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// lineCounts is a file of line counts from "FILE LINE FUNCTION IR" lines
// (instructions alone), or with the nine events of the cache simulation
// when cache, "FILE LINE FUNCTION IR I1MR": the others zero.
func lineCounts(t *testing.T, cache bool, text string) string {
	t.Helper()
	f := &linecounts.File{Cache: cache}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		fields := strings.Fields(l)
		line, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		r := linecounts.Record{File: fields[0], Line: line, Function: fields[2]}
		for i, at := range []int{cachegrind.Ir, cachegrind.I1mr}[:len(fields)-3] {
			if r.Events[at], err = strconv.ParseUint(fields[3+i], 10, 64); err != nil {
				t.Fatal(err)
			}
		}
		f.Records = append(f.Records, r)
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// withLines is a C++ program's result whose figures are values (figure:
// value) and whose outputs keep lines, its line counts ("": none).
func withLines(name, lines string, figures map[string]float64) Measured {
	r := &result.Result{Benchmark: result.Benchmark{Name: name, Study: "s", Language: "C++"}}
	for _, figure := range []string{cachegrind.MetricInstructions, cachegrind.MetricI1Misses} {
		if v, ok := figures[figure]; ok {
			r.Metrics = append(r.Metrics, result.Metric{Name: figure, Unit: "n", Values: []float64{v}, Gated: true, Threshold: verdict.CountThreshold, Exact: true})
		}
	}
	out := files{}
	if lines != "" {
		r.LineCounts = linecounts.FileName
		out[linecounts.FileName] = lines
	}
	return Measured{Result: r, Outputs: out}
}

// compareSides is the check's comparison of the benchmarks measured at
// both sides.
func compareSides(t *testing.T, base, change map[string]Measured) *summary.Summary {
	t.Helper()
	s, err := Compare("base", base, change, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// extraWork is a loop added to f, lines 10-11 of the change, with the
// lines of f after it shifted by 2; the C library's memcpy moves a little.
const extraWork = `diff --git a/cc/p/a.cc b/cc/p/a.cc
index 1111111..2222222 100644
--- a/cc/p/a.cc
+++ b/cc/p/a.cc
@@ -9,3 +9,5 @@ long f(const int* v, int n) {
   for (int i = 0; i < n; i++) sum += v[i];
+  for (int i = 0; i < n; i++)
+    sum ^= v[i] << (i % 7);
   return sum;
 }
`

var (
	extraBase = `
cc/p/a.cc 9 f 100000
cc/p/a.cc 10 f 10
cc/p/a.cc 20 main 1000
toolchain:memcpy.S 0 memcpy 5000
`
	extraChange = `
cc/p/a.cc 9 f 100000
cc/p/a.cc 10 f 20000
cc/p/a.cc 11 f 60000
cc/p/a.cc 12 f 10
cc/p/a.cc 22 main 1000
toolchain:memcpy.S 0 memcpy 5200
`
	// extraUndone is extraWork undone.
	extraUndone = `diff --git a/cc/p/a.cc b/cc/p/a.cc
--- a/cc/p/a.cc
+++ b/cc/p/a.cc
@@ -9,5 +9,3 @@ long f(const int* v, int n) {
   for (int i = 0; i < n; i++) sum += v[i];
-  for (int i = 0; i < n; i++)
-    sum ^= v[i] << (i % 7);
   return sum;
 }
`
)

// parsed is the change the diff text says.
func parsed(text string) *attribution.Source {
	return attribution.PatchSource([]byte(text))
}

// unreadable is a change whose diff cannot be read: what it says when asked.
func unreadable() *attribution.Source {
	return attribution.NewSource(gitwork.Repo("/nonexistent/checkout"), "HEAD", "")
}

// Extra work in the lines a change added is attributed to them, with
// where they are and an excerpt of them; an improved figure is attributed
// too; a figure Cachegrind does not count, or one that did not move, is
// not.
func TestAttributeExtraWork(t *testing.T) {
	base := map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, false, extraBase), map[string]float64{"instructions": 106_010})}
	change := map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, false, extraChange), map[string]float64{"instructions": 186_210})}
	s := compareSides(t, base, change)
	attributed, err := Attribute(s, base, change, parsed(extraWork))
	if err != nil || len(attributed) != 1 {
		t.Fatalf("%+v, %v: want one attribution", attributed, err)
	}
	a := attributed[0]
	if a.Benchmark != "havlak6cc" || a.Figure != "instructions" || a.Delta() != 80_200 || a.Parts[attribution.ChangedLines].Delta() != 80_000 || a.Outside() {
		t.Errorf("%+v: want 80,000 of +80,200 instructions in the added lines", a.Attribution)
	}
	text := a.Markdown()
	line, _, _ := strings.Cut(text, "\n")
	if want := "**havlak6cc** +80,200 instructions: 100% in lines the change added or edited, `cc/p/a.cc:10–11`; <1% in the toolchain, runtime and standard library"; line != want {
		t.Errorf("its line:\n%s\nwant\n%s", line, want)
	}
	for _, want := range []string{
		"<details><summary>the lines that moved it most: instructions before → after",
		"```\ncc/p/a.cc\n",
		"            0 → 20,000            +10    for (int i = 0; i < n; i++)\n",
		"            0 → 60,000            +11      sum ^= v[i] << (i % 7);\n",
		"```\n\n</details>\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("its excerpt:\n%s\nwant %q", text, want)
		}
	}

	// The change undone: an improvement, attributed the same way.
	attributed, err = Attribute(compareSides(t, change, base), change, base, parsed(extraUndone))
	if err != nil || len(attributed) != 1 || !strings.HasPrefix(attributed[0].Markdown(), "**havlak6cc** -80,200 instructions: 100% in lines the change added or edited") {
		t.Errorf("the change undone: %+v, %v", attributed, err)
	}

	// Nothing moved: nothing to attribute, and no diff asked for.
	if attributed, err := Attribute(compareSides(t, base, base), base, base, unreadable()); err != nil || len(attributed) != 0 {
		t.Errorf("nothing moved: %+v, %v", attributed, err)
	}
}

// A move that lands only outside the change's lines and functions is
// labelled so, with the functions that moved; the verdict stays the
// rule's.
func TestAttributeOutsideTheChange(t *testing.T) {
	// Two error messages reworded in shared code, which no counted line
	// runs: the program's I1 misses move in functions the change did not
	// touch.
	reworded := `diff --git a/cc/lib/errors.cc b/cc/lib/errors.cc
--- a/cc/lib/errors.cc
+++ b/cc/lib/errors.cc
@@ -3 +3 @@
-  "bad input"
+  "the input is bad"
`
	base := map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, true, `
cc/p/a.cc 9 f 100000 200
cc/p/a.cc 20 main 1000 50
toolchain:memcpy.S 0 memcpy 5000 10
`), map[string]float64{"instructions": 106_000, "i1_misses": 260})}
	change := map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, true, `
cc/p/a.cc 9 f 100000 260
cc/p/a.cc 20 main 1000 40
toolchain:memcpy.S 0 memcpy 5000 12
`), map[string]float64{"instructions": 106_000, "i1_misses": 312})}
	s := compareSides(t, base, change)
	attributed, err := Attribute(s, base, change, parsed(reworded))
	if err != nil || len(attributed) != 1 || attributed[0].Figure != "i1_misses" {
		t.Fatalf("%+v, %v: want the I1 misses' attribution alone", attributed, err)
	}
	a := attributed[0]
	if !a.Outside() {
		t.Errorf("%+v: want outside the change", a.Parts)
	}
	want := "**havlak6cc** +52 i1_misses: **outside the change: layout or code generation**; moved most: `f` +60, `main` -10, `memcpy` +2\n"
	if got := a.Markdown(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if b := s.Benchmarks[0]; b.Outcome != verdict.Regressed || !b.Fails() {
		t.Errorf("the verdict: %+v, want the rule's, regressed", b)
	}

	// A line added that calls library code (a sort), which Cachegrind
	// counts on the library's lines: not called layout, its parts shown.
	sorted := `diff --git a/cc/p/a.cc b/cc/p/a.cc
--- a/cc/p/a.cc
+++ b/cc/p/a.cc
@@ -9,0 +10 @@
+  std::sort(v, v + n);
`
	base = map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, false, `
cc/p/a.cc 9 f 100000
toolchain:/usr/include/c++/12/bits/stl_algo.h 1900 f 10
`), map[string]float64{"instructions": 100_010})}
	change = map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, false, `
cc/p/a.cc 9 f 100000
cc/p/a.cc 10 f 5
toolchain:/usr/include/c++/12/bits/stl_algo.h 1900 f 900000
`), map[string]float64{"instructions": 1_000_005})}
	attributed, err = Attribute(compareSides(t, base, change), base, change, parsed(sorted))
	if err != nil || len(attributed) != 1 || attributed[0].Outside() || !strings.HasPrefix(attributed[0].Markdown(),
		"**havlak6cc** +899,995 instructions: <1% in lines the change added or edited, `cc/p/a.cc:10`; 100% in the toolchain, runtime and standard library\n") {
		t.Errorf("a sort added: %+v, %v", attributed, err)
	}
}

// A path and a line of source are the change's: nothing in them gets out
// of a code span or block, or reaches the page as HTML.
func TestAttributionEscapes(t *testing.T) {
	hostile := "cc/`x`<script>|y.cc"
	d := "diff --git a/" + hostile + " b/" + hostile + "\n--- a/" + hostile + "\n+++ b/" + hostile + "\n@@ -1,0 +2,1 @@\n" +
		"+x = \"````\"; // </details><script>alert(1)</script> | a\rb\n"
	base := map[string]Measured{"b<i>": withLines("b<i>", lineCounts(t, false, "cc/p/a.cc 1 f 1000"), map[string]float64{"instructions": 1000})}
	change := map[string]Measured{"b<i>": withLines("b<i>", lineCounts(t, false, hostile+" 2 f<script> 500\ncc/p/a.cc 1 f 1000"), map[string]float64{"instructions": 1500})}
	attributed, err := Attribute(compareSides(t, base, change), base, change, parsed(d))
	if err != nil || len(attributed) != 1 {
		t.Fatalf("%+v, %v", attributed, err)
	}
	text := attributed[0].Markdown()
	for _, want := range []string{
		"**b\\<i\\>** +500 instructions: 100% in lines the change added or edited, ``cc/`x`<script>\\|y.cc:2``\n",
		"\n`````\ncc/`x`<script>|y.cc\n",
		"+2  x = \"````\"; // </details><script>alert(1)</script> | a b\n`````\n\n</details>\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("got\n%s\nwant %q", text, want)
		}
	}
	// Outside its code spans and block, the text has no tag but the
	// details' own.
	outside := text
	for _, code := range []string{"``cc/`x`<script>\\|y.cc:2``", text[strings.Index(text, "`````\n"):strings.LastIndex(text, "`````\n")]} {
		outside = strings.Replace(outside, code, "", 1)
	}
	outside = strings.ReplaceAll(outside, `\<`, "") // escaped, shown as itself
	if n := strings.Count(outside, "<"); strings.Contains(outside, "<script") || strings.Contains(outside, "\r") ||
		n != strings.Count(outside, "<details>")+strings.Count(outside, "<summary>")+strings.Count(outside, "</summary>")+strings.Count(outside, "</details>") {
		t.Errorf("a tag outside code:\n%s", outside)
	}
}

// A benchmark whose sides kept no line counts says nothing; one whose
// line counts cannot be read is an error beside the others' attributions;
// a diff that cannot be had is one error, failing nothing.
func TestAttributeWithoutLineCounts(t *testing.T) {
	base := map[string]Measured{
		"kept":   withLines("kept", lineCounts(t, false, extraBase), map[string]float64{"instructions": 106_010}),
		"none":   withLines("none", "", map[string]float64{"instructions": 1000}),
		"broken": withLines("broken", lineCounts(t, false, extraBase), map[string]float64{"instructions": 106_010}),
	}
	change := map[string]Measured{
		"kept":   withLines("kept", lineCounts(t, false, extraChange), map[string]float64{"instructions": 186_210}),
		"none":   withLines("none", lineCounts(t, false, extraChange), map[string]float64{"instructions": 2000}),
		"broken": withLines("broken", "havlak-lab cachegrind line counts 9\n", map[string]float64{"instructions": 186_210}),
	}
	s := compareSides(t, base, change)
	attributed, err := Attribute(s, base, change, parsed(extraWork))
	if len(attributed) != 1 || attributed[0].Benchmark != "kept" || err == nil || !strings.Contains(err.Error(), "broken: where instructions went") || strings.Contains(err.Error(), "none") {
		t.Errorf("%+v, %v: want kept's attribution, broken's error, nothing of none", attributed, err)
	}
	attributed, err = Attribute(s, base, change, unreadable())
	if len(attributed) != 0 || err == nil || !strings.Contains(err.Error(), "where the figures went: ") {
		t.Errorf("no diff: %+v, %v", attributed, err)
	}
}

// perOpLines is a go_test's result of two benchmark functions, Spin and
// Stir, with their own instructions per operation (figure: values), each
// with its own line counts, and the run's, their sum; without
// figure_line_counts when old (a result from before them).
func perOpLines(t *testing.T, spin, stir string, values map[string][]float64, old bool) Measured {
	r := &result.Result{Benchmark: result.Benchmark{Name: "spin", Kind: result.KindGoTest, Study: "s", Language: "Go"},
		LineCounts: linecounts.FileName}
	out := files{linecounts.FileName: lineCounts(t, false, spin+"\n"+stir)}
	for name, lines := range map[string]string{"Spin": spin, "Stir": stir} {
		figure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, name)
		r.Metrics = append(r.Metrics, result.Metric{Name: figure, Unit: "instructions/op", Values: values[name], Gated: true, Threshold: verdict.CountThreshold})
		if !old {
			if r.FigureLineCounts == nil {
				r.FigureLineCounts = map[string]string{}
			}
			r.FigureLineCounts[figure] = linecounts.FigureFileName(figure)
			out[r.FigureLineCounts[figure]] = lineCounts(t, false, lines)
		}
	}
	return Measured{Result: r, Outputs: out}
}

// A testing.B's own instructions per operation is attributed to the lines
// of its own benchmark function's counts: 1% more work on a line of Spin
// is in Spin's changed line, and Stir, which moved in its own code, is
// not blamed on Spin's line, as the run's line counts, every function's
// added up, would have it. A result from before a function's own line
// counts gets no attribution of such a figure, and no error.
func TestAttributePerOperation(t *testing.T) {
	spinFigure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	stirFigure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Stir")
	edited := `diff --git a/go/s/spin.go b/go/s/spin.go
--- a/go/s/spin.go
+++ b/go/s/spin.go
@@ -10 +10 @@ func Spin(n int) uint64 {
-		s = s*6364136223846793005 + uint64(i)
+		s = s*6364136223846793005 + uint64(i) ^ s>>7
`
	baseValues := map[string][]float64{"Spin": {6000, 6000.5, 6000}, "Stir": {8000, 8000, 8000.5}}
	changeValues := map[string][]float64{"Spin": {6060, 6060.5, 6060}, "Stir": {8100, 8100, 8100.5}}
	spinBase, spinChange := "go/s/spin.go 9 s.BenchmarkSpin 3000\ngo/s/spin.go 10 s.BenchmarkSpin 3000", "go/s/spin.go 9 s.BenchmarkSpin 3000\ngo/s/spin.go 10 s.BenchmarkSpin 3060"
	stirBase, stirChange := "go/s/stir.go 5 s.BenchmarkStir 8000", "go/s/stir.go 5 s.BenchmarkStir 8100"
	for _, old := range []bool{false, true} {
		base := map[string]Measured{"spin": perOpLines(t, spinBase, stirBase, baseValues, old)}
		change := map[string]Measured{"spin": perOpLines(t, spinChange, stirChange, changeValues, old)}
		s := compareSides(t, base, change)
		if n := len(attributedFigures(s.Benchmarks[0])); n != 2 {
			t.Fatalf("old %v: %d figures to attribute, want both regressed: %+v", old, n, s.Benchmarks[0].Figures)
		}
		attributed, err := Attribute(s, base, change, parsed(edited))
		if err != nil {
			t.Fatalf("old %v: %v", old, err)
		}
		if old {
			if len(attributed) != 0 {
				t.Errorf("a result without its functions' own line counts: %+v, want no attribution", attributed)
			}
			continue
		}
		if len(attributed) != 2 {
			t.Fatalf("%+v: want Spin's and Stir's attributions", attributed)
		}
		for _, a := range attributed {
			switch a.Figure {
			case spinFigure:
				if a.Delta() != 60 || a.Parts[attribution.ChangedLines].Delta() != 60 {
					t.Errorf("%s: %+d, parts %+v; want +60, all in the changed line", a.Figure, a.Delta(), a.Parts)
				}
				if line, _, _ := strings.Cut(a.Markdown(), "\n"); !strings.Contains(line, "100% in lines the change added or edited, `go/s/spin.go:10`") {
					t.Errorf("%s: %q", a.Figure, line)
				}
			case stirFigure:
				if a.Delta() != 100 || a.Parts[attribution.ChangedLines] != (attribution.Sums{}) || a.Parts[attribution.OtherOwnCode].Delta() != 100 {
					t.Errorf("%s: %+d, parts %+v; want +100, none of it in Spin's changed line", a.Figure, a.Delta(), a.Parts)
				}
			default:
				t.Errorf("an attribution of %s", a.Figure)
			}
		}
		// What the run's line counts, every function's, would have said
		// of Stir: Spin's changed line in its change.
		sums, err := figureLines(base["spin"], change["spin"], cachegrind.MetricOwnInstructions)
		if err != nil {
			t.Fatal(err)
		}
		mixed, err := attribution.Attribute(sums[0], sums[1], parsed(edited), stirFigure, true)
		if err != nil || mixed.Parts[attribution.ChangedLines].Delta() != 60 {
			t.Errorf("the run's line counts: %+v, %v; want Spin's +60 in the changed line, which Stir's own counts leave out", mixed, err)
		}
	}
}

// The comment shows, after the table, where each attributed figure's
// change went; the table and the verdict are what they were.
func TestCommentSaysWhereItWent(t *testing.T) {
	base := map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, false, extraBase), map[string]float64{"instructions": 106_010})}
	change := map[string]Measured{"havlak6cc": withLines("havlak6cc", lineCounts(t, false, extraChange), map[string]float64{"instructions": 186_210})}
	s := compareSides(t, base, change)
	attributed, err := Attribute(s, base, change, parsed(extraWork))
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan{Changed: []Target{{Benchmark: "havlak6cc"}}}
	var without strings.Builder
	WriteComment(&without, s, plan, summary.Pair{}, CommentLimit)
	plan.Attributions = attributed
	var b strings.Builder
	WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
	text := b.String()
	row := strings.Index(text, "| havlak6cc | **REGRESSED** | **REGRESSED** instructions +75.65%")
	where := strings.Index(text, "\n**Where the changes went** (Cachegrind's counts per line and the change's diff; information, not the verdict):\n\n"+
		"**havlak6cc** +80,200 instructions: 100% in lines the change added or edited, `cc/p/a.cc:10–11`")
	if row < 0 || where < row || !strings.HasPrefix(text, "### :x: Perf check: 1 of 1") {
		t.Errorf("comment:\n%s", text)
	}
	if got := strings.Replace(text, attributionsBlock(attributed, CommentLimit/4), "", 1); got != without.String() {
		t.Errorf("with an attribution, the rest of the comment changed:\n%s\nwithout:\n%s", text, without.String())
	}
	// However many, they stay within their share of the comment.
	for range 200 {
		plan.Attributions = append(plan.Attributions, attributed[0])
	}
	b.Reset()
	WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
	if n := len(b.String()); n > CommentLimit || !strings.Contains(b.String(), "more (the results' line counts have them all)") {
		t.Errorf("a comment of %d bytes for 201 attributions", n)
	}
}

// Each part is its share of the whole, one that moved against it
// negative; when parts moved against each other by more than the whole,
// shares would mislead, and each is its own count: a change whose lines
// add work while the code around them gets cheaper shows both halves.
func TestPartsText(t *testing.T) {
	attributed := func(parts ...int64) Attributed {
		a := &attribution.Attribution{Weight: "instructions", Base: 1_000_000, Change: 1_000_000}
		for i, d := range parts {
			a.Parts[i] = attribution.Sums{Base: 100_000, Change: uint64(100_000 + d)}
			a.Change = uint64(int64(a.Change) + d)
		}
		a.Lines = []attribution.LineDelta{{File: "go/havlak5/havlak.go", Line: 120, Part: attribution.ChangedLines, Sums: a.Parts[0]}}
		return Attributed{Benchmark: "havlak5", Figure: "own_instructions", Attribution: a}
	}
	for _, c := range []struct {
		parts []int64
		want  string
	}{
		{[]int64{1000, 100, -50}, "**havlak5** +1,050 own_instructions: 95% in lines the change added or edited, `go/havlak5/havlak.go:120`; " +
			"10% in unchanged lines of functions the change edited; -5% in other code of the program's own sources\n"},
		{[]int64{40_000, 0, -50_000, 1}, "**havlak5** -9,999 own_instructions: +40,000 in lines the change added or edited, `go/havlak5/havlak.go:120`; " +
			"-50,000 in other code of the program's own sources; +1 in the toolchain, runtime and standard library\n"},
		{[]int64{1000, 0, 0, -1}, "**havlak5** +999 own_instructions: 100% in lines the change added or edited, `go/havlak5/havlak.go:120`; " +
			"-<1% in the toolchain, runtime and standard library\n"},
		{[]int64{10, 0, 1000}, "**havlak5** +1,010 own_instructions: **outside the change: layout or code generation** (+10 in the change's own lines and functions)\n"},
		{[]int64{0}, "**havlak5** 0 own_instructions: its line counts show no change (a median over runs may move where one run's counts do not)\n"},
	} {
		if got := attributed(c.parts...).Markdown(); got != c.want {
			t.Errorf("parts %v:\n%s\nwant\n%s", c.parts, got, c.want)
		}
	}
}
