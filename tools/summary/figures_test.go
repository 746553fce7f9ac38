package summary

import (
	"strings"
	"testing"

	"havlak-lab/tools/verdict"
)

// havlak7cc is a C++ stage whose D1 misses regressed while its
// instructions moved within the rule and seven other figures did not move:
// what a perf check of a real change found.
func havlak7cc() Benchmark {
	rule := verdict.CountRule(verdict.CountThreshold, true)
	same := func(figure string, n float64) verdict.Verdict {
		return verdict.Judge(figure, "n", []float64{n, n}, []float64{n, n}, rule)
	}
	b := Benchmark{Name: "havlak7cc", Language: "C++", Figures: []verdict.Verdict{
		verdict.Judge("instructions", "instructions", []float64{114_109_000}, []float64{115_021_872}, rule).WithCost("work"),
		same("alloc_bytes", 4_432_675),
		verdict.Judge("d1_misses", "misses", []float64{1_000_000}, []float64{1_159_300}, rule).WithCost("locality"),
		same("alloc_objects", 163),
		same("ll_misses", 20_000),
		same("read_syscalls", 12),
		same("write_syscalls", 3),
		same("i1_misses", 900),
		same("estimated_cycles", 150_000_000),
		verdict.Judge("real_seconds", "s", []float64{1}, []float64{2}, verdict.TimingRule(verdict.TimingThreshold, false)),
	}}
	b.Outcome = verdict.Worst(b.Figures)
	return b
}

func TestFiguresEachWithItsVerdict(t *testing.T) {
	b := havlak7cc()
	f := b.SortFigures()
	if len(f.Failing) != 1 || f.Failing[0].Figure != "d1_misses" || len(f.Changed) != 1 || f.Changed[0].Figure != "instructions" || len(f.Unchanged) != 7 {
		t.Fatalf("sorted: %+v", f)
	}
	for _, c := range []struct {
		evidence bool
		want     string
	}{
		{false, "**REGRESSED** d1_misses +15.93% (cost: locality)<br>instructions +0.80% passed " +
			"<details><summary>7 unchanged</summary>alloc_bytes +0.00%, alloc_objects +0.00%, ll_misses +0.00%, read_syscalls +0.00%, " +
			"write_syscalls +0.00%, i1_misses +0.00%, estimated_cycles +0.00%</details>"},
		{true, "**REGRESSED** d1_misses +15.93% (1,000,000 → 1,159,300, noise 0.0000%, threshold 1%, cost: locality)<br>" +
			"instructions +0.80% (114,109,000 → 115,021,872, noise 0.0000%, threshold 1%) passed <details><summary>7 unchanged</summary>"},
	} {
		if got := b.FiguresMarkdown(c.evidence); !strings.HasPrefix(got, c.want) {
			t.Errorf("evidence %v:\n%s\nwant it to start\n%s", c.evidence, got, c.want)
		}
	}
	if got := b.FiguresMarkdown(false); strings.Contains(got, "real_seconds") {
		t.Errorf("a figure that is not gated is shown: %s", got)
	}
}

// An accepted regression comes after the failing figures, with its
// reason; an inconsistent figure first, gated or not; a missing one
// before a regression; an acceptance of a figure that did not regress is
// listed as such.
func TestFiguresFailingOrder(t *testing.T) {
	b := havlak7cc()
	b.Figures = append(b.Figures,
		verdict.Verdict{Figure: "alloc_objects_counted", Outcome: verdict.Inconsistent, Reason: "same identity, 5 and 6"},
		verdict.MissingFigure("own_d1_misses", "misses", []float64{3}, verdict.CountRule(0.01, true), "the change has no such figure"),
		verdict.Judge("own_instructions", "instructions", []float64{100}, []float64{103}, verdict.CountRule(0.01, true)))
	b.Accepted = []verdict.Acceptance{{Figure: "own_instructions", Reason: "trades <3%> for | memory"}, {Figure: "ll_misses", Reason: "expected"}}
	got := strings.Split(b.FiguresMarkdown(false), "<br>")
	want := []string{
		"**INCONSISTENT** alloc_objects_counted: same identity, 5 and 6",
		"**MISSING** own_d1_misses: the change has no such figure",
		"**REGRESSED** d1_misses +15.93% (cost: locality)",
		`own_instructions +3.00% regressed, accepted: trades \<3%\> for \| memory`,
		"instructions +0.80% passed",
		"accepted ll_misses: expected <details><summary>7 unchanged</summary>",
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestCompareLink(t *testing.T) {
	if _, err := ParseDashboard(""); err != nil {
		t.Errorf("no dashboard: %v", err)
	}
	for _, bad := range []string{"dash.example", "ftp://dash.example/", "http://u:p@dash.example/", "http://dash.example/?x=1", "http://dash.example/#top", "http://"} {
		if _, err := ParseDashboard(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	base, change := strings.Repeat("ab", 20), strings.Repeat("cd", 20)
	for _, c := range []struct{ dashboard, base, change, want string }{
		{"http://127.0.0.1:8080", base, change, "http://127.0.0.1:8080/compare?a=" + base + "&b=" + change},
		{"https://perf.lab.example/dash/", base, change, "https://perf.lab.example/dash/compare?a=" + base + "&b=" + change},
		{"https://perf.lab.example/a b(c)", "x&y", "z#w", "https://perf.lab.example/a%20b%28c%29/compare?a=x%26y&b=z%23w"},
		{"", base, change, ""},
		{"http://127.0.0.1:8080", "", change, ""},
	} {
		u, err := ParseDashboard(c.dashboard)
		if err != nil {
			t.Fatal(err)
		}
		p := Pair{Dashboard: u, Base: c.base, Change: c.change}
		link := p.Link("havlak6 <b>")
		switch {
		case c.want == "" && link != `havlak6 \<b\>`:
			t.Errorf("%+v: %s, want no link", c, link)
		case c.want != "" && link != `[havlak6 \<b\>](`+c.want+")":
			t.Errorf("%+v: %s, want a link to %s", c, link, c.want)
		}
	}
}

func TestMarkdownLinksRows(t *testing.T) {
	s := &Summary{Tool: "report", Benchmarks: []Benchmark{havlak7cc()}}
	u, _ := ParseDashboard("http://127.0.0.1:8080")
	var b strings.Builder
	s.WriteMarkdown(&b, Pair{Dashboard: u, Base: "aaa", Change: "bbb"})
	want := "| [havlak7cc](http://127.0.0.1:8080/compare?a=aaa&b=bbb) | C++ |  | **REGRESSED** | **REGRESSED** d1_misses +15.93% (cost: locality)<br>instructions +0.80% passed <details>"
	if !strings.Contains(b.String(), want) {
		t.Errorf("annotation:\n%s\nwant a row starting\n%s", b.String(), want)
	}
}
