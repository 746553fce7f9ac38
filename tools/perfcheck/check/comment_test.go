package check

import (
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// files are a result's outputs in memory.
type files map[string]string

func (f files) ReadFile(name string) ([]byte, error) {
	if data, ok := f[name]; ok {
		return []byte(data), nil
	}
	return nil, fs.ErrNotExist
}
func (f files) OpenFile(name string) (io.ReadCloser, error) {
	data, err := f.ReadFile(name)
	return io.NopCloser(strings.NewReader(string(data))), err
}
func (f files) Path(name string) string { return "outputs.zip:" + name }
func (f files) Close() error            { return nil }

// cachegrindOut is a Cachegrind output with the cache simulation of a Go
// program: its own function and the runtime's page allocator, each with
// its instructions and D1 read and write misses.
func cachegrindOut(ownIr, ownD1, runtimeIr, runtimeD1 int) string {
	return "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n" +
		"fn=main.(*finder).FindLoops\n" + line(ownIr, ownD1) +
		"fn=runtime.(*pageAlloc).find\n" + line(runtimeIr, runtimeD1) +
		"summary: " + strings.TrimPrefix(line(ownIr+runtimeIr, ownD1+runtimeD1), "1 ")
}

// line is a line of Cachegrind's output: ir instructions, d1 D1 misses
// (half reads, half writes), all of them LL hits.
func line(ir, d1 int) string {
	return strings.Join([]string{"1", strconv.Itoa(ir), "0", "0", strconv.Itoa(d1), strconv.Itoa(d1 / 2), "0", strconv.Itoa(d1), strconv.Itoa(d1 - d1/2), "0"}, " ") + "\n"
}

// goMeasured is a Go stage's measurement: its own instructions and D1
// misses, gated, and its Cachegrind output.
func goMeasured(out string, ownIr, ownD1 float64) Measured {
	r := &result.Result{Benchmark: result.Benchmark{Name: "havlak6", Study: "s", Language: "Go"}, Metrics: []result.Metric{
		{Name: "own_instructions", Unit: "instructions", Values: []float64{ownIr}, Gated: true, Threshold: verdict.CountThreshold, Cost: result.CostWork},
		{Name: "d1_misses", Unit: "misses", Values: []float64{ownD1}, Gated: true, Threshold: verdict.CountThreshold, Cost: result.CostLocality},
	}}
	return Measured{Result: r, Outputs: files{countedFile: out}}
}

// A cache regression of a Go stage is diffed on the D1 misses of its own
// functions: the runtime's, which changed more, are left out, as the
// figure leaves them out; its instructions, which passed, get no diff.
func TestProfileDiffsFollowTheFigure(t *testing.T) {
	base := goMeasured(cachegrindOut(1_000_000, 10_000, 500_000, 4_000), 1_000_000, 10_000)
	change := goMeasured(cachegrindOut(1_005_000, 11_600, 900_000, 90_000), 1_005_000, 11_600)
	b := compareMeasured(t, base, change, nil)
	if !b.Fails() || b.Figures[0].Fails() || !b.Figures[1].Fails() {
		t.Fatalf("want d1_misses failing, own_instructions passing: %+v", b.Figures)
	}
	diffs, err := ProfileDiffs(b, base, change)
	if err != nil || len(diffs) != 1 {
		t.Fatalf("diffs %+v, %v: want one", diffs, err)
	}
	d := diffs[0]
	if d.Profile != "cachegrind" || d.SampleType != "d1_misses" || d.Unit != "misses" || d.Base != 10_000 || d.New != 11_600 {
		t.Errorf("diff %+v: want Cachegrind's own D1 misses, 10,000 → 11,600", d.Diff)
	}
	if len(d.Funcs) != 1 || d.Funcs[0].Name != "main.(*finder).FindLoops" || d.Funcs[0].Flat != 1_600 {
		t.Errorf("functions %+v: want FindLoops +1,600 and no runtime function", d.Funcs)
	}
	if got, want := d.Summary(3), "cachegrind d1_misses +16.0%; flat: `main.(*finder).FindLoops` +1600 misses"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}

	// Its instructions failing instead: the diff is of its own
	// instructions.
	change = goMeasured(cachegrindOut(1_100_000, 10_000, 100_000, 4_000), 1_100_000, 10_000)
	b = compareMeasured(t, base, change, nil)
	diffs, err = ProfileDiffs(b, base, change)
	if err != nil || len(diffs) != 1 || diffs[0].SampleType != "own_instructions" || diffs[0].Base != 1_000_000 || diffs[0].New != 1_100_000 {
		t.Fatalf("diffs %+v, %v: want one of own instructions, 1,000,000 → 1,100,000", diffs, err)
	}

	// An accepted regression is not diffed: a failing figure that is not
	// Cachegrind's gets the gated instructions'.
	change = goMeasured(cachegrindOut(1_100_000, 11_600, 500_000, 4_000), 1_100_000, 11_600)
	change.Metrics = append(change.Metrics, result.Metric{Name: "alloc_bytes", Unit: "bytes", Values: []float64{2}, Gated: true, Threshold: verdict.CountThreshold})
	base.Metrics = append(base.Metrics, result.Metric{Name: "alloc_bytes", Unit: "bytes", Values: []float64{1}, Gated: true, Threshold: verdict.CountThreshold})
	b = compareMeasured(t, base, change, []verdict.Acceptance{
		{Benchmark: "havlak6", Figure: "own_instructions", Reason: "r"}, {Benchmark: "havlak6", Figure: "d1_misses", Reason: "r"}})
	if diffs, err = ProfileDiffs(b, base, change); err != nil || len(diffs) != 1 || diffs[0].SampleType != "own_instructions" {
		t.Errorf("only alloc_bytes failing: %+v, %v, want the own instructions' diff", diffs, err)
	}

	// A side that did not simulate the caches: its D1 misses cannot be
	// diffed, and the check says so.
	base = goMeasured("events: Ir\nfn=main.f\n1 100\nsummary: 100\n", 100, 10_000)
	change = goMeasured(cachegrindOut(1_000_000, 11_600, 500_000, 4_000), 100, 11_600)
	b = compareMeasured(t, base, change, nil)
	if diffs, err = ProfileDiffs(b, base, change); len(diffs) != 0 || err == nil || !strings.Contains(err.Error(), "did not simulate the caches") {
		t.Errorf("no cache simulation at the base: %+v, %v", diffs, err)
	}

	// Without Cachegrind's output on both sides, the CPU profiles.
	change.Outputs = files{}
	if _, err = ProfileDiffs(b, base, change); err == nil || !strings.Contains(err.Error(), "no CPU profile") || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no Cachegrind output at the change: %v", err)
	}
}
