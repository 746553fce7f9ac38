package summary

import (
	"slices"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// The comparison as a table: every benchmark paired whole (the base's
// gone one missing, the change's new one only in the change), its rows
// worst first, its sections in verdict's order of outcomes (missing
// before improved), and its tally the rows'.
func TestTable(t *testing.T) {
	base := []Side{program("havlak6", 1e9, 2), program("havlak7", 3e8, 1), program("faster", 2e8, 1), server("router", 20000), program("gone", 1e6, 1)}
	change := []Side{program("havlak6", 1.05e9, 2), program("havlak7", 3e8, 1), program("faster", 1e8, 1), server("router", 10000), program("new", 1, 1)}
	s, err := Compare("report", "base/", base, change, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	if b := find(t, s, "new"); !b.OnlyInChange || b.Outcome != verdict.NotComparable {
		t.Errorf("the change's new benchmark: %+v, want only in the change, not compared", b)
	}
	table := s.Table()
	var names []string
	for _, b := range table.Benchmarks {
		names = append(names, b.Name)
	}
	// Failing first: gone (missing) before the regressions (as bad: in
	// the comparison's order); then not compared, improved, unchanged.
	if want := []string{"gone", "havlak6", "router", "new", "faster", "havlak7"}; !slices.Equal(names, want) {
		t.Errorf("benchmarks worst first: %v, want %v", names, want)
	}
	var sections []verdict.Outcome
	for _, sec := range table.Sections {
		sections = append(sections, sec.Outcome)
		for _, r := range sec.Rows {
			if r.Outcome() != sec.Outcome {
				t.Errorf("section %s has a row of %s", sec.Outcome, r.Outcome())
			}
		}
	}
	if !slices.IsSortedFunc(sections, func(x, y verdict.Outcome) int { return x.Rank() - y.Rank() }) ||
		slices.Index(sections, verdict.Missing) > slices.Index(sections, verdict.Improved) {
		t.Errorf("sections %v, want verdict's order (verdict.Outcomes)", sections)
	}
	if first := table.Rows[0]; first.Figure != nil || first.Benchmark.Name != "gone" {
		t.Errorf("first row %+v, want the gone benchmark as a whole", first)
	}
	if top := table.Section(verdict.Regressed); len(top) != 2 || top[0].Benchmark.Name != "router" || top[0].Figure.Figure != "throughput" {
		t.Errorf("the regressions: %+v, want router's halved throughput first", top)
	}
	n := 0
	for _, sec := range table.Sections {
		if len(sec.Rows) != table.Tally.Counts[sec.Outcome] {
			t.Errorf("%s: %d rows, tallied %d", sec.Outcome, len(sec.Rows), table.Tally.Counts[sec.Outcome])
		}
		n += len(sec.Rows)
	}
	if n != len(table.Rows) {
		t.Errorf("%d rows in the sections, %d in all", n, len(table.Rows))
	}
}

// EveryFigure pairs the figures only the change has values of too: not
// comparable verdicts, which leave the benchmark's outcome as it was.
// What a reader must see of a table, and what may be folded: the failing,
// gone, regressed and improved before the rest, each part worst first.
func TestTableNotable(t *testing.T) {
	base := []Side{program("havlak6", 1e9, 2), program("havlak7", 3e8, 1), program("faster", 2e8, 1), program("gone", 1e6, 1)}
	change := []Side{program("havlak6", 1.05e9, 2), program("havlak7", 3e8, 1), program("faster", 1e8, 1), program("new", 1, 1)}
	s, err := Compare("report", "base/", base, change, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	notable, quiet := s.Table().Notable()
	names := func(bs []Benchmark) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Name)
		}
		return out
	}
	if got, want := names(notable), []string{"gone", "havlak6", "faster"}; !slices.Equal(got, want) {
		t.Errorf("notable: %v, want %v", got, want)
	}
	if got, want := names(quiet), []string{"new", "havlak7"}; !slices.Equal(got, want) {
		t.Errorf("quiet: %v, want %v", got, want)
	}
}

func TestCompareEveryFigure(t *testing.T) {
	base, change := program("havlak6", 1e9, 2), program("havlak6", 1e9, 2)
	change.Figures = append(change.Figures, result.Figure{Name: "fresh", Unit: "instructions", Gated: true, Class: result.ClassCount,
		Values: []float64{3}})
	plain, err := CompareOne(base, change, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	every, err := CompareOne(base, change, Options{Policy: verdict.Lab, EveryFigure: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(every.Figures) != len(plain.Figures)+1 || every.Outcome != plain.Outcome {
		t.Fatalf("every figure: %d verdicts (%s), without: %d (%s)", len(every.Figures), every.Outcome, len(plain.Figures), plain.Outcome)
	}
	if v := every.Figures[len(every.Figures)-1]; v.Figure != "fresh" || v.Outcome != verdict.NotComparable {
		t.Errorf("the change's own figure: %+v, want fresh, not comparable", v)
	}
}

// Two comparisons joined are one: every benchmark, and what could not
// be read, of both; the first one's tool and baseline.
func TestJoin(t *testing.T) {
	report := &Summary{Tool: "report", Baseline: "base/", Benchmarks: []Benchmark{{Name: "havlak6", Outcome: verdict.Unchanged}},
		Unreadable: []string{"havlak7: no zip"}}
	goTests := &Summary{Tool: "nightly", Baseline: "base/", Benchmarks: []Benchmark{{Name: "explodepath", Outcome: verdict.Regressed}},
		Problems: []string{"a graph"}}
	s := Join(nil, report, goTests)
	if s.Tool != "report" || len(s.Benchmarks) != 2 || s.Benchmarks[1].Name != "explodepath" || len(s.Unreadable) != 1 || len(s.Problems) != 1 {
		t.Errorf("joined: %+v", s)
	}
	if len(report.Benchmarks) != 1 {
		t.Errorf("joining changed its first part: %+v", report)
	}
	if Join(nil, nil) != nil {
		t.Errorf("nothing joined is something")
	}
}
