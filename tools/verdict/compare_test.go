package verdict

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// instructions is a gated count declared as the runner declares
// Cachegrind's instructions, with values.
func instructions(gated bool, threshold float64, values ...float64) result.Figure {
	return result.Figure{Name: "instructions", Unit: "instructions", Class: result.ClassCount, Better: result.LowerIsBetter,
		Gated: gated, Threshold: threshold, Values: values}
}

func TestCompareTheBaseDecidesTheGate(t *testing.T) {
	base := Side{Figures: []result.Figure{instructions(true, 0.01, 1000, 1000)}}
	for _, tc := range []struct {
		name     string
		change   result.Figure
		loosened string
	}{
		{"as declared at the base", instructions(true, 0.01, 1050, 1050), ""},
		{"a threshold of 100% at the change", instructions(true, 1, 1050, 1050), "the base's applies"},
		{"the gate dropped at the change", instructions(false, 0, 1050, 1050), "no longer gates it"},
		{"both", instructions(false, 1, 1050, 1050), "threshold of 100.0%, the base 1.0%: the base's applies; the change no longer gates it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Lab.Compare(base, Side{Figures: []result.Figure{tc.change}})
			if len(v) != 1 {
				t.Fatalf("%d verdicts, want 1: %v", len(v), v)
			}
			if v[0].Outcome != Regressed || !v[0].Fails() {
				t.Errorf("a 5%% regression: %v, want a failing regression", v[0])
			}
			if v[0].Rule.Threshold != 0.01 {
				t.Errorf("threshold %v, want the base's 0.01", v[0].Rule.Threshold)
			}
			if tc.loosened == "" && v[0].Loosened != "" || !strings.Contains(v[0].Loosened, tc.loosened) {
				t.Errorf("Loosened %q, want %q", v[0].Loosened, tc.loosened)
			}
		})
	}
}

func TestCompareAChangeMayTightenItsGate(t *testing.T) {
	// The base shows the figure only, at 10%; the change gates it at 1%.
	base := Side{Figures: []result.Figure{instructions(false, 0.10, 1000)}}
	v := Lab.Compare(base, Side{Figures: []result.Figure{instructions(true, 0.01, 1020)}})
	if len(v) != 1 || !v[0].Fails() || v[0].Rule.Threshold != 0.01 || v[0].Loosened != "" {
		t.Errorf("a 2%% regression gated at 1%% by the change: %v, want it failing at 1%%", v)
	}
}

func TestCompareMissingAndNewFigures(t *testing.T) {
	allocs := result.Figure{Name: "alloc_objects", Unit: "objects", Class: result.ClassCount, Values: []float64{10}}
	base := Side{Figures: []result.Figure{instructions(true, 0.01, 1000), allocs}}
	v := Lab.Compare(base, Side{})
	if len(v) != 1 || v[0].Figure != "instructions" || v[0].Outcome != Missing || !v[0].Fails() {
		t.Errorf("a gated figure gone: %v, want it missing (and the ungated one not judged)", v)
	}
	gone := instructions(false, 0)
	gone.Unavailable = "valgrind: not found"
	v = Lab.Compare(base, Side{Figures: []result.Figure{gone}})
	if len(v) != 1 || v[0].Outcome != Missing || !strings.Contains(v[0].Reason, "valgrind: not found") {
		t.Errorf("a gated figure without values: %v, want it missing, saying why", v)
	}
	if v := Lab.Compare(Side{}, base); len(v) != 0 {
		t.Errorf("figures the base lacks: %v, want nothing judged", v)
	}
}

func TestCompareSameIdentityIsTheNoiseFloor(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r"}
	base := Side{Figures: []result.Figure{instructions(true, 0.01, 1000)}, Identity: id}
	v := Lab.Compare(base, Side{Figures: []result.Figure{instructions(true, 0.01, 1100)}, Identity: id})
	if len(v) != 1 || v[0].Fails() || !strings.Contains(v[0].Warning, "noise floor") {
		t.Errorf("the same binary and run: %v, want the noise floor", v)
	}
}

func TestPolicyRuleByClass(t *testing.T) {
	p := Policy{Count: 0.01, Timing: 0.2, Memory: 0.3}
	for _, tc := range []struct {
		class     result.Class
		threshold float64
		want      Rule
	}{
		{result.ClassCount, 0, Rule{Threshold: 0.01, BeyondNoise: true, Gated: true}},
		{result.ClassCount, 0.05, Rule{Threshold: 0.05, BeyondNoise: true, Gated: true}},
		{result.ClassTiming, 0, Rule{Threshold: 0.2, UTest: true, MinRuns: MinTimingRuns, GrossFactor: GrossTimingFactor, Gated: true}},
		{result.ClassMemory, 0, Rule{Threshold: 0.3, UTest: true, MinRuns: MinTimingRuns, GrossFactor: GrossTimingFactor, Gated: true}},
		{result.ClassSampledCount, 0, Rule{UTest: true, Gated: true}},
		{result.ClassSampledTiming, 0, Rule{Threshold: 0.2, BeyondNoise: true, UTest: true, Gated: true}},
	} {
		if got := p.Rule(tc.class, tc.threshold, true, result.LowerIsBetter); got != tc.want {
			t.Errorf("Rule(%s, %v) = %+v, want %+v", tc.class, tc.threshold, got, tc.want)
		}
	}
	if r := p.Rule(result.ClassTiming, 0, true, result.HigherIsBetter); !r.HigherIsBetter {
		t.Errorf("a rate's rule: %+v, want higher is better", r)
	}
}

// An exact count survives another machine; a timing and a count that is
// not exact do not, and another toolchain stops all of them.
func TestCompareAcrossEnvironments(t *testing.T) {
	real := func(v float64) result.Figure {
		return result.Figure{Name: "real_seconds", Unit: "s", Class: result.ClassTiming, Gated: true, Values: []float64{v, v, v, v, v}}
	}
	exact := func(v float64) result.Figure {
		f := instructions(true, 0.01, v)
		f.Exact = true
		return f
	}
	here := result.Environment{Machine: result.Machine{Hostname: "a", CPUModel: "one", Cores: 2},
		Toolchains: result.Toolchains{Go: "go1.27.4", Libc: "glibc 2.36", Valgrind: "valgrind-3.19.0"}}
	there := here
	there.Machine = result.Machine{Hostname: "b", CPUModel: "another", Cores: 64}
	side := func(env result.Environment, figs ...result.Figure) Side {
		return Side{Figures: figs, Environment: &env}
	}

	v := Lab.Compare(side(here, exact(1000), real(1)), side(there, exact(1050), real(1)))
	if len(v) != 2 || v[0].Outcome != Regressed || !v[0].Fails() || !v[0].Exact || v[1].Exact {
		t.Errorf("5%% more exact instructions on another machine: %v, want a failing regression", v)
	}
	if len(v) == 2 && (v[1].Outcome != NotComparable || !strings.Contains(v[1].Reason, "another environment") || v[1].Fails()) {
		t.Errorf("real time on another machine: %v, want not comparable", v[1])
	}
	inexact := instructions(true, 0.01, 1000)
	if v := Lab.Compare(side(here, inexact), side(there, instructions(true, 0.01, 1050))); v[0].Outcome != NotComparable {
		t.Errorf("a count that is not exact on another machine: %v, want not comparable", v)
	}
	sdk := here
	sdk.Toolchains.Go = "go1.99"
	if v := Lab.Compare(side(here, exact(1000)), side(sdk, exact(1050))); v[0].Outcome != NotComparable || !strings.Contains(v[0].Reason, "toolchains.go") {
		t.Errorf("exact instructions of another Go SDK: %v, want not comparable naming it", v)
	}
	allow := Lab
	allow.AllowEnvironmentChange = true
	if v := allow.Compare(side(here, exact(1000), real(1)), side(there, exact(1050), real(20))); v[0].Outcome != Regressed || v[1].Outcome != Regressed {
		t.Errorf("allowed: %v, want both judged", v)
	}
}

// Exact counts of one identity must be equal: a difference is an
// inconsistent measurement that fails, naming both results.
func TestCompareSameIdentityDifferentCounts(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r"}
	exact := func(v float64) []result.Figure {
		f := instructions(true, 0.01, v)
		f.Exact = true
		return []result.Figure{f}
	}
	base := Side{Figures: exact(1000), Identity: id, Source: "base/havlak6cc/outputs.zip"}
	v := Lab.Compare(base, Side{Figures: exact(3000), Identity: id, Source: "night/havlak6cc/outputs.zip"})
	if len(v) != 1 || v[0].Outcome != Inconsistent || !v[0].Fails() ||
		!strings.Contains(v[0].Reason, "base/havlak6cc/outputs.zip and night/havlak6cc/outputs.zip") {
		t.Errorf("3x the exact count of the same identity: %v, want an inconsistent measurement naming both", v)
	}
	if v := Lab.Compare(base, Side{Figures: exact(1000), Identity: id}); v[0].Outcome != Unchanged {
		t.Errorf("the same count of the same identity: %v, want unchanged", v)
	}
	if v := Lab.Compare(base, Side{Figures: exact(3000), Identity: id}); Worst(v) != Inconsistent {
		t.Errorf("Worst: %v, want inconsistent", Worst(v))
	}
}

// The figures only the change has values of are not comparable, with
// their values; Compare leaves them out. A figure the base has without
// values is one only the change has values of.
func TestOnlyInChange(t *testing.T) {
	shared := instructions(true, 0.01, 1000)
	empty := result.Figure{Name: "cycles", Unit: "cycles", Class: result.ClassCount}
	base := Side{Figures: []result.Figure{shared, empty}}
	cycles := result.Figure{Name: "cycles", Unit: "cycles", Class: result.ClassCount, Cost: result.CostWork, Exact: true, Values: []float64{7, 9}}
	added := result.Figure{Name: "instructions", Unit: "count", Class: result.ClassCount, Values: []float64{3}}
	change := Side{Figures: []result.Figure{instructions(true, 0.01, 1000), cycles, added, {Name: "none", Unit: "s"}}}
	only := OnlyInChange(base, change)
	if len(only) != 2 || only[0].Figure != "cycles" || only[1].Unit != "count" {
		t.Fatalf("only in the change: %+v; want cycles (the base's has no values) and instructions in count", only)
	}
	if v := only[0]; v.Outcome != NotComparable || v.New.Median != 8 || v.New.Runs != 2 || v.Old.Runs != 0 ||
		v.Cost != result.CostWork || !v.Exact || v.Fails() || !strings.Contains(v.Evidence(), "baseline has no values") {
		t.Errorf("cycles, only in the change: %+v", v)
	}
	for _, v := range Lab.Compare(base, change) {
		if v.Figure == "cycles" || v.Unit == "count" {
			t.Errorf("Compare judges %s (%s), which the base has no values of", v.Figure, v.Unit)
		}
	}
}
