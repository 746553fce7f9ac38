package history

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

// lineCounts are the bytes of a file of line counts of own functions
// main.f00, main.f01, ... (function i ran 1000+i instructions on a line
// of go/p/a.go, and 10,000 more in the standard library's code inlined
// into it), a toolchain function (memmove) and the Go runtime's, which
// ran more than any of them.
func lineCounts(t *testing.T, own int) []byte {
	t.Helper()
	ir := func(v uint64) cachegrind.Events { return cachegrind.Events{cachegrind.Ir: v} }
	f := &linecounts.File{}
	for i := range own {
		f.Records = append(f.Records, linecounts.Record{File: "go/p/a.go", Line: uint64(10 + i), Function: fmt.Sprintf("main.f%02d", i), Events: ir(uint64(1000 + i))})
	}
	for i := range own {
		f.Records = append(f.Records, linecounts.Record{File: "goroot:sort/sort.go", Line: uint64(10 + i), Function: fmt.Sprintf("main.f%02d", i), Events: ir(10000)})
	}
	f.Records = append(f.Records,
		linecounts.Record{File: "goroot:runtime/malloc.go", Line: 1, Function: "runtime.mallocgc", Events: ir(1 << 30)},
		linecounts.Record{File: "toolchain:???", Line: 0, Function: "memmove", Events: ir(1 << 29)})
	slices.SortFunc(f.Records, func(a, b linecounts.Record) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.Function, b.Function))
	})
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A result with line counts adds a series for each of its TopFunctions
// own functions that ran the most instructions (the runtime's and the
// toolchain's aside), ungated, of FunctionSource, marked a function's in
// Seen; a result whose line counts do not read, or whose figure claims
// FunctionSource, is refused whole.
func checkFunctionSeries(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	dir := t.TempDir()
	withCounts := func(name string, n night, counts []byte, edit func(*result.Result)) string {
		r := n.result()
		r.LineCounts = linecounts.FileName
		if edit != nil {
			edit(r)
		}
		return writeResult(t, filepath.Join(dir, name), r, map[string]string{linecounts.FileName: string(counts)})
	}
	n := night{commit: "c1", started: day0, real: []float64{1, 1.1}, instrs: []float64{100, 101}, origin: nightly}
	ingest(t, d, withCounts("good", n, lineCounts(t, TopFunctions+2), nil))

	all, err := d.Series(ctx, Query{Benchmark: "havlak6"})
	if err != nil {
		t.Fatal(err)
	}
	functions := map[string]Series{}
	for _, s := range all {
		if s.Function() {
			functions[s.Figure] = s
		} else if strings.HasPrefix(s.Figure, "function ") {
			t.Errorf("series %s is named as a function's but is not of FunctionSource", s.Figure)
		}
	}
	if len(functions) != TopFunctions {
		t.Errorf("%d function series, want %d: %v", len(functions), TopFunctions, functions)
	}
	for i := 2; i < TopFunctions+2; i++ {
		s, ok := functions[fmt.Sprintf("function main.f%02d", i)]
		if !ok || s.Gated || s.Unit != FunctionUnit || len(s.Points) != 1 || s.Points[0].Values[0] != float64(11000+i) {
			t.Errorf("main.f%02d: %+v, want an ungated series of one point, %d instructions", i, s, 11000+i)
		}
	}
	for _, name := range []string{"function main.f00", "function main.f01", "function runtime.mallocgc", "function memmove"} {
		if _, ok := functions[name]; ok {
			t.Errorf("%s has a series: not among the top own functions", name)
		}
	}
	seen, _, err := d.Seen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, s := range seen {
		if s.Function != (functions[s.Figure].Source == FunctionSource) {
			t.Errorf("Seen: %s marked a function's %v", s.Figure, s.Function)
		}
		if s.Function {
			marked++
		}
	}
	if marked != TopFunctions {
		t.Errorf("Seen marks %d series a function's, want %d", marked, TopFunctions)
	}

	before, _ := d.Count(ctx)
	n.commit, n.started = "c2", day0.AddDate(0, 0, 1)
	cut := lineCounts(t, 3)
	if _, err := d.Ingest(ctx, withCounts("cut", n, cut[:len(cut)-20], nil)); err == nil || !strings.Contains(err.Error(), linecounts.FileName) {
		t.Errorf("a result whose line counts are cut short: %v, want it refused, naming the file", err)
	}
	claims := func(r *result.Result) { r.Metrics[0].Source = FunctionSource }
	if _, err := d.Ingest(ctx, withCounts("claims", n, lineCounts(t, 3), claims)); err == nil || !strings.Contains(err.Error(), "claims the source") {
		t.Errorf("a result whose figure claims the function series' source: %v, want it refused", err)
	}
	if after, _ := d.Count(ctx); after != before {
		t.Errorf("refused results left %d results, want %d", after, before)
	}
}

// A function figure's name is bounded, valid UTF-8, and keeps two long
// names that start alike apart.
func TestFunctionFigure(t *testing.T) {
	if got := FunctionFigure("main.FindLoops"); got != "function main.FindLoops" {
		t.Errorf("FunctionFigure(main.FindLoops) = %q", got)
	}
	long := strings.Repeat("é", MaxFunctionFigureBytes)
	a, b := FunctionFigure(long+"<int>"), FunctionFigure(long+"<long>")
	for _, name := range []string{a, b} {
		if len(name) > MaxFunctionFigureBytes || !utf8.ValidString(name) || !strings.HasPrefix(name, "function éé") {
			t.Errorf("FunctionFigure of a long name = %q (%d bytes), want at most %d bytes of UTF-8", name, len(name), MaxFunctionFigureBytes)
		}
	}
	if a == b {
		t.Errorf("two long names give one figure %q", a)
	}
}
