package suite

import (
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

func TestParseCaseRefuses(t *testing.T) {
	const diff = "\ndiff --git a/x b/x\n"
	good := "Kind: extra-work\nLanguage: Go\nSize: 2%\nBenchmark: havlak7\nFigure: own_instructions\nWhat: more\n"
	if c, err := ParseCase("p/extra.patch", []byte(good+diff)); err != nil || c.Name != "extra" || c.Figure != "own_instructions" {
		t.Fatalf("a good header: %+v, %v", c, err)
	}
	for _, tc := range []struct{ text, want string }{
		{strings.Replace(good, "extra-work", "slowness", 1) + diff, "p/x.patch:1: kind \"slowness\": not one of"},
		{strings.Replace(good, "Go", "Rust", 1) + diff, "p/x.patch:2: language \"Rust\""},
		{strings.Replace(good, "2%", "3%", 1) + diff, "p/x.patch:3: size \"3%\""},
		{strings.Replace(good, "havlak7", "../havlak7", 1) + diff, "p/x.patch:4: benchmark"},
		{strings.Replace(good, "own_instructions", "Own Instructions", 1) + diff, "p/x.patch:5: figure"},
		{strings.Replace(good, "What: more\n", "", 1) + diff, "the header has no What"},
		{good + "Kind: extra-work\n" + diff, "p/x.patch:7: Kind given twice"},
		{good + "Reviewer: me\n" + diff, "p/x.patch:7: unknown key \"Reviewer\""},
		{good, "no diff after the header"},
		{strings.Replace(strings.Replace(good, "extra-work", "contention", 1), "Go", "C++", 1) + diff, "declares contention absent in C++"},
	} {
		if _, err := ParseCase("p/x.patch", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

// A matrix of three cases: one caught, one missed, one that did not run;
// a kind absent in C++ says why; the reruns' false alarms are counted.
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
			{Case: Case{Name: "a", Kind: "extra-work", Language: "Go", Size: "2%", Benchmark: "havlak7", Figure: "own_instructions"}, Benchmark: &caught},
			{Case: Case{Name: "b", Kind: "asymptotic", Language: "Go", Size: "2%", Benchmark: "havlak7", Figure: "own_instructions"}, Benchmark: &missed},
			{Case: Case{Name: "d", Kind: "locality", Language: "Go", Size: "2%", Benchmark: "havlak7", Figure: "d1_misses"}, Benchmark: &missed},
			{Case: Case{Name: "c", Kind: "syscalls", Language: "Go", Size: "5%", Benchmark: "wordcount2", Figure: "read_syscalls"}, Err: "the patch does not apply"},
		},
		Reruns: []FalseAlarms{{Benchmark: "havlak7", Comparisons: 8}, {Benchmark: "wordcount2", Comparisons: 8, Alarms: []string{"run 3: syscalls +5%"}}},
	}
	var b strings.Builder
	m.WriteMarkdown(&b)
	got := b.String()
	for _, want := range []string{
		"Run of 2026-11-25 10:00 UTC on `0123456789ab+` (the checkout measured), 1m35s in all.",
		"| extra-work | Go | 2% | havlak7 | **caught** by `own_instructions` +2.00% | `own_instructions` +2.00% |",
		"| asymptotic | Go | 2% | havlak7 | missed | `own_instructions` +0.50% |",
		"| syscalls | Go | 5% | wordcount2 | not run: the patch does not apply | `read_syscalls` |",
		"| locality | Go | 2% | havlak7 | missed | `d1_misses`: not among the figures this check gates for the benchmark; what should catch it: Cachegrind's cache simulation (issue 28, item 1) |",
		"| syscalls | C++ | both | — | absent | the lab has no C++ program",
		"| contention | C++ | both | — | absent |",
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
