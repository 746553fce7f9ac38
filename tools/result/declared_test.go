package result

import (
	"slices"
	"testing"
)

// The declared figures of runs and rounds carry their declaration into
// every result's figures, and the consumers' questions are answered from
// the same rows.
func TestDeclaredFigures(t *testing.T) {
	faults := int64(100)
	r := &Result{Benchmark: Benchmark{Name: "p", Kind: KindProgram}, Timing: &Timing{Runs: []Run{
		{Usage: Usage{RealSeconds: 1, UserSeconds: 0.5, MaxRSSKiB: 2048}, MinorFaults: &faults},
		{Usage: Usage{RealSeconds: 2, UserSeconds: 0.5, MaxRSSKiB: 4096}, MinorFaults: &faults},
	}}}
	figs, err := Figures(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	gated := map[string]bool{}
	for _, f := range figs {
		gated[f.Name] = f.Gated
	}
	want := map[string]bool{"real_seconds": true, "user_seconds": false, "sys_seconds": false, "cpu_seconds": false,
		"max_rss_kib": true, "minor_faults": false}
	for name, g := range want {
		if got, ok := gated[name]; !ok || got != g {
			t.Errorf("%s: gated %v (present %v), want %v", name, got, ok, g)
		}
	}
	// A run that did not record a figure leaves it out: no series of runs.
	r.Timing.Runs[1].MinorFaults = nil
	if figs, _ = Figures(r, nil); slices.ContainsFunc(figs, func(f Figure) bool { return f.Name == "minor_faults" }) {
		t.Error("minor_faults from one of two runs")
	}

	for _, c := range []struct {
		name         string
		gated, shown bool
	}{
		{"real_seconds", false, true},    // declared charted
		{"max_rss_kib", true, false},     // declared gated, not charted
		{"own_instructions", true, true}, // a gated metric
		{"d1_misses", false, false},      // a metric shown
	} {
		if got := Charted(c.name, c.gated); got != c.shown {
			t.Errorf("Charted(%s, %v) = %v, want %v", c.name, c.gated, got, c.shown)
		}
	}
	if got := Headline([]string{"own_instructions", "latency_p99", "throughput"}); got != "throughput" {
		t.Errorf("a server's headline: %s", got)
	}
	if got := Headline([]string{"Split/path=a-2"}); got != "Split/path=a-2" {
		t.Errorf("no declared headline: %s", got)
	}
}

// A figure of rounds that a round did not record (one older records lack)
// is left out of a server's figures, as a run's is of a program's: no
// series of rounds, and never a 0 the gate would judge.
func TestRoundFigureOfEveryRound(t *testing.T) {
	defer func(declared []roundFigure) { serverFigures = declared }(serverFigures)
	serverFigures = append(slices.Clip(serverFigures), roundFigure{Declared{Name: "p95_of_some", Unit: "s", Class: ClassTiming},
		func(r LoadRound) (float64, bool) {
			if r.Latency.P95 == nil {
				return 0, false
			}
			return *r.Latency.P95, true
		}})
	r := serverExample()
	for i := range r.Server.Rounds {
		r.Server.Rounds[i].Latency.P95 = ptr(0.002)
	}
	has := func() (p95, throughput bool) {
		figs, err := Figures(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			p95 = p95 || f.Name == "p95_of_some" && len(f.Values) == len(r.Server.Rounds)
			throughput = throughput || f.Name == "throughput"
		}
		return p95, throughput
	}
	if p95, throughput := has(); !p95 || !throughput {
		t.Errorf("every round recorded it: p95 %v, throughput %v", p95, throughput)
	}
	r.Server.Rounds[1].Latency.P95 = nil
	if p95, throughput := has(); p95 || !throughput {
		t.Errorf("a round did not record it: p95 %v, throughput %v", p95, throughput)
	}
}

// What the gate judges is seen: every gated figure of the tables has a
// column in the report and a name in its comparison with the baseline,
// and no two figures of a kind share either.
func TestGatedFiguresHaveColumns(t *testing.T) {
	for _, kind := range []string{KindProgram, KindServer} {
		headers, labels := map[string]string{}, map[string]string{}
		for _, d := range Declarations(kind) {
			c := d.Column
			if d.Gated && (c.Header == "" || c.Label == "") {
				t.Errorf("%s %s: gated, with column %+v: want a header and a label", kind, d.Name, c)
			}
			for _, seen := range []struct {
				names map[string]string
				name  string
			}{{headers, c.Header}, {labels, c.Label}} {
				if other, ok := seen.names[seen.name]; ok && seen.name != "" {
					t.Errorf("%s: %s and %s are both %q", kind, other, d.Name, seen.name)
				}
				seen.names[seen.name] = d.Name
			}
		}
	}
	// A go_test's declared figure is one per benchmark function
	// (PerBenchmark), which no table of a kind has a column for.
	for _, d := range Declarations(KindGoTest) {
		if d.Column != (Column{}) {
			t.Errorf("go_test %s: column %+v, want none", d.Name, d.Column)
		}
	}
}

// A go_test's own instructions per operation, a metric of each benchmark
// function, are their declared figure: gated, charted, the headline, a
// cost of work.
func TestGoTestFigureOfEachBenchmark(t *testing.T) {
	name := PerBenchmark(FigureOwnInstructionsPerOp, "Spin")
	d, ok := Declaration(name)
	if name != "own_instructions_per_op/Spin" || !ok || d.Name != FigureOwnInstructionsPerOp || !d.Gated || !d.Charted || d.Cost != CostWork {
		t.Fatalf("%s: %+v, %v", name, d, ok)
	}
	if !slices.Contains(Declarations(KindGoTest), d) {
		t.Errorf("Declarations(go_test) = %v, want %v among them", Declarations(KindGoTest), d)
	}
	if got := Headline([]string{"Spin-2", name}); got != name {
		t.Errorf("a go_test's headline: %s", got)
	}
	if _, ok := Declaration("Spin/own_instructions_per_op"); ok {
		t.Error("a Go benchmark line named after the figure is declared")
	}
	m := d.Metric(name, "cachegrind", []float64{6011, 6010}, 0.01)
	want := Metric{Name: name, Unit: "instructions/op", Source: "cachegrind", Values: []float64{6011, 6010}, Gated: true, Threshold: 0.01,
		Cost: CostWork, Class: ClassCount}
	if !slices.Equal(m.Values, want.Values) || m.Name != want.Name || m.Unit != want.Unit || !m.Gated || m.Threshold != 0.01 ||
		m.Cost != CostWork || m.Class != ClassCount || m.Exact {
		t.Errorf("its metric: %+v, want %+v", m, want)
	}
}

// OfBenchmark undoes PerBenchmark, and only for a go_test's figure.
func TestOfBenchmark(t *testing.T) {
	figure, benchmark, ok := OfBenchmark(PerBenchmark(FigureOwnInstructionsPerOp, "Spin"))
	if !ok || figure != FigureOwnInstructionsPerOp || benchmark != "Spin" {
		t.Errorf("OfBenchmark(own_instructions_per_op/Spin) = %q, %q, %v", figure, benchmark, ok)
	}
	for _, name := range []string{"own_instructions", "own_instructions_per_op", "own_instructions_per_op/", "instructions/Spin"} {
		if f, b, ok := OfBenchmark(name); ok {
			t.Errorf("OfBenchmark(%q) = %q, %q, true; want not a benchmark function's figure", name, f, b)
		}
	}
}
