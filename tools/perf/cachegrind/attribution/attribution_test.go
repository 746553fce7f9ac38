package attribution

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

// file is line counts of instructions alone from "FILE LINE FUNCTION IR"
// lines, in the format's order.
func file(t *testing.T, text string) *linecounts.File {
	t.Helper()
	var total uint64
	var records strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(l)
		v, err := strconv.ParseUint(f[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		total += v
		records.WriteString(strings.Join(f, "\t") + "\n")
	}
	data := fmt.Sprintf("havlak-lab cachegrind line counts 1\nevents\tIr\ntotal\t%d\n%s", total, records.String())
	f, err := linecounts.Read(strings.NewReader(data), "test")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func diff(t *testing.T, text string) *Diff {
	t.Helper()
	d, err := parseDiff([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func instructions(t *testing.T) Weight {
	w, err := eventWeight("Ir")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// checkExact checks that the parts add up to the change.
func checkExact(t *testing.T, a *Attribution) {
	t.Helper()
	var sum int64
	for _, p := range a.Parts {
		sum += p.Delta()
	}
	if sum != a.Delta() {
		t.Errorf("the parts add up to %d, the change is %d", sum, a.Delta())
	}
}

// A loop added to f (lines 11-13 of the change) with f's other lines
// shifted, a line of g edited, and the runtime's and the toolchain's
// counts moving too: each part gets its own.
func TestAttribute(t *testing.T) {
	base := file(t, `
go/p/a.go 5 main.f 100
go/p/a.go 10 main.f 50
go/p/a.go 20 main.g 30
go/p/a.go 21 main.g 7
go/p/b.go 3 main.h 1000
goroot:runtime/proc.go 250 runtime.main 400
toolchain:??? 0 ??? 9
`)
	change := file(t, `
go/p/a.go 5 main.f 110
go/p/a.go 10 main.f 50
go/p/a.go 11 main.f 300
go/p/a.go 12 main.f 200
go/p/a.go 23 main.g 20
go/p/a.go 24 main.g 7
go/p/b.go 3 main.h 990
goroot:runtime/proc.go 250 runtime.main 450
toolchain:??? 0 ??? 10
`)
	d := diff(t, `diff --git a/go/p/a.go b/go/p/a.go
index 1111111..2222222 100644
--- a/go/p/a.go
+++ b/go/p/a.go
@@ -10,2 +10,5 @@ func f() {
 	x++
+	for i := range n {
+		x += i
+	}
 }
@@ -19,3 +22,3 @@ func g() {
 	// g
-	y = 1
+	y = 2
 	y++
`)
	a, err := attribute(base, change, d, instructions(t))
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, a)
	// (a) lines 11, 12 of the change (+500) and line 23 of the change
	// (+20) against line 20 of the base (-30).
	want := [NumParts]int64{500 + 20 - 30, 10, -10, 50 + 1}
	for p, w := range want {
		if got := a.Parts[p].Delta(); got != w {
			t.Errorf("%v: %+d, want %+d", Part(p), got, w)
		}
	}
	if a.Base != 1596 || a.Change != 2137 {
		t.Errorf("totals %d → %d, want 1596 → 2137", a.Base, a.Change)
	}
	// Line 24 of the change is line 21 of the base, unchanged in g: no
	// line of the deltas; line 10 likewise.
	for _, l := range a.Lines {
		if l.File == "go/p/a.go" && (l.Line == 24 || l.Line == 10) {
			t.Errorf("an unchanged line with the same counts among the deltas: %+v", l)
		}
	}
	top := a.Lines[0]
	if top.File != "go/p/a.go" || top.Line != 11 || top.BaseLine != 0 || top.Part != ChangedLines || top.Change != 300 {
		t.Errorf("the largest line: %+v, want line 11, added, 300 instructions", top)
	}
	if f := a.Functions[0]; f.Function != "main.f" || !f.Edited || f.Delta() != 510 {
		t.Errorf("the largest function: %+v, want main.f, edited, +510", f)
	}
	for _, f := range a.Functions {
		if f.Function == "main.h" && f.Edited {
			t.Errorf("main.h is not edited: %+v", f)
		}
	}
}

// A neutral change, a comment line added above a function, shifts every
// line after it: nothing lands in the changed lines, nor in edited
// functions.
func TestShiftIsNeutral(t *testing.T) {
	base := file(t, `
cc/p/p.cc 4 f() 100
cc/p/p.cc 9 g() 200
cc/p/p.cc 10 g() 300
`)
	change := file(t, `
cc/p/p.cc 4 f() 100
cc/p/p.cc 10 g() 200
cc/p/p.cc 11 g() 300
`)
	d := diff(t, `--- a/cc/p/p.cc	2026-11-28 08:00:00
+++ b/cc/p/p.cc	2026-11-28 08:01:00
@@ -7,0 +8 @@
+// g is the second.
`)
	a, err := attribute(base, change, d, instructions(t))
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, a)
	if a.Delta() != 0 || len(a.Lines) != 0 || len(a.Functions) != 0 || a.Parts[ChangedLines] != (Sums{}) {
		t.Errorf("a shift: %+v; want nothing changed", a)
	}
}

// A Go program's own figures leave the runtime out of every part, as
// the figures do; its total keeps it in the toolchain's part.
func TestGoRuntimeSetApart(t *testing.T) {
	base := file(t, "go/p/a.go 1 main.f 10\ngoroot:fmt/print.go 3 fmt.Println 5\ngoroot:runtime/proc.go 1 runtime.main 100\n")
	change := file(t, "go/p/a.go 1 main.f 10\ngoroot:fmt/print.go 3 fmt.Println 6\ngoroot:runtime/proc.go 1 runtime.main 150\n")
	for _, c := range []struct {
		figure string
		want   int64
	}{{cachegrind.MetricOwnInstructions, 1}, {cachegrind.MetricInstructions, 51}} {
		w, err := figureWeight(c.figure, true)
		if err != nil {
			t.Fatal(err)
		}
		a, err := attribute(base, change, nil, w)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, a)
		if a.Delta() != c.want || a.Parts[Toolchain].Delta() != c.want {
			t.Errorf("%s: %+d, %+d in the toolchain's part; want %+d in it", c.figure, a.Delta(), a.Parts[Toolchain].Delta(), c.want)
		}
	}
	if _, err := figureWeight(cachegrind.MetricD1Misses, true); err != nil {
		t.Fatal(err)
	}
	w, _ := figureWeight(cachegrind.MetricD1Misses, true)
	if _, err := attribute(base, change, nil, w); err == nil || !strings.Contains(err.Error(), "cache simulation") {
		t.Errorf("D1 misses of runs without cache simulation: %v, want an error saying so", err)
	}
}

// A go_test's own instructions per operation of one benchmark function
// is explained, through the public entry, by the lines of that function's
// file, its instructions outside the runtime whether or not the caller
// says it counts a Go program; a figure of another family is not.
func TestPerOperationFigure(t *testing.T) {
	figure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	if !Explains(figure) || !Explains(cachegrind.MetricOwnInstructions) {
		t.Errorf("Explains(%s) or Explains(%s) is false", figure, cachegrind.MetricOwnInstructions)
	}
	if Explains("other_per_op/Spin") || Explains(result.FigureOwnInstructionsPerOp) {
		t.Error("Explains a figure of no benchmark function, or of another family")
	}
	base := file(t, "go/s/spin.go 9 s.BenchmarkSpin 4000\ngo/s/spin.go 10 s.BenchmarkSpin 2000\ngoroot:runtime/proc.go 1 runtime.main 9\n")
	change := file(t, "go/s/spin.go 9 s.BenchmarkSpin 4040\ngo/s/spin.go 10 s.BenchmarkSpin 2020\ngoroot:runtime/proc.go 1 runtime.main 90\n")
	patch := "diff --git a/go/s/spin.go b/go/s/spin.go\n--- a/go/s/spin.go\n+++ b/go/s/spin.go\n@@ -10 +10 @@\n-\ts = s*3\n+\ts = s*3 + 1\n"
	for _, goProgram := range []bool{false, true} {
		a, err := Attribute(base, change, PatchSource([]byte(patch)), figure, goProgram)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, a)
		if a.Delta() != 60 || a.Parts[ChangedLines].Delta() != 20 || a.Parts[EditedFunctions].Delta() != 40 || a.Parts[Toolchain] != (Sums{}) {
			t.Errorf("goProgram %v: %+d, parts %+v; want +60: +20 in the changed line, +40 in its function, the runtime left out",
				goProgram, a.Delta(), a.Parts)
		}
	}
}

// A renamed file's lines follow it; a new file's are all changed lines;
// a deleted file's base lines too.
func TestRenameNewAndDeleted(t *testing.T) {
	base := file(t, "cc/gone.cc 1 h() 7\ncc/old.cc 5 f() 10\ncc/old.cc 6 f() 20\n")
	change := file(t, "cc/added.cc 3 k() 4\ncc/new.cc 5 f() 10\ncc/new.cc 7 f() 25\n")
	d := diff(t, `diff --git a/cc/old.cc b/cc/new.cc
similarity index 90%
rename from cc/old.cc
rename to cc/new.cc
--- a/cc/old.cc
+++ b/cc/new.cc
@@ -5,2 +5,3 @@
 a
+b
 c
diff --git a/cc/added.cc b/cc/added.cc
new file mode 100644
--- /dev/null
+++ b/cc/added.cc
@@ -0,0 +1,3 @@
+x
+y
+z
diff --git a/cc/gone.cc b/cc/gone.cc
deleted file mode 100644
--- a/cc/gone.cc
+++ /dev/null
@@ -1 +0,0 @@
-w
`)
	a, err := attribute(base, change, d, instructions(t))
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, a)
	if got := a.Parts[ChangedLines].Delta(); got != 4-7 {
		t.Errorf("changed lines: %+d, want the new file's +4 and the deleted one's -7", got)
	}
	if got := a.Parts[OtherOwnCode].Delta(); got != 5 {
		t.Errorf("other own code: %+d, want +5 (cc/new.cc:7, moved from cc/old.cc:6)", got)
	}
	for _, l := range a.Lines {
		if l.File == "cc/new.cc" && l.Line == 7 && l.BaseLine != 6 {
			t.Errorf("cc/new.cc:7 maps to base line %d, want 6", l.BaseLine)
		}
	}
}

func TestMapLine(t *testing.T) {
	d := diff(t, `--- a/x.go
+++ b/x.go
@@ -3,4 +3,3 @@
 c
-d
-e
+E
 f
@@ -20,0 +20,2 @@
+new1
+new2
@@ -30,2 +31 @@
-gone
 kept
`)
	f := d.byChange["x.go"]
	for _, c := range []struct {
		change, base int
		ok           bool
	}{
		{1, 1, true}, {3, 3, true}, {4, 0, false}, {5, 6, true}, {6, 7, true},
		{19, 20, true}, {20, 0, false}, {21, 0, false}, {22, 21, true},
		{30, 29, true}, {31, 31, true}, {40, 40, true},
	} {
		if base, ok := f.mapLine(changeSide, c.change); base != c.base || ok != c.ok {
			t.Errorf("change line %d: base %d, %v; want %d, %v", c.change, base, ok, c.base, c.ok)
		}
	}
	for _, c := range []struct {
		base, change int
		ok           bool
	}{{4, 0, false}, {5, 0, false}, {6, 5, true}, {21, 22, true}, {30, 0, false}, {31, 31, true}} {
		if change, ok := f.mapLine(baseSide, c.base); change != c.change || ok != c.ok {
			t.Errorf("base line %d: change %d, %v; want %d, %v", c.base, change, ok, c.change, c.ok)
		}
	}
}

func TestParseDiffRefuses(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"escaping path": {"--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", `diff:3: path "../etc/passwd"`},
		"absolute path": {"--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", `diff:3: path "/etc/passwd"`},
		"short hunk":    {"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n", "diff:4: a hunk cut short"},
		"long hunk":     {"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n", ""},
		"bad line":      {"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n", `diff:5: "?b": not a line`},
		"no header":     {"@@ -1 +1 @@\n-a\n+b\n", "diff:1: a hunk before its file's"},
		"combined":      {"--- a/x\n+++ b/x\n@@@ -1 -1 +1 @@@\n", "diff:3: a combined diff"},
		"out of order":  {"--- a/x\n+++ b/x\n@@ -5 +5 @@\n-a\n+b\n@@ -1 +1 @@\n-a\n+b\n", "diff:6: "},
		"overlapping":   {"--- a/x\n+++ b/x\n@@ -5,2 +5,2 @@\n-a\n-b\n+c\n+d\n@@ -6 +7 @@\n-b\n+e\n", "diff:8: \"@@ -6 +7 @@\": hunks out of order or overlapping"},
		"moved lines":   {"--- a/x\n+++ b/x\n@@ -1 +2 @@\n a\n", "diff:3: \"@@ -1 +2 @@\": the lines before it moved by +1, not the +0"},
		"from line 0":   {"--- a/x\n+++ b/x\n@@ -0 +1 @@\n a\n", "diff:3: \"@@ -0 +1 @@\": lines from line 0"},
		"twice":         {"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -5 +5 @@\n-a\n+b\n", "a file twice"},
		"huge number":   {"--- a/x\n+++ b/x\n@@ -99999999999 +1 @@\n", "over"},
	} {
		_, err := parseDiff([]byte(c.text))
		if c.want == "" {
			// A "+c" after the hunk's counts is no hunk line: read as
			// a header line, and ignored.
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
	if _, err := parseDiff(make([]byte, MaxDiffBytes+1)); err == nil {
		t.Error("a diff over MaxDiffBytes was read")
	}
}

// cacheFile is line counts with the cache simulation's events from
// "FILE LINE FUNCTION IR D1MR" lines, the other events zero.
func cacheFile(t *testing.T, text string) *linecounts.File {
	t.Helper()
	var ir, d1 uint64
	var records strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(l)
		i, err1 := strconv.ParseUint(f[3], 10, 64)
		d, err2 := strconv.ParseUint(f[4], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatal(l)
		}
		ir, d1 = ir+i, d1+d
		fmt.Fprintf(&records, "%s\t%s\t%s\t%d\t0\t0\t0\t%d\t0\t0\t0\t0\n", f[0], f[1], f[2], i, d)
	}
	data := fmt.Sprintf("havlak-lab cachegrind line counts 1\nevents\t%s\ntotal\t%d\t0\t0\t0\t%d\t0\t0\t0\t0\n%s",
		strings.Join(cachegrind.CacheEvents[:], "\t"), ir, d1, records.String())
	f, err := linecounts.Read(strings.NewReader(data), "test")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Which functions the change edited does not hang on the figure: a loop
// added to f that misses no D1 line still makes f edited for D1 misses,
// so f's other line's extra misses land in the edited functions' part,
// not in other own code.
func TestEditedIsTheSameForEveryFigure(t *testing.T) {
	base := cacheFile(t, "cc/p/p.cc 5 f() 100 10\ncc/p/p.cc 9 g() 40 4\n")
	change := cacheFile(t, "cc/p/p.cc 5 f() 100 12\ncc/p/p.cc 6 f() 50 0\ncc/p/p.cc 10 g() 40 5\n")
	d := diff(t, "--- a/cc/p/p.cc\n+++ b/cc/p/p.cc\n@@ -5,0 +6 @@\n+  for (int i = 0; i < n; i++) x += i;\n")
	for _, event := range []string{"Ir", "D1mr"} {
		w, err := eventWeight(event)
		if err != nil {
			t.Fatal(err)
		}
		a, err := attribute(base, change, d, w)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, a)
		want := map[string][NumParts]int64{"Ir": {50, 0, 0, 0}, "D1mr": {0, 2, 1, 0}}[event]
		for p, w := range want {
			if got := a.Parts[p].Delta(); got != w {
				t.Errorf("%s, %v: %+d, want %+d", event, Part(p), got, w)
			}
		}
		for _, f := range a.Functions {
			if f.Edited != (f.Function == "f()") {
				t.Errorf("%s: %s edited %v; want f() alone", event, f.Function, f.Edited)
			}
		}
	}
}

// A diff shows the text of its hunks' lines, by the change's line or,
// for a removed one, the base's; not the lines outside its hunks.
func TestDiffText(t *testing.T) {
	d := diff(t, `diff --git a/go/p/a.go b/go/p/a.go
--- a/go/p/a.go
+++ b/go/p/a.go
@@ -10,2 +10,4 @@ func f() {
 	x++
+	for i := range n {
+	}
-}
+} // end
\ No newline at end of file
`)
	for _, c := range []struct {
		file           string
		line, baseLine uint64
		text           string
		ok             bool
	}{
		{"go/p/a.go", 10, 0, "\tx++", true},
		{"go/p/a.go", 11, 0, "\tfor i := range n {", true},
		{"go/p/a.go", 13, 0, "} // end", true},
		{"go/p/a.go", 0, 11, "}", true},
		{"go/p/a.go", 0, 10, "\tx++", true},
		{"go/p/a.go", 14, 0, "", false},
		{"go/p/a.go", 9, 0, "", false},
		{"go/p/b.go", 10, 0, "", false},
		{"go/p/a.go", 0, 0, "", false},
	} {
		if text, ok := d.Text(c.file, c.line, c.baseLine); text != c.text || ok != c.ok {
			t.Errorf("Text(%s, %d, %d) = %q, %v; want %q, %v", c.file, c.line, c.baseLine, text, ok, c.text, c.ok)
		}
	}
}

// MovedFunctions names the functions whose counts of a figure moved most,
// as the figure counts them: a Go program's own instructions leave the
// runtime out, its total keeps it.
func TestMovedFunctions(t *testing.T) {
	base := file(t, `
go/p/a.go 3 main.findLoops 1000
go/p/a.go 9 main.other 500
go/p/b.go 1 main.steady 70
goroot:runtime/malloc.go 5 runtime.mallocgc 300
`)
	change := file(t, `
go/p/a.go 3 main.findLoops 1900
go/p/a.go 9 main.other 450
go/p/b.go 1 main.steady 70
goroot:runtime/malloc.go 5 runtime.mallocgc 5000
`)
	names := func(fs []FunctionDelta) string {
		var s []string
		for _, f := range fs {
			s = append(s, fmt.Sprintf("%s %+d", f.Function, f.Delta()))
		}
		return strings.Join(s, ", ")
	}
	own, err := MovedFunctions(base, change, cachegrind.MetricOwnInstructions, true, 5)
	if err != nil || names(own) != "main.findLoops +900, main.other -50" {
		t.Errorf("own instructions: %s, %v; want main.findLoops +900, main.other -50", names(own), err)
	}
	all, err := MovedFunctions(base, change, cachegrind.MetricInstructions, true, 1)
	if err != nil || names(all) != "runtime.mallocgc +4700" {
		t.Errorf("instructions, the first: %s, %v; want runtime.mallocgc +4700", names(all), err)
	}
	if _, err := MovedFunctions(base, change, "real_seconds", true, 3); err == nil {
		t.Errorf("real_seconds: no error; want one, it is not counted per line")
	}
	if _, err := MovedFunctions(base, change, cachegrind.MetricD1Misses, false, 3); err == nil {
		t.Errorf("D1 misses of runs without cache simulation: no error")
	}
}
