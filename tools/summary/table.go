package summary

import (
	"slices"

	"havlak-lab/tools/verdict"
)

// A Table is a comparison as every consumer reads it, paired, ordered
// and counted here once: its benchmarks and its rows worst first by the
// lab's one order of how bad (Worse, whose outcomes are in
// verdict.Outcomes' order), its rows sectioned by outcome in that order,
// and its tally. A page, a comment or a report takes it whole: none
// pairs, orders or counts the comparison again.
type Table struct {
	// Benchmarks are the benchmarks worst first (WorseBenchmark): the
	// failing ones first, then by outcome; as bad, in the order given.
	Benchmarks []Benchmark
	// Rows are every figure of every benchmark, and each benchmark judged
	// without figures as one row, worst first (Worse); as bad, in the
	// order given.
	Rows []Row
	// Sections are the rows by outcome, in verdict.Outcomes' order, each
	// worst first; an outcome of no row has none.
	Sections []Section
	// Tally counts the rows' verdicts (TallyOf).
	Tally Tally
}

// A Row is one line of a comparison: one figure of a benchmark with its
// verdict, or a benchmark judged without figures (gone, only in the
// change, not compared) as a whole.
type Row struct {
	Benchmark Benchmark
	// Figure is the figure's verdict; nil for a whole benchmark.
	Figure *verdict.Verdict
}

// Outcome is the row's: its figure's, or its whole benchmark's.
func (r Row) Outcome() verdict.Outcome {
	if r.Figure != nil {
		return r.Figure.Outcome
	}
	return r.Benchmark.Outcome
}

// Severity is how bad the row is (Worse): its figure's as its benchmark
// judges it (Benchmark.FigureSeverity), or its whole benchmark's.
func (r Row) Severity() Severity {
	if r.Figure != nil {
		return r.Benchmark.FigureSeverity(*r.Figure)
	}
	return r.Benchmark.Severity()
}

// A Section is the rows of one outcome, worst first.
type Section struct {
	Outcome verdict.Outcome
	Rows    []Row
}

// Table is s's benchmarks as a table (TableOf).
func (s *Summary) Table() Table { return TableOf(s.Benchmarks) }

// TableOf is benchmarks, as one comparison judged them, paired whole
// (each benchmark is at both sides, or is gone, or only in the change),
// as a table: ordered worst first, sectioned and counted.
func TableOf(benchmarks []Benchmark) Table {
	t := Table{Benchmarks: slices.Clone(benchmarks), Tally: TallyOf(benchmarks)}
	slices.SortStableFunc(t.Benchmarks, WorseBenchmark)
	for _, b := range benchmarks {
		if len(b.Figures) == 0 {
			t.Rows = append(t.Rows, Row{Benchmark: b})
			continue
		}
		for i := range b.Figures {
			t.Rows = append(t.Rows, Row{Benchmark: b, Figure: &b.Figures[i]})
		}
	}
	slices.SortStableFunc(t.Rows, func(x, y Row) int { return Worse(x.Severity(), y.Severity()) })
	for _, o := range verdict.Outcomes() {
		var rows []Row
		for _, r := range t.Rows {
			if r.Outcome() == o {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			t.Sections = append(t.Sections, Section{Outcome: o, Rows: rows})
		}
	}
	return t
}

// Section is t's section of outcome o: its rows, none when it has none.
func (t Table) Section(o verdict.Outcome) []Row {
	for _, s := range t.Sections {
		if s.Outcome == o {
			return s.Rows
		}
	}
	return nil
}

// Notable are t's benchmarks a reader must see, worst first: each that
// fails, is inconsistent, gone, regressed or improved. Quiet are the
// others (unchanged, or not compared and failing nothing), worst first:
// a comment or a page may fold them away.
func (t Table) Notable() (notable, quiet []Benchmark) {
	for _, b := range t.Benchmarks {
		switch {
		case b.Fails(), b.Outcome != verdict.Unchanged && b.Outcome != verdict.NotComparable:
			notable = append(notable, b)
		default:
			quiet = append(quiet, b)
		}
	}
	return notable, quiet
}

// Join is comparisons made apart of one night or change (the nightly
// gate's report of its programs and servers, and its Go benchmarks') as
// one summary: their benchmarks, profile diffs, unreadable results and
// problems together, with the first one's tool and baseline. Nil ones
// are left out; nil when all are.
func Join(parts ...*Summary) *Summary {
	var s *Summary
	for _, p := range parts {
		switch {
		case p == nil:
		case s == nil:
			joined := *p
			joined.Benchmarks, joined.ProfileDiffs = slices.Clone(p.Benchmarks), slices.Clone(p.ProfileDiffs)
			joined.Unreadable, joined.Problems = slices.Clone(p.Unreadable), slices.Clone(p.Problems)
			s = &joined
		default:
			s.Benchmarks = append(s.Benchmarks, p.Benchmarks...)
			s.ProfileDiffs = append(s.ProfileDiffs, p.ProfileDiffs...)
			s.Unreadable = append(s.Unreadable, p.Unreadable...)
			s.Problems = append(s.Problems, p.Problems...)
		}
	}
	return s
}
