package model

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The report's environment line counts the results measured by another
// version of the lab than the first one apart from those that ran in
// another environment, a result that did both in both, and says neither
// when all are alike.
func TestEnvironmentTextSaysWhatMoved(t *testing.T) {
	here := result.Environment{Machine: result.Machine{Hostname: "vm", Cores: 2}}
	there := result.Environment{Machine: result.Machine{Hostname: "vm", Cores: 64}}
	row := func(env result.Environment, lab string) *Row {
		id := &result.Identity{BinarySHA256: "bin", RunSHA256: "run", LabSHA256: lab}
		return &Row{Result: &Result{Environment: env, Identity: id, Side: summary.Side{Side: verdict.Side{Identity: id, Environment: &env}}}}
	}
	labA, labB := strings.Repeat("a", 64), strings.Repeat("b", 64)
	const labText = "other results were measured by another version of the lab"
	const envText = "other results ran in another environment"
	for _, c := range []struct {
		name      string
		rows      []*Row
		want, not []string
	}{
		{"alike", []*Row{row(here, labA), row(here, labA)}, nil, []string{labText, envText}},
		{"another lab", []*Row{row(here, labA), row(here, labB), row(here, labB)}, []string{" 2 " + labText}, []string{envText}},
		{"another machine", []*Row{row(here, labA), row(there, labA)}, []string{" 1 " + envText}, []string{labText}},
		{"both", []*Row{row(here, labA), row(there, labB), row(there, labA)}, []string{" 1 " + labText, " 2 " + envText}, nil},
	} {
		text := (&Report{Rows: c.rows}).EnvironmentText()
		for _, want := range c.want {
			if !strings.Contains(text, want) {
				t.Errorf("%s: %q lacks %q", c.name, text, want)
			}
		}
		for _, not := range c.not {
			if strings.Contains(text, not) {
				t.Errorf("%s: %q says %q", c.name, text, not)
			}
		}
	}
}
