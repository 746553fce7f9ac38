package export

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// side is r as a side of the comparison, its figure name's values
// multiplied by factor.
func side(t *testing.T, r *result.Result, name string, factor float64) summary.Side {
	t.Helper()
	s, err := summary.NewSide(r, nil, r.Benchmark.Name)
	if err != nil {
		t.Fatal(err)
	}
	s.Figures = slices.Clone(s.Figures)
	for i, f := range s.Figures {
		if f.Name == name {
			s.Figures[i].Values = make([]float64, len(f.Values))
			for j, v := range f.Values {
				s.Figures[i].Values[j] = v * factor
			}
		}
	}
	return s
}

// set is r, its figure name's values multiplied by factor, as the report's
// set of one benchmark.
func set(t *testing.T, r *result.Result, name string, factor float64) *model.Set {
	s := side(t, r, name, factor)
	if r.Benchmark.Kind == result.KindServer {
		return &model.Set{Workload: result.WorkloadQuick, Servers: []*model.ServerRow{{Benchmark: r.Benchmark, Server: r.Server, Median: r.Server.Median(), Side: s}}}
	}
	return &model.Set{Workload: result.WorkloadQuick, Results: []*model.Result{{Benchmark: r.Benchmark, Runs: r.Timing.Runs, Side: s}}}
}

// Every figure the table declares gated (result.Declared) fails the
// report's comparison when it alone is three times worse, is named in the
// comparison's text, and has its column, its header and its value in the
// report's table, in Markdown and on the page: a row of the table is all
// a new figure needs.
func TestDeclaredFiguresAreGatedAndShown(t *testing.T) {
	for _, kind := range []string{result.KindProgram, result.KindServer} {
		r := resulttest.Declared(kind)
		for _, d := range result.Declarations(kind) {
			if d.Gated {
				t.Run(d.Name, func(t *testing.T) { checkGatedAndShown(t, r, d) })
			}
		}
	}
}

// checkGatedAndShown checks declared figure d of the benchmark r, made
// three times worse.
func checkGatedAndShown(t *testing.T, r *result.Result, d result.Declared) {
	worse := 3.0
	if result.BetterOf(d.Unit) == result.HigherIsBetter {
		worse = 1 / worse
	}
	rep := model.New(set(t, r, d.Name, worse))
	rep.Baseline = "the same, as measured"
	if _, _, err := model.Compare(rep, set(t, r, d.Name, 1), model.Gate{}, nil); err != nil {
		t.Fatal(err)
	}
	b := rep.Compared.Benchmarks[0]
	if !b.Fails() || !slices.ContainsFunc(b.Figures, func(v verdict.Verdict) bool { return v.Figure == d.Name && v.Fails() }) {
		t.Errorf("three times worse, %s does not fail the comparison: %+v", d.Name, b.Figures)
	}
	files, _, err := Files(rep)
	if err != nil {
		t.Fatal(err)
	}
	table, page := string(files["table.md"]), string(files["index.html"])

	// The cell as each table shows it: a program's median and range, a
	// server's median.
	values := side(t, r, d.Name, worse).Figures
	i := slices.IndexFunc(values, func(f result.Figure) bool { return f.Name == d.Name })
	s := result.NewSample(values[i].Values)
	n, c := d.Column.Digits, d.Column
	cell := fmt.Sprintf("%.*f", n, c.Shown(s.Median))
	if r.Benchmark.Kind == result.KindProgram {
		cell = fmt.Sprintf("%.*f (%.*f–%.*f)", n, c.Shown(s.Median), n, c.Shown(s.Min), n, c.Shown(s.Max))
	}
	row := lineOf(table, "| "+r.Benchmark.Name+" |")
	if !strings.Contains(table, " "+c.Header) || !strings.Contains(row, "| "+cell+" |") {
		t.Errorf("table.md lacks the column %q or the cell %q:\n%s", c.Header, cell, table)
	}
	if !strings.Contains(row, "**REGRESSED**") || c.Label == "" || !strings.Contains(row, " "+c.Label+" ") {
		t.Errorf("table.md's comparison does not name %s (%q):\n%s", d.Name, c.Label, row)
	}
	if !strings.Contains(page, "<th>"+html.EscapeString(c.Header)) || !strings.Contains(page, "<td>"+cell+"</td>") {
		t.Errorf("index.html lacks the column %q or the cell %q", c.Header, cell)
	}
}

// lineOf is the first line of text that contains s.
func lineOf(text, s string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
