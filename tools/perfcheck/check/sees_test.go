package check

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/detection"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// withRecord makes the comment read record (or fail with err) for the
// rest of the test, as if this build had embedded it.
func withRecord(t *testing.T, record *detection.Record, err error) {
	t.Helper()
	old := detectionRecord
	detectionRecord = func() (*detection.Record, error) { return record, err }
	t.Cleanup(func() { detectionRecord = old })
}

// calibrated is a gated count's verdict, unchanged, its threshold
// calibrated by the lab's policy from noise.
func calibrated(figure string, exact bool, noise verdict.Noise) verdict.Verdict {
	rule, c := verdict.Lab.Calibrate(verdict.Rule{Threshold: verdict.CountThreshold, Gated: true, BeyondNoise: true}, result.ClassCount, exact, noise)
	return verdict.Verdict{Figure: figure, Unit: "n", Outcome: verdict.Unchanged, Rule: rule, Calibration: &c, Class: result.ClassCount, Exact: exact,
		Old: result.NewSample([]float64{100}), New: result.NewSample([]float64{100})}
}

// seesRecord is a run of the suite: 0.5% extra work caught by
// instructions on havlak7cc; 1% locality caught by d1_misses on
// havlak6cc, and 2% on havlak7cc missed; nothing caught by
// write_syscalls.
func seesRecord() *detection.Record {
	return &detection.Record{Version: detection.Version, Checkout: strings.Repeat("9f", 20), Started: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC), Cases: []detection.Case{
		{Name: "extra-work-cc-0.5", Kind: "extra-work", Language: "C++", Size: "0.5%", Benchmark: "havlak7cc", Figure: "instructions", CaughtBy: []string{"instructions"}},
		{Name: "locality-cc-2", Kind: "locality", Language: "C++", Size: "2%", Benchmark: "havlak7cc", Figure: "d1_misses", CaughtBy: []string{}},
		{Name: "locality-cc-1", Kind: "locality", Language: "C++", Size: "1%", Benchmark: "havlak6cc", Figure: "d1_misses", CaughtBy: []string{"d1_misses"}},
		{Name: "syscalls-cc-1", Kind: "syscalls", Language: "C++", Size: "1%", Benchmark: "havlak7cc", Figure: "write_syscalls", CaughtBy: []string{}},
	}}
}

// seesSummary is a check of havlak7cc (C++), whose gated figures' thresholds
// come from each source: 3 reruns under the floor, 10 history results, a
// noise over the ceiling, and too few measurements (declared); and of a
// quiet Go benchmark whose D1 misses were caught only on a C++ one.
func seesSummary() *summary.Summary {
	rerun := func(spread float64, n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 1e6 * (1 + spread*float64(i)/float64(n))
		}
		return v
	}
	havlak7cc := summary.Benchmark{Name: "havlak7cc", Language: "C++", Outcome: verdict.Regressed, Figures: []verdict.Verdict{
		calibrated("instructions", true, verdict.Noise{Reruns: rerun(0, 3)}),
		calibrated("d1_misses", true, verdict.Noise{Reruns: []float64{1e6}, History: rerun(0.001, 10)}),
		calibrated("alloc_bytes", true, verdict.Noise{Reruns: rerun(0.01, 3)}),
		calibrated("write_syscalls", true, verdict.Noise{Reruns: []float64{1e6}}),
		{Figure: "ll_misses", Unit: "n", Outcome: verdict.Unchanged, Rule: verdict.Rule{Threshold: verdict.CountThreshold}},
	}}
	d1 := &havlak7cc.Figures[1]
	d1.Outcome, d1.Change, d1.New = verdict.Regressed, 0.02, result.NewSample([]float64{102})
	havlak5 := summary.Benchmark{Name: "havlak5", Language: "Go", Outcome: verdict.Unchanged, Figures: []verdict.Verdict{
		calibrated("d1_misses", false, verdict.Noise{Reruns: rerun(0.0015, 3)})}}
	return &summary.Summary{Tool: "perfcheck", Baseline: strings.Repeat("ab", 20), Benchmarks: []summary.Benchmark{havlak5, havlak7cc}}
}

// The comment says, per gated figure, where its threshold came from and
// the smallest regression the suite caught with it: on the benchmark
// itself, only on another (of another language: named), or never. The
// ungated figure is left out; the failing benchmark comes first.
func TestCommentSees(t *testing.T) {
	withRecord(t, seesRecord(), nil)
	s := seesSummary()
	plan := Plan{Changed: []Target{{Benchmark: "havlak5"}, {Benchmark: "havlak7cc"}}, Unchanged: []string{"havlak1"}}
	var b strings.Builder
	WriteComment(&b, s, plan, summary.Pair{}, CommentLimit)
	text := b.String()
	want := "\n<details><summary>What each gated figure can see: its threshold and where that came from, and the smallest case of the regression suite it caught " +
		"(the base's record: the suite's run at `9f9f9f9f9f9f`, 2026-11-29)</summary>\n\n" +
		"- havlak7cc:\n" +
		"  - `instructions`: threshold 0.25% (the floor: what 3 reruns measured is under it); the smallest the suite caught with it: 0.5% extra-work, on this benchmark\n" +
		"  - `d1_misses`: threshold 0.45% (calibrated from 10 history results); on this benchmark it missed 2% locality; the smallest caught elsewhere: 1% locality, on havlak6cc\n" +
		"  - `alloc_bytes`: threshold 1% (the declared ceiling: what 3 reruns measured is over it); the suite caught nothing with it\n" +
		"  - `write_syscalls`: threshold 1% (the declared ceiling: too few unchanged measurements to calibrate it); on this benchmark it missed 1% syscalls; the suite caught nothing with it\n" +
		"- havlak5:\n" +
		"  - `d1_misses`: threshold 0.5% (the floor: what 3 reruns measured is under it); on this benchmark the suite caught nothing with it; the smallest elsewhere: 1% locality, on havlak6cc (C++)\n" +
		"\n</details>\n"
	if !strings.Contains(text, want) {
		t.Errorf("comment:\n%s\nwant the block\n%s", text, want)
	}
	// The rows keep their own lines, and the block comes before the list
	// of benchmarks not measured.
	if !strings.Contains(text, "| havlak7cc | **REGRESSED** | **REGRESSED** d1_misses +2.00%") ||
		strings.Index(text, "| havlak5 |") > strings.Index(text, "What each gated figure") ||
		strings.Index(text, "What each gated figure") > strings.Index(text, "1 not measured") {
		t.Errorf("the rows or the order changed:\n%s", text)
	}
	if strings.Contains(text, "ll\\_misses") || strings.Contains(text, "`ll_misses`") {
		t.Errorf("an ungated figure is said to see something:\n%s", text)
	}
}

// A record that cannot be read, or holds no run yet, is said in one line;
// the thresholds are shown all the same, and nothing is claimed caught.
func TestCommentSeesWithoutARecord(t *testing.T) {
	for name, tc := range map[string]struct {
		record *detection.Record
		err    error
		note   string
	}{
		"unreadable": {nil, errors.New("detection.json: format version 2, want 1 <b>"),
			"The regression suite's detection record could not be read (detection.json: format version 2, want 1 \\<b\\>): what the suite caught is not shown.\n"},
		"empty": {&detection.Record{Version: detection.Version}, nil,
			"The regression suite's detection record holds no run yet: what the suite caught is not shown.\n"},
	} {
		withRecord(t, tc.record, tc.err)
		var b strings.Builder
		WriteComment(&b, seesSummary(), Plan{Changed: []Target{{Benchmark: "havlak7cc"}}}, summary.Pair{}, CommentLimit)
		text := b.String()
		if strings.Count(text, tc.note) != 1 || strings.Contains(text, "suite caught nothing") || strings.Contains(text, "the smallest the suite") || strings.Contains(text, "elsewhere") ||
			!strings.Contains(text, "  - `instructions`: threshold 0.25% (the floor: what 3 reruns measured is under it)\n") ||
			!strings.Contains(text, "the smallest case of the regression suite it caught</summary>") {
			t.Errorf("%s:\n%s", name, text)
		}
	}
}

// Names from results are escaped; a name that looks like Markdown or
// HTML stays text.
func TestCommentSeesEscapes(t *testing.T) {
	r := seesRecord()
	r.Checkout += "+"
	r.Cases = append(r.Cases, detection.Case{Name: "odd", Kind: "<img src=x>", Language: "C++", Size: "5%", Benchmark: "a|b", Figure: "f", CaughtBy: []string{"f`x"}})
	withRecord(t, r, nil)
	s := &summary.Summary{Tool: "perfcheck", Baseline: "abc", Benchmarks: []summary.Benchmark{{Name: "a|b", Language: "C++", Figures: []verdict.Verdict{
		calibrated("f`x", true, verdict.Noise{Reruns: []float64{1, 1, 1}})}}}}
	var b strings.Builder
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "a|b"}}}, summary.Pair{}, CommentLimit)
	if !strings.Contains(b.String(), "(the base's record: the suite's run at `9f9f9f9f9f9f` with uncommitted changes, 2026-11-29)") {
		t.Errorf("the record's checkout, with changes, is not said so:\n%s", b.String())
	}
	if want := "- a\\|b:\n  - ``f`x``: threshold 0.25% (the floor: what 3 reruns measured is under it); the smallest the suite caught with it: 5% \\<img src=x\\>, on this benchmark\n"; !strings.Contains(b.String(), want) {
		t.Errorf("comment:\n%s\nwant\n%s", b.String(), want)
	}
}

// A Go benchmark's line gates two figures of one name: each is told by
// its unit.
func TestCommentSeesUnits(t *testing.T) {
	withRecord(t, seesRecord(), nil)
	bytes, allocs := calibrated("Naive-2", false, verdict.Noise{}), calibrated("Naive-2", false, verdict.Noise{})
	bytes.Unit, allocs.Unit = "B/op", "allocs/op"
	s := &summary.Summary{Tool: "perfcheck", Baseline: "abc", Benchmarks: []summary.Benchmark{{Name: "explodepath", Language: "Go", Figures: []verdict.Verdict{bytes, allocs}}}}
	var b strings.Builder
	WriteComment(&b, s, Plan{Changed: []Target{{Benchmark: "explodepath"}}}, summary.Pair{}, CommentLimit)
	if !strings.Contains(b.String(), "- explodepath:\n  - `Naive-2` (B/op): threshold 1% (the declared ceiling: too few unchanged measurements to calibrate it); the suite caught nothing with it\n  - `Naive-2` (allocs/op): threshold 1%") {
		t.Errorf("comment:\n%s", b.String())
	}
}

// Many benchmarks of many gated figures: the block is cut with the rest,
// saying how many benchmarks it leaves out, and the comment stays under
// the limit; with a smaller limit the block goes before the table does.
func TestCommentSeesCut(t *testing.T) {
	withRecord(t, seesRecord(), nil)
	many := &summary.Summary{Tool: "perfcheck", Baseline: "abc"}
	var plan Plan
	for i := range 200 {
		name := fmt.Sprintf("benchmark_%03d", i)
		many.Benchmarks = append(many.Benchmarks, compareOne(t, cacheCounted(1e8, 1e6), cacheCounted(1e8, 1e6), nil))
		many.Benchmarks[i].Name = name
		plan.Changed = append(plan.Changed, Target{Benchmark: name})
		plan.Unchanged = append(plan.Unchanged, name+"_other")
	}
	var b strings.Builder
	WriteComment(&b, many, plan, summary.Pair{}, CommentLimit)
	text := b.String()
	block, _, ok := strings.Cut(text[strings.Index(text, "What each gated figure"):], "</details>")
	if n := len([]rune(text)); n > 65536 || !ok || !strings.Contains(block, "- benchmark_000:\n  - `instructions`: threshold 1%") ||
		!strings.Contains(block, "more (summary.json has their thresholds, tools/detection/detection.json what the suite caught)\n") || !strings.Contains(text, "200 measured, unchanged within the noise") {
		t.Errorf("a comment of %d characters:\n%s", n, text)
	}
	// Room for the table alone: no block, the table's rows all there.
	b.Reset()
	WriteComment(&b, many, plan, summary.Pair{}, len(text)-len(block))
	if strings.Contains(b.String(), "What each gated figure") || strings.Count(b.String(), "| benchmark_") != 200 {
		t.Errorf("with room for the table alone:\n%s", b.String())
	}
}
