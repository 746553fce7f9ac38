package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/verdict"
)

// One identity, one measurement (issue 43): a night of the baseline's
// binary and run whose figures differ by more than one measurement can
// fails the report as inconsistent, whatever tonight's result declares,
// as does one that calls inexact a count the baseline measured exactly,
// its counts the same (issue 55); the noise of the same binary passes,
// the noise floor.
func TestSameIdentityInconsistentNight(t *testing.T) {
	// measure makes the result of stage in dir the same binary and run as
	// every other, with its counts as perfrun declares them (Go: its own
	// instructions, gated, not exact; C++: its instructions, exact; both:
	// system calls, exact), the instructions times counts and the system
	// calls times calls, declared exact or not (undeclare), and its timed
	// runs' real time times timings.
	measure := func(dir, stage string, counts, calls, timings float64, undeclare bool) {
		editResult(t, filepath.Join(dir, stage), func(doc map[string]any) {
			doc["schema_version"] = 2
			doc["identity"] = map[string]any{"binary_sha256": strings.Repeat("a", 64), "run_sha256": strings.Repeat("b", 64)}
			metric := func(name, unit string, exact bool, by float64, values ...float64) map[string]any {
				for i := range values {
					values[i] *= by
				}
				return map[string]any{"name": name, "unit": unit, "source": "test", "values": values,
					"gated": true, "threshold": 0.01, "exact": exact && !undeclare}
			}
			reads := metric("read_syscalls", "calls", true, calls, 12, 12, 12, 12, 12)
			if stage == "havlak7" {
				doc["metrics"] = []any{metric("own_instructions", "instructions", false, counts, 160_300_302, 160_301_150, 160_300_690), reads}
			} else {
				doc["metrics"] = []any{metric("instructions", "instructions", true, counts, 234_584_917, 234_584_917, 234_584_917), reads}
			}
			for _, run := range runsOf(doc) {
				run["real_seconds"] = run["real_seconds"].(float64) * timings
			}
		})
	}
	for _, tc := range []struct {
		name                   string
		stage                  string
		counts, calls, timings float64
		undeclare              bool
		inconsistent           []string // the figures, none when nil
		status                 int
		stderrSays, note       string
	}{
		{"Go: 3x the own instructions", "havlak7", 3, 1, 1, false, []string{"own_instructions"}, 1,
			"own_instructions INCONSISTENT: inconsistent measurement: ", "inconsistent measurement"},
		{"C++: 3x the instructions, declared not exact", "havlak6cc", 3, 1, 1, true, []string{"instructions", "read_syscalls"}, 1,
			"this exact count differs (234,584,917 → 703,754,751 instructions)", "inconsistent measurement"},
		{"Go: 3x the system calls, declared not exact", "havlak7", 1, 3, 1, true, []string{"read_syscalls"}, 1,
			"this exact count differs (12 → 36 calls)", "inconsistent measurement"},
		// Issue 55: the declaration alone, the counts the baseline's.
		{"C++: the same counts, declared not exact", "havlak6cc", 1, 1, 1, true, []string{"instructions", "read_syscalls"}, 1,
			"the baseline measured instructions exactly and this result calls it inexact",
			"a figure differs or is no longer declared exact: an inconsistent measurement"},
		{"Go: 5x the real time", "havlak7", 1, 1, 5, false, []string{"real_seconds"}, 1,
			"more than the factor of 3", "inconsistent measurement"},
		{"Go: own instructions +0.001%", "havlak7", 1.00001, 1, 1, false, nil, 0, "", "noise floor"},
		{"Go: 2x the real time", "havlak7", 1, 1, 2, false, nil, 0, "", "noise floor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			baseline, tonight := night(t, tc.stage), night(t, tc.stage)
			measure(baseline, tc.stage, 1, 1, 1, false)
			measure(tonight, tc.stage, tc.counts, tc.calls, tc.timings, tc.undeclare)
			sum, stderr, status := reportSummary(t, "--from", tonight, "--baseline", baseline)
			b := benchmarkOf(sum, tc.stage)
			if b == nil {
				t.Fatalf("no %s in the summary\n%s", tc.stage, stderr)
			}
			if status != tc.status || b.Fails() != (tc.status != 0) || !strings.Contains(b.Note, tc.note) {
				t.Errorf("exit status %d, %+v, want %d and a note saying %q\n%s", status, b, tc.status, tc.note, stderr)
			}
			for _, v := range b.Figures {
				if want := slices.Contains(tc.inconsistent, v.Figure); want != (v.Outcome == verdict.Inconsistent) {
					t.Errorf("%v, want inconsistent: %v", v, want)
				}
			}
			if tc.inconsistent != nil && (b.Outcome != verdict.Inconsistent ||
				!strings.Contains(stderr, filepath.Join(baseline, tc.stage)+" and "+filepath.Join(tonight, tc.stage)+" measured the same binary and run") ||
				!strings.Contains(stderr, tc.stderrSays)) {
				t.Errorf("outcome %s, want inconsistent; stderr does not name both results and say %q:\n%s", b.Outcome, tc.stderrSays, stderr)
			}
		})
	}
}
