package suite

import (
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/detection"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

func TestParseCaseRefuses(t *testing.T) {
	const diff = "\ndiff --git a/x b/x\n"
	good := "Kind: extra-work\nLanguage: Go\nSize: 2%\nBenchmark: havlak7\nFigure: own_instructions\nWhat: more\n"
	if c, err := ParseCase("p/extra.patch", []byte(good+diff)); err != nil || c.Name != "extra" || c.Figure != "own_instructions" || c.Loosens != "" {
		t.Fatalf("a good header: %+v, %v", c, err)
	}
	if c, err := ParseCase("p/extra.patch", []byte(good+"Loosens: threshold\n"+diff)); err != nil || c.Loosens != "threshold" {
		t.Fatalf("a good header that loosens: %+v, %v", c, err)
	}
	// A neutral case's Kind may follow its Benchmark lines.
	const neutral = "Language: C++\nBenchmark: havlak7\nBenchmark: havlak8\nKind: neutral\nWhat: a comment reworded\n"
	if c, err := ParseCase("p/n.patch", []byte(neutral+diff)); err != nil || !c.IsNeutral() || !slices.Equal(c.Benchmarks, []string{"havlak7", "havlak8"}) || c.Cell() != "neutral n" {
		t.Fatalf("a neutral header of two benchmarks: %+v, %v", c, err)
	}
	for _, tc := range []struct{ text, want string }{
		{strings.Replace(good, "extra-work", "slowness", 1) + diff, "p/x.patch:1: kind \"slowness\": not one of"},
		{strings.Replace(good, "Go", "Rust", 1) + diff, "p/x.patch:2: language \"Rust\""},
		{strings.Replace(good, "2%", "3%", 1) + diff, "p/x.patch:3: size \"3%\""},
		{strings.Replace(good, "havlak7", "../havlak7", 1) + diff, "p/x.patch:4: benchmark"},
		{strings.Replace(good, "own_instructions", "Own Instructions", 1) + diff, "p/x.patch:5: figure"},
		{strings.Replace(good, "What: more\n", "", 1) + diff, "the header has no What"},
		{good + "Kind: extra-work\n" + diff, "p/x.patch:7: Kind given twice"},
		{good + "Reviewer: me\n" + diff, "p/x.patch:7: unknown key \"Reviewer\": want Kind, Language, Size, Benchmark, Figure, What, Loosens"},
		{good + "Loosens: everything\n" + diff, "p/x.patch:7: loosens \"everything\": not one of the suite's loosenings (threshold, gated)"},
		{good + "Loosens: gated\nLoosens: gated\n" + diff, "p/x.patch:8: Loosens given twice"},
		{good, "no diff after the header"},
		{strings.Replace(strings.Replace(good, "extra-work", "contention", 1), "Go", "C++", 1) + diff, "declares contention absent in C++"},
		{strings.Replace(strings.Replace(good, "extra-work", "contention", 1), "2%", "0.5%", 1) + diff, "p/x.patch:3: the suite declares no contention case of 0.5%: the figure meant"},
		{good + "Benchmark: havlak8\n" + diff, "p/x.patch:7: Benchmark given twice (only a neutral case names several)"},
		{neutral + "Benchmark: havlak7\n" + diff, "p/x.patch:6: benchmark havlak7 given twice"},
		{neutral + "Size: 2%\n" + diff, "p/x.patch:6: a neutral case has no Size: it expects no move"},
		{neutral + "Figure: instructions\n" + diff, "p/x.patch:6: a neutral case has no Figure"},
		{neutral + "Loosens: gated\n" + diff, "p/x.patch:6: a neutral case has no Loosens"},
		{strings.Replace(neutral, "Benchmark: havlak7\nBenchmark: havlak8\n", "", 1) + diff, "the header has no Benchmark"},
		{neutral, "no diff after the header"},
	} {
		if _, err := ParseCase("p/x.patch", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

// A matrix of cases: caught, missed, injected in two benchmarks, not run;
// a kind absent in C++ says why, and so do the sizes a kind has no case
// of, in one row per reason; the reruns' false alarms are counted.
func TestMatrixMarkdown(t *testing.T) {
	judged := func(figure string, old, new float64) verdict.Verdict {
		return verdict.Judge(figure, "instructions", []float64{old, old}, []float64{new, new}, verdict.CountRule(0.01, true))
	}
	caught := summary.Benchmark{Name: "havlak7", Figures: []verdict.Verdict{judged("own_instructions", 100e6, 102e6)}}
	missed := summary.Benchmark{Name: "havlak7", Figures: []verdict.Verdict{judged("own_instructions", 100e6, 100.5e6)}}
	m := &Matrix{
		Checkout: "0123456789ab+",
		Base:     "fedcba9876543210",
		Started:  time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Took:     95 * time.Second,
		Outcomes: []Outcome{
			{Case: Case{Name: "a", Kind: "extra-work", Language: "Go", Size: "2%", Benchmarks: []string{"havlak7"}, Figure: "own_instructions"}, Benchmarks: []summary.Benchmark{caught}},
			{Case: Case{Name: "b", Kind: "asymptotic", Language: "Go", Size: "2%", Benchmarks: []string{"havlak7"}, Figure: "own_instructions"}, Benchmarks: []summary.Benchmark{missed}},
			{Case: Case{Name: "b6", Kind: "asymptotic", Language: "Go", Size: "2%", Benchmarks: []string{"havlak6"}, Figure: "own_instructions"}, Benchmarks: []summary.Benchmark{caught}},
			{Case: Case{Name: "d", Kind: "locality", Language: "Go", Size: "2%", Benchmarks: []string{"havlak7"}, Figure: "d1_misses"}, Benchmarks: []summary.Benchmark{missed}},
			{Case: Case{Name: "c", Kind: "syscalls", Language: "Go", Size: "5%", Benchmarks: []string{"wordcount2"}, Figure: "read_syscalls"}, Err: "the patch does not apply"},
		},
		Reruns: []FalseAlarms{{Benchmark: "havlak7", Comparisons: 8}, {Benchmark: "wordcount2", Comparisons: 8, Alarms: []string{"run 3: syscalls +5%"}}},
	}
	var b strings.Builder
	m.WriteMarkdown(&b)
	got := b.String()
	for _, want := range []string{
		"Run of 2026-11-25 10:00 UTC on `0123456789ab+` (the checkout measured), 1m35s in all.",
		"| extra-work | Go | 2% | havlak7 | **caught** by `own_instructions` +2.00% | `own_instructions` +2.00% |",
		// Missed by its figure: under which threshold, and why that one.
		"| asymptotic | Go | 2% | havlak7 | missed | `own_instructions` +0.50%, under its threshold 1% |\n" +
			// The same kind and size in another benchmark: a row of its own.
			"| asymptotic | Go | 2% | havlak6 | **caught** by `own_instructions` +2.00% | `own_instructions` +2.00% |",
		"| syscalls | Go | 5% | wordcount2 | not run: the patch does not apply | `read_syscalls` |",
		"| locality | Go | 2% | havlak7 | missed | `d1_misses`: not among the figures this check gates for the benchmark; what should catch it: Cachegrind's cache simulation (issue 28, item 1) |",
		"| syscalls | C++ | all | — | absent | the lab has no C++ program",
		"| contention | C++ | all | — | absent |",
		"| contention | Go | 0.5%, 1% | — | absent | the figure meant to catch contention is shown, not gated",
		"| syscalls | Go | 0.5%, 1% | — | absent | not made:",
		"- asymptotic: the counted figures are taken on the quick workload",
		"False alarms: 1 in 16 comparisons of unchanged code",
		"| wordcount2 | 8 | 1: run 3: syscalls +5% |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the matrix lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "extra-work: none known") {
		t.Errorf("a caught kind's limit is shown:\n%s", got)
	}
	if err := m.Failure(); err == nil || !strings.Contains(err.Error(), "c: the patch does not apply") || !strings.Contains(err.Error(), "wordcount2: false alarm: run 3") {
		t.Errorf("Failure: %v", err)
	}
	// The same run as the detection record: the caught case with its
	// catcher, the missed ones with none, the one not run with why.
	data, err := detection.Marshal(m.Detection())
	if err != nil {
		t.Fatal(err)
	}
	r, err := detection.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) != 5 || !slices.Equal(r.Cases[0].CaughtBy, []string{"own_instructions"}) || r.Cases[1].Caught() ||
		r.Cases[2].Benchmark != "havlak6" || r.Cases[4].Err != "the patch does not apply" || r.Cases[0].Benchmark != "havlak7" || r.Checkout != "0123456789ab+" {
		t.Errorf("the detection record: %+v", r)
	}
}

// A contention case's figure is a timing shown, not gated: the matrix
// gives its change and why it could not catch the case, judged by the
// lab's comparison as the perf check judges it (one round a side).
func TestMatrixShownFigure(t *testing.T) {
	wait := func(x float64) []result.Figure {
		return result.MetricFigures([]result.Metric{{Name: "mutex_wait_per_cpu_second", Unit: "s/cpu-s", Values: []float64{x},
			Class: result.ClassTiming, Cost: result.CostContention}})
	}
	figures := verdict.Lab.Compare(verdict.Side{Figures: wait(0.01)}, verdict.Side{Figures: wait(0.03)})
	judged := summary.Benchmark{Name: "router_sharded", Outcome: verdict.Worst(figures), Figures: figures}
	c := Case{Name: "contention-go-5", Kind: "contention", Language: "Go", Size: "5%", Benchmarks: []string{"router_sharded"}, Figure: "mutex_wait_per_cpu_second"}
	m := &Matrix{Outcomes: []Outcome{{Case: c, Benchmarks: []summary.Benchmark{judged}}}}
	var b strings.Builder
	m.WriteMarkdown(&b)
	want := "| contention | Go | 5% | router_sharded | missed | `mutex_wait_per_cpu_second` +200.00% (shown, not gated; not comparable: 1 and 1 runs: too few for the U test (5 each); judged by a factor of 10 only) |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the matrix lacks %q:\n%s", want, b.String())
	}
	if got := m.Outcomes[0].Summary(); !strings.Contains(got, "missed (mutex_wait_per_cpu_second +200.00% (shown, not gated;") {
		t.Errorf("Summary = %q", got)
	}
	if err := m.Failure(); err != nil {
		t.Errorf("a figure shown, not gated, fails the suite: %v", err)
	}
}

func TestReplaceBetweenMarkers(t *testing.T) {
	doc := "# Noise\n\n" + BeginMarker + "\nold\n" + EndMarker + "\nafter\n"
	got, err := ReplaceBetweenMarkers([]byte(doc), []byte("new matrix\n"))
	if want := "# Noise\n\n" + BeginMarker + "\nnew matrix\n" + EndMarker + "\nafter\n"; err != nil || string(got) != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"no markers", EndMarker + BeginMarker, BeginMarker + BeginMarker + EndMarker} {
		if _, err := ReplaceBetweenMarkers([]byte(bad), nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A case that loosens its benchmark's own gate is caught by the base's
// gate, in a row of its own that says what the change tried; one whose
// gate did not hold (a comparison the change's declaration decided) fails
// the suite.
func TestMatrixLoosened(t *testing.T) {
	instructions := func(value float64, gated bool, threshold float64) []result.Figure {
		return result.MetricFigures([]result.Metric{{Name: "instructions", Unit: "instructions", Source: "cachegrind",
			Values: []float64{value}, Gated: gated, Threshold: threshold, Exact: true}})
	}
	judge := func(changeGated bool, changeThreshold float64) []summary.Benchmark {
		figures := verdict.Lab.Compare(verdict.Side{Figures: instructions(100e6, true, 0.01)},
			verdict.Side{Figures: instructions(105e6, changeGated, changeThreshold)})
		return []summary.Benchmark{{Name: "havlak7cc", Outcome: verdict.Worst(figures), Figures: figures}}
	}
	// What a comparison would make of it if the change's declaration
	// decided: 5% under a threshold of 100%.
	through := verdict.Judge("instructions", "instructions", []float64{100e6}, []float64{105e6}, verdict.CountRule(1, true))
	plain := Case{Name: "extra-work-cc-5", Kind: "extra-work", Language: "C++", Size: "5%", Benchmarks: []string{"havlak7cc"}, Figure: "instructions"}
	threshold, gated := plain, plain
	threshold.Name, threshold.Loosens = "extra-work-cc-5-threshold-100", "threshold"
	gated.Name, gated.Loosens = "extra-work-cc-5-ungated", "gated"
	m := &Matrix{Checkout: "0123456789ab", Started: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Outcomes: []Outcome{
			{Case: gated, Benchmarks: judge(false, 0.01)},
			{Case: threshold, Benchmarks: judge(true, 1)},
			{Case: plain, Benchmarks: judge(true, 0.01)},
		}}
	for _, o := range m.Outcomes {
		if err := o.GateHeld(); err != nil {
			t.Errorf("%s: %v", o.Case.Name, err)
		}
	}
	var b strings.Builder
	m.WriteMarkdown(&b)
	got := b.String()
	rows := []string{
		"| extra-work | C++ | 5% | havlak7cc | **caught** by `instructions` +5.00% | `instructions` +5.00% |",
		"| extra-work + its own threshold raised to 100% | C++ | 5% | havlak7cc | **caught** by `instructions` +5.00%; the base's gate applied, the perf check's summary says: the change declares a threshold of 100.0%, the base 1.0%: the base's applies | `instructions` +5.00% |",
		"| extra-work + its own `gated` dropped | C++ | 5% | havlak7cc | **caught** by `instructions` +5.00%; the base's gate applied, the perf check's summary says: the change no longer gates it: the base's gate applies | `instructions` +5.00% |",
	}
	wantInOrder(t, got, rows)
	if err := m.Failure(); err != nil {
		t.Errorf("Failure: %v", err)
	}
	if s := m.Outcomes[1].Summary(); !strings.Contains(s, "caught by instructions +5.00%") || !strings.Contains(s, "the base's applies") {
		t.Errorf("Summary: %s", s)
	}

	m.Outcomes[1].Benchmarks = []summary.Benchmark{{Name: "havlak7cc", Outcome: through.Outcome, Figures: []verdict.Verdict{through}}}
	b.Reset()
	m.WriteMarkdown(&b)
	if want := "| extra-work + its own threshold raised to 100% | C++ | 5% | havlak7cc | **GOT THROUGH**: the change loosened its own gate and got through: instructions +5.00%"; !strings.Contains(b.String(), want) {
		t.Errorf("the matrix lacks %q:\n%s", want, b.String())
	}
	if err := m.Failure(); err == nil || !strings.Contains(err.Error(), "extra-work-cc-5-threshold-100: the change loosened its own gate and got through") {
		t.Errorf("Failure: %v", err)
	}
	// Caught, but the verdict does not say the gate was loosened.
	silent := judge(true, 1)
	silent[0].Figures[0].Loosened = ""
	m.Outcomes[1].Benchmarks = silent
	if err := m.Outcomes[1].GateHeld(); err == nil || !strings.Contains(err.Error(), "does not say that the change loosened its gate") {
		t.Errorf("GateHeld: %v", err)
	}
}

// wantInOrder fails t unless the matrix got has each of rows, in order.
func wantInOrder(t *testing.T, got string, rows []string) {
	t.Helper()
	last := -1
	for _, row := range rows {
		i := strings.Index(got, row)
		if i < 0 {
			t.Errorf("the matrix lacks %q:\n%s", row, got)
		} else if i < last {
			t.Errorf("%q is out of order:\n%s", row, got)
		}
		last = i
	}
}
