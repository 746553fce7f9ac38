package model

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// havlak7 is havlak7's quick test as the report reads it (readResult),
// from source: 5 timed runs (the report fixture's real times), its own
// instructions over 3 counted runs times own (gated, not exact: they move
// by 0.0005%, docs/noise.md), measured with the same binary and run.
func havlak7(t *testing.T, source string, own float64) *Result {
	t.Helper()
	res := &result.Result{SchemaVersion: result.SchemaVersion,
		Identity: &result.Identity{BinarySHA256: strings.Repeat("a", 64), RunSHA256: strings.Repeat("b", 64)},
		Benchmark: result.Benchmark{Name: "havlak7", Kind: result.KindProgram, Study: "Havlak", Language: "Go",
			Workload: result.Workload{Name: result.WorkloadQuick}},
		Environment: result.Environment{Machine: result.Machine{Hostname: "vm", OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC", Cores: 2},
			Toolchains: result.Toolchains{Go: "go1.27.4"}},
		Timing: &result.Timing{},
		Metrics: []result.Metric{{Name: "own_instructions", Unit: "instructions", Source: "cachegrind, 3 counted runs (outside the Go runtime)",
			Cost: result.CostWork, Gated: true, Threshold: verdict.CountThreshold,
			Values: []float64{160_300_302 * own, 160_301_150 * own, 160_300_690 * own}}},
	}
	for _, real := range []float64{0.02432095, 0.020639087, 0.019130578, 0.027549641, 0.024202595} {
		res.Timing.Runs = append(res.Timing.Runs, result.Run{Usage: result.Usage{RealSeconds: real, UserSeconds: real / 2, MaxRSSKiB: 7900}})
	}
	out, err := result.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	side, err := summary.NewSide(res, out, source)
	if err != nil {
		t.Fatal(err)
	}
	return &Result{Benchmark: res.Benchmark, Environment: res.Environment, Source: source, Identity: res.Identity,
		Runs: res.Timing.Runs, Metrics: res.Metrics, Side: side}
}

// A night of the baseline's binary and run with 3x its own instructions is
// an inconsistent measurement: the row fails and says so, naming both
// results; the same night within the noise is the noise floor.
func TestSameIdentityThreeTimesOwnInstructions(t *testing.T) {
	const baseSource, nightSource = "baseline/havlak7_quick_test/outputs.zip", "night/havlak7_quick_test/outputs.zip"
	for _, tc := range []struct {
		name         string
		own          float64
		inconsistent bool
	}{
		{"3x", 3, true},
		{"+0.001%", 1.00001, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			baseline := &Set{Workload: result.WorkloadQuick, Results: []*Result{havlak7(t, baseSource, 1)}}
			r := New(&Set{Workload: result.WorkloadQuick, Results: []*Result{havlak7(t, nightSource, tc.own)}})
			regressed, moved, err := Compare(r, baseline, Gate{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(moved) != 0 {
				t.Errorf("moved %v, want none: the same environment", moved)
			}
			row := r.Rows[0]
			c := row.Compared
			if c == nil || !c.Benchmark.SameIdentity {
				t.Fatalf("comparison %+v, want one of the same identity", c)
			}
			own := figure(c.Figures(), "own_instructions")
			if !tc.inconsistent {
				if len(regressed) != 0 || c.Regressed || own.Outcome != verdict.Unchanged || strings.Contains(row.CompareText(), "INCONSISTENT") {
					t.Errorf("%s own instructions: regressed %v, %v; %q, want the noise floor", tc.name, regressed, own, row.CompareText())
				}
				return
			}
			if len(regressed) != 1 || regressed[0] != row || !c.Regressed {
				t.Errorf("3x own instructions: regressed rows %v (Regressed %v), want havlak7's", regressed, c.Regressed)
			}
			if own.Outcome != verdict.Inconsistent || !own.Fails() ||
				!strings.Contains(own.Reason, baseSource+" and "+nightSource+" measured the same binary and run") ||
				!strings.Contains(own.Reason, "beyond its noise") {
				t.Errorf("own_instructions: %v, want inconsistent, failing, naming both results", own)
			}
			if text := row.CompareText(); !strings.HasPrefix(text, "INCONSISTENT: ") || !strings.Contains(text, "own_instructions INCONSISTENT") {
				t.Errorf("CompareText %q, want it INCONSISTENT, naming own_instructions", text)
			}
			if real := figure(c.Figures(), "real_seconds"); real.Fails() {
				t.Errorf("real_seconds, unchanged: %v", real)
			}
		})
	}
}
