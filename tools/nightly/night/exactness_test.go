package night

import (
	"slices"
	"testing"
	"time"

	"havlak-lab/tools/result"
	verdictlib "havlak-lab/tools/verdict"
)

// countHavlak7Reads gives havlak7's result in the night dir the identity
// of binary (identifyHavlak7) and its read system calls as perfrun
// declares them (exact and gated), reads in each of its timed runs,
// declared exact as exact says.
func countHavlak7Reads(t *testing.T, dir, binary string, reads float64, exact bool) {
	t.Helper()
	identifyHavlak7(t, dir, binary, func(r *result.Result) {
		r.Metrics = append(r.Metrics, result.Metric{Name: "read_syscalls", Unit: "calls", Source: "/proc/PID/io",
			Cost: result.CostSystemCalls, Gated: true, Threshold: verdictlib.CountThreshold, Exact: exact,
			Values: slices.Repeat([]float64{reads}, len(r.Timing.Runs))})
	})
}

// Issue 55: a night of the baseline's binary and run that calls inexact
// the reads the baseline counted exactly fails as an inconsistent
// measurement, its counts the baseline's or not, and leaves the baseline
// as it was to the byte: promoted, it let the next night's reads move
// 0.4% as an inexact count's noise. Declared exact, the same reads pass
// (a night started later, so that its promotion shows in the baseline's
// bytes); another binary may declare them as it measures them.
func TestGateExactnessBelongsToTheIdentity(t *testing.T) {
	needCommands(t)
	baseline, before := firstBaseline(t, func(dir string) { countHavlak7Reads(t, dir, "a", 250, true) })
	inconsistent := []string{"report: havlak7 regressed: INCONSISTENT", "read_syscalls INCONSISTENT: inconsistent measurement",
		"the baseline measured read_syscalls exactly and this result calls it inexact"}
	later := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name        string
		binary      string
		reads       float64
		exact       bool
		started     time.Time
		status      int
		says        []string
		newBaseline bool
	}{
		{"the same reads, declared inexact", "a", 250, false, time.Time{}, 1, inconsistent, false},
		{"one more read (+0.4%), declared inexact", "a", 251, false, time.Time{}, 1,
			append(inconsistent, "this exact count differs (250 → 251 calls)"), false},
		{"the same reads, declared exact", "a", 250, true, later, 0, []string{"This night becomes the baseline"}, true},
		{"another binary, the same reads declared inexact", "c", 250, false, later, 0,
			[]string{"This night becomes the baseline"}, true},
	} {
		tonight := makeNight(t, nightSpec{allocs: 1, started: c.started})
		countHavlak7Reads(t, tonight, c.binary, c.reads, c.exact)
		status, log := gateNight(t, baseline, tonight)
		before = checkNight(t, c.name, status, log, c.status, c.says, baseline, before, c.newBaseline)
	}
}
