package reporting

import (
	"strings"
	"testing"

	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The report's log counts the benchmarks not compared by what moved since
// their baseline's (summary.NotCompared): those another version of the lab
// measured are re-baselined by name, none of their figures compared, apart
// from those of another environment, compared by what it cannot change.
func TestLogSaysWhatMoved(t *testing.T) {
	lab := result.AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2)"
	machine := `machine.cores: "2" → "64"`
	row := func(name string, changes ...string) *model.Row {
		b := summary.Benchmark{Name: name, Outcome: verdict.NotComparable, EnvironmentChanges: changes}
		return &model.Row{Result: &model.Result{Benchmark: result.Benchmark{Name: name}}, Compared: &model.Comparison{Benchmark: b, Note: name + "'s note"}}
	}
	const labLine = "benchmarks measured by another version of the lab than their baseline's"
	const envLine = "benchmarks ran in another environment than their baseline's: only the figures it cannot change"
	for _, c := range []struct {
		name      string
		moved     []*model.Row
		want, not []string
	}{
		{"another lab", []*model.Row{row("havlak6", lab), row("havlak7", lab)},
			[]string{"report: 2 " + labLine + ": re-baselined, none of their figures compared", "report: havlak6: havlak6's note"},
			[]string{envLine, "also in"}},
		{"another machine", []*model.Row{row("havlak6", machine)}, []string{"report: 1 " + envLine}, []string{labLine}},
		{"both", []*model.Row{row("havlak6", lab, machine), row("havlak7", machine)},
			[]string{"report: 1 " + labLine + " (1 of them also in another environment than the baseline's): re-baselined",
				"report: 1 " + envLine}, nil},
	} {
		var log strings.Builder
		logVerdicts(&log, &model.Report{}, nil, c.moved, false)
		for _, want := range c.want {
			if !strings.Contains(log.String(), want) {
				t.Errorf("%s: the log lacks %q:\n%s", c.name, want, log.String())
			}
		}
		for _, not := range c.not {
			if strings.Contains(log.String(), not) {
				t.Errorf("%s: the log says %q:\n%s", c.name, not, log.String())
			}
		}
	}
}
