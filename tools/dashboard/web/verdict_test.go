package web

import (
	"testing"
	"testing/fstest"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// A night's report that compared nothing says why, as the summary tallies
// it (summary.NotCompared): benchmarks measured by another version of the
// lab, re-baselined, by name, apart from those in another environment.
func TestReportVerdictSaysWhatMoved(t *testing.T) {
	lab := result.AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2)"
	machine := `machine.cores: "2" → "64"`
	moved := func(name string, changes ...string) summary.Benchmark {
		return summary.Benchmark{Name: name, Outcome: verdict.NotComparable, EnvironmentChanges: changes}
	}
	for _, c := range []struct {
		name       string
		benchmarks []summary.Benchmark
		want       string
	}{
		{"another lab", []summary.Benchmark{moved("havlak6", lab), moved("havlak7", lab)},
			"not comparable: 2 benchmarks measured by another version of the lab: re-baselined"},
		{"another machine", []summary.Benchmark{moved("havlak6", machine)},
			"not comparable: 1 benchmark in another environment than the baseline's"},
		{"both", []summary.Benchmark{moved("havlak6", lab, machine), moved("havlak7", machine)},
			"not comparable: 1 benchmark measured by another version of the lab: re-baselined " +
				"(1 also in another environment than the baseline's); 1 benchmark in another environment than the baseline's"},
	} {
		data, err := summary.Marshal(&summary.Summary{SchemaVersion: summary.SchemaVersion, Tool: "report", Benchmarks: c.benchmarks})
		if err != nil {
			t.Fatal(err)
		}
		fsys := fstest.MapFS{"night/report/summary.json": {Data: data}}
		if got := reportVerdict(fsys, "night/report/summary.json"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
