package verdict

import (
	"slices"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// The two sides of a night measured with the baseline's binary and run:
// what issue 43 found promoted, and what must stay the noise floor.

const (
	baseSource  = "baseline/havlak7_quick_test/outputs.zip"
	nightSource = "night/havlak7_quick_test/outputs.zip"
)

// quickRun is a timed run of a quick test, as xtime records it: seconds
// of the report fixture's havlak7 and havlak6cc (0.019 to 0.028 s), their
// system calls the same in every run.
func quickRun(real float64, reads, writes int64) result.Run {
	faults := int64(1900)
	return result.Run{Usage: result.Usage{RealSeconds: real, UserSeconds: real * 0.7, SysSeconds: real * 0.2, MaxRSSKiB: 7900},
		Syscalls: &result.Syscalls{Read: reads, Write: writes}, MinorFaults: &faults}
}

// quickResult is a quick test's result as the perf runner leaves it, of a
// Go program (havlak7: its own instructions gated, not exact, moving by
// 0.0005% over 3 counted runs, docs/noise.md) or a C++ one (havlak6cc: its
// instructions and allocations exact), with 5 timed runs and their system
// calls (exact and gated, as perfrun's syscallMetrics declares them).
func quickResult(goProgram bool) *result.Result {
	r := &result.Result{SchemaVersion: result.SchemaVersion, Identity: &result.Identity{BinarySHA256: "b7", RunSHA256: "r7"},
		Benchmark: result.Benchmark{Name: "havlak7", Kind: result.KindProgram}, Timing: &result.Timing{}}
	reads, writes := int64(12), int64(3)
	for _, real := range []float64{0.02432095, 0.020639087, 0.019130578, 0.027549641, 0.024202595} {
		r.Timing.Runs = append(r.Timing.Runs, quickRun(real, reads, writes))
	}
	const cachegrind = "cachegrind, 3 counted runs"
	if goProgram {
		r.Metrics = []result.Metric{
			{Name: "own_instructions", Unit: "instructions", Source: cachegrind + " (outside the Go runtime)", Cost: result.CostWork,
				Gated: true, Threshold: CountThreshold, Values: []float64{160_300_302, 160_301_150, 160_300_690}},
			{Name: "instructions", Unit: "instructions", Source: cachegrind, Cost: result.CostWork,
				Values: []float64{161_568_113, 161_716_402, 161_640_871}},
		}
	} else {
		r.Benchmark.Name = "havlak6cc"
		r.Metrics = []result.Metric{
			{Name: "instructions", Unit: "instructions", Source: cachegrind, Cost: result.CostWork,
				Gated: true, Threshold: CountThreshold, Exact: true, Values: []float64{234_584_917, 234_584_917, 234_584_917}},
			{Name: "alloc_objects", Unit: "objects", Source: "tcmalloc heap profile", Cost: result.CostMemoryManagement,
				Gated: true, Threshold: CountThreshold, Exact: true, Values: []float64{258_112}},
		}
	}
	for _, m := range []struct {
		name string
		per  int64
	}{{"read_syscalls", reads}, {"write_syscalls", writes}} {
		values := make([]float64, len(r.Timing.Runs))
		for i := range values {
			values[i] = float64(m.per)
		}
		r.Metrics = append(r.Metrics, result.Metric{Name: m.name, Unit: "calls", Source: "/proc/PID/io",
			Cost: result.CostSystemCalls, Gated: true, Threshold: CountThreshold, Exact: true, Values: values})
	}
	return r
}

// quickSide is r as one side of a comparison, its figures as every
// command reads them (result.Figures).
func quickSide(t *testing.T, r *result.Result, source string) Side {
	t.Helper()
	out, err := result.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	figs, err := result.Figures(r, out)
	if err != nil {
		t.Fatal(err)
	}
	env := result.Environment{Machine: result.Machine{Hostname: "vm", OS: "linux", Arch: "amd64", Kernel: "6.18.44", CPUModel: "AMD EPYC", Cores: 2},
		Toolchains: result.Toolchains{Go: "go1.27.4", Libc: "glibc 2.36", Valgrind: "valgrind-3.19.0"}}
	return Side{Figures: figs, Identity: r.Identity, Environment: &env, Source: source}
}

// metric is r's metric of name.
func metric(t *testing.T, r *result.Result, name string) *result.Metric {
	t.Helper()
	i := slices.IndexFunc(r.Metrics, func(m result.Metric) bool { return m.Name == name })
	if i < 0 {
		t.Fatalf("%s has no %s", r.Benchmark.Name, name)
	}
	return &r.Metrics[i]
}

// scale multiplies values by f.
func scale(values []float64, f float64) {
	for i := range values {
		values[i] *= f
	}
}

func TestSameIdentityInconsistentMeasurements(t *testing.T) {
	for _, tc := range []struct {
		name      string
		goProgram bool
		// night edits tonight's result, a copy of the baseline's.
		night func(t *testing.T, r *result.Result)
		// inconsistent are the figures that must be inconsistent, each
		// with what its reason says; every other figure must pass.
		inconsistent map[string]string
		// floor are figures that must pass as the noise floor, said so.
		floor []string
	}{
		// Issue 43's four nights, each promoted before.
		{"Go: 3x the gated own instructions", true, func(t *testing.T, r *result.Result) {
			scale(metric(t, r, "own_instructions").Values, 3)
		}, map[string]string{"own_instructions": "this count moved +200.0000% (160,300,690 → 480,902,070 instructions), beyond its noise: " +
			"5 × noise 0.0005% of 3 reruns, never under the floor 0.5%, is 0.5%"}, nil},
		{"C++: 3x the instructions, declared not exact tonight", false, func(t *testing.T, r *result.Result) {
			for i := range r.Metrics {
				r.Metrics[i].Exact = false
			}
			scale(metric(t, r, "instructions").Values, 3)
		}, map[string]string{
			"instructions":   "this exact count differs (234,584,917 → 703,754,751 instructions); " + droppedExactness("instructions"),
			"alloc_objects":  droppedExactness("alloc_objects"),
			"read_syscalls":  droppedExactness("read_syscalls"),
			"write_syscalls": droppedExactness("write_syscalls"),
		}, nil},
		{"Go: one more read, the system calls declared not exact tonight", true, func(t *testing.T, r *result.Result) {
			for _, name := range []string{"read_syscalls", "write_syscalls"} {
				metric(t, r, name).Exact = false
			}
			m := metric(t, r, "read_syscalls")
			for i := range m.Values {
				m.Values[i]++
			}
		}, map[string]string{
			"read_syscalls":  "this exact count differs (12 → 13 calls); " + droppedExactness("read_syscalls"),
			"write_syscalls": droppedExactness("write_syscalls"),
		}, nil},
		// Issue 55: the flag alone, the values the baseline's. Promoted,
		// it let the next night's read_syscalls move 0.4% as an inexact
		// count's noise.
		{"Go: the reads declared not exact tonight, the same counts", true, func(t *testing.T, r *result.Result) {
			metric(t, r, "read_syscalls").Exact = false
		}, map[string]string{"read_syscalls": droppedExactness("read_syscalls")}, nil},
		{"C++: declared not exact tonight, the same counts", false, func(t *testing.T, r *result.Result) {
			for i := range r.Metrics {
				r.Metrics[i].Exact = false
			}
		}, map[string]string{
			"instructions":   droppedExactness("instructions"),
			"alloc_objects":  droppedExactness("alloc_objects"),
			"read_syscalls":  droppedExactness("read_syscalls"),
			"write_syscalls": droppedExactness("write_syscalls"),
		}, nil},
		{"Go: only the timings 5x", true, func(t *testing.T, r *result.Result) {
			for i := range r.Timing.Runs {
				u := &r.Timing.Runs[i].Usage
				u.RealSeconds, u.UserSeconds, u.SysSeconds = 5*u.RealSeconds, 5*u.UserSeconds, 5*u.SysSeconds
			}
		}, map[string]string{"real_seconds": "this timing's medians are 5.00× apart (0.0242 → 0.121 s, 5 and 5 runs), more than the factor of 3"},
			// CPU time, shown only, moves with the runner's load.
			[]string{"cpu_seconds"}},
		{"C++: only the timings 5x", false, func(t *testing.T, r *result.Result) {
			for i := range r.Timing.Runs {
				r.Timing.Runs[i].RealSeconds *= 5
			}
		}, map[string]string{"real_seconds": "5.00× apart"}, nil},
		{"Go: max RSS a quarter", true, func(t *testing.T, r *result.Result) {
			for i := range r.Timing.Runs {
				r.Timing.Runs[i].MaxRSSKiB /= 4
			}
		}, map[string]string{"max_rss_kib": "4.00× apart (7,900 → 1,975 KiB"}, nil},
		// Runs spread wide tonight do not hide a change: only the base's
		// noise counts.
		{"Go: 3x own instructions in 2 of 3 runs", true, func(t *testing.T, r *result.Result) {
			v := metric(t, r, "own_instructions").Values
			v[1], v[2] = 3*v[1], 3*v[2]
		}, map[string]string{"own_instructions": "beyond its noise"}, nil},

		// What the same binary and run may show.
		{"Go: own instructions +0.001%", true, func(t *testing.T, r *result.Result) {
			scale(metric(t, r, "own_instructions").Values, 1.00001)
		}, nil, nil},
		{"Go: the total instructions 3x, shown only", true, func(t *testing.T, r *result.Result) {
			scale(metric(t, r, "instructions").Values, 3)
		}, nil, []string{"instructions"}},
		{"Go: the timings 2x", true, func(t *testing.T, r *result.Result) {
			for i := range r.Timing.Runs {
				r.Timing.Runs[i].RealSeconds *= 2
			}
		}, nil, []string{"real_seconds"}},
		{"C++: the timings half", false, func(t *testing.T, r *result.Result) {
			for i := range r.Timing.Runs {
				r.Timing.Runs[i].RealSeconds /= 2
			}
		}, nil, []string{"real_seconds"}},
		// Declaring more than the baseline loosens nothing: the baseline's
		// declaration is what tonight is judged by (exactnessDropped).
		{"Go: own instructions declared exact tonight, +0.001%", true, func(t *testing.T, r *result.Result) {
			m := metric(t, r, "own_instructions")
			m.Exact = true
			scale(m.Values, 1.00001)
		}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tonight := quickResult(tc.goProgram)
			tc.night(t, tonight)
			verdicts := Lab.Compare(quickSide(t, quickResult(tc.goProgram), baseSource), quickSide(t, tonight, nightSource))
			for _, v := range verdicts {
				says, want := tc.inconsistent[v.Figure]
				switch {
				case want && (v.Outcome != Inconsistent || !v.Fails()):
					t.Errorf("%v, want an inconsistent measurement that fails", v)
				case want && !strings.Contains(v.Reason, "inconsistent measurement: "+baseSource+" and "+nightSource+" measured the same binary and run"):
					t.Errorf("%s: reason %q does not name both results", v.Figure, v.Reason)
				case want && !strings.Contains(v.Reason, says):
					t.Errorf("%s: reason %q does not say %q", v.Figure, v.Reason, says)
				case !want && (v.Outcome == Inconsistent || v.Fails()):
					t.Errorf("%v, want it to pass", v)
				case slices.Contains(tc.floor, v.Figure) && !strings.Contains(v.Warning, "noise floor"):
					t.Errorf("%v, want the noise floor", v)
				}
			}
			for figure := range tc.inconsistent {
				if !slices.ContainsFunc(verdicts, func(v Verdict) bool { return v.Figure == figure }) {
					t.Errorf("%s not judged: %v", figure, verdicts)
				}
			}
			if got := Worst(verdicts); (got == Inconsistent) != (len(tc.inconsistent) > 0) {
				t.Errorf("Worst: %s", got)
			}
		})
	}
}

// droppedExactness is what an inconsistent measurement's reason says of
// figure when tonight calls it inexact and the baseline measured it
// exactly.
func droppedExactness(figure string) string {
	return "the baseline measured " + figure + " exactly and this result calls it inexact"
}

// A result of another binary is judged, not checked for consistency: 3x
// its own instructions regress, as they always did.
func TestAnotherIdentityRegresses(t *testing.T) {
	tonight := quickResult(true)
	tonight.Identity = &result.Identity{BinarySHA256: "another", RunSHA256: "r7"}
	scale(metric(t, tonight, "own_instructions").Values, 3)
	for _, v := range Lab.Compare(quickSide(t, quickResult(true), baseSource), quickSide(t, tonight, nightSource)) {
		if v.Figure == "own_instructions" && (v.Outcome != Regressed || !v.Fails()) {
			t.Errorf("3x the own instructions of another binary: %v, want a failing regression", v)
		}
	}
}

// Without a measured noise (one counted run, no history) a count is
// bounded by the factor timings are; with too few timed runs for a median
// a timing by the factor a regression is (GrossTimingFactor).
func TestSameIdentityUnmeasuredNoise(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r"}
	real := func(v float64) result.Figure {
		return result.Figure{Name: "real_seconds", Unit: "s", Class: result.ClassTiming, Gated: true, Better: result.LowerIsBetter, Values: []float64{v}}
	}
	for _, tc := range []struct {
		name         string
		base, change result.Figure
		want         Outcome
	}{
		{"one counted run, +5%", count("own_instructions", false, 160_300_302), count("own_instructions", false, 168_315_317), Unchanged},
		{"one counted run, 2.9x", count("own_instructions", false, 160_300_302), count("own_instructions", false, 464_871_000), Unchanged},
		{"one counted run, 3.1x", count("own_instructions", false, 160_300_302), count("own_instructions", false, 496_931_000), Inconsistent},
		{"one counted run, from 160 M to 0", count("own_instructions", false, 160_300_302), count("own_instructions", false, 0), Inconsistent},
		{"one timed run, 5x", real(0.024), real(0.12), NotComparable},
		{"one timed run, 11x", real(0.024), real(0.264), Inconsistent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeOneOf(t, Side{Figures: []result.Figure{tc.base}, Identity: id}, Side{Figures: []result.Figure{tc.change}, Identity: id})
			if v.Outcome != tc.want || (tc.want == Inconsistent) != v.Fails() {
				t.Errorf("%v, want %s", v, tc.want)
			}
		})
	}
}

// judgeOneOf is the one verdict of base against change.
func judgeOneOf(t *testing.T, base Side, change Side) Verdict {
	t.Helper()
	v := Lab.Compare(base, change)
	if len(v) != 1 {
		t.Fatalf("%d verdicts, want 1: %v", len(v), v)
	}
	return v[0]
}

// An exact count is the same in one counting environment: another
// Valgrind, which a person allowed, may count otherwise.
func TestSameIdentityAnotherCountingEnvironment(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r"}
	here := result.Environment{Machine: result.Machine{Hostname: "a", OS: "linux", Arch: "amd64", Kernel: "6.1.0-18-amd64"},
		Toolchains: result.Toolchains{Go: "go1.27.4", Libc: "glibc 2.36", Valgrind: "valgrind-3.19.0"}}
	there := here
	there.Toolchains.Valgrind = "valgrind-3.24.0"
	base := Side{Figures: []result.Figure{count("instructions", true, 234_584_917)}, Identity: id, Environment: &here}
	change := Side{Figures: []result.Figure{count("instructions", true, 234_585_001)}, Identity: id, Environment: &there}
	if v := judgeOneOf(t, base, change); v.Outcome != NotComparable {
		t.Errorf("another Valgrind: %v, want not comparable", v)
	}
	allow := Lab
	allow.AllowEnvironmentChange = true
	if v := allow.Compare(base, change); len(v) != 1 || v[0].Outcome != Unchanged || v[0].Fails() {
		t.Errorf("another Valgrind, allowed: %v, want the noise floor", v)
	}
	change.Environment = &here
	if v := allow.Compare(base, change); len(v) != 1 || v[0].Outcome != Inconsistent {
		t.Errorf("the same Valgrind, the environment change allowed: %v, want inconsistent", v)
	}
	// Another machine cannot change an exact count: checked still.
	elsewhere := here
	elsewhere.Machine.Hostname, elsewhere.Machine.CPUModel = "b", "another CPU"
	change.Environment = &elsewhere
	if v := judgeOneOf(t, base, change); v.Outcome != Inconsistent {
		t.Errorf("another machine: %v, want inconsistent", v)
	}
}

// A sweep of the same binary and run grows as it did: an exact count's
// fit that differs, or another's coefficient beyond its calibrated noise,
// is inconsistent; the 9 reruns' spread is not.
func TestSameIdentityGrowth(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r"}
	side := func(figure string, exact bool, counts []float64) Side {
		s := growthSide(t, figure, exact, counts)
		s.Identity = id
		return s
	}
	for _, tc := range []struct {
		name         string
		figure       string
		exact        bool
		base, change []float64
		want         Outcome
	}{
		{"havlak7's reruns", "own_instructions", false, havlak7Reruns[0], havlak7Reruns[1], Unchanged},
		{"havlak7's coefficient +3%", "own_instructions", false, havlak7Reruns[0], steeper(havlak7Reruns[0], 0.03), Inconsistent},
		{"havlak7cc's again", "instructions", true, havlak7ccSweep, havlak7ccSweep, Unchanged},
		{"havlak7cc's coefficient +0.01%", "instructions", true, havlak7ccSweep, steeper(havlak7ccSweep, 0.0001), Inconsistent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := growthVerdict(t, side(tc.figure, tc.exact, tc.base), side(tc.figure, tc.exact, tc.change))
			if v.Outcome != tc.want || (tc.want == Inconsistent) != v.Fails() {
				t.Errorf("%v (calibration %+v), want %s", v, v.Calibration, tc.want)
			}
		})
	}
}

// Issue 55: exactness belongs to the identity. Of the same binary and run,
// a result that calls inexact a count the baseline measured exactly is
// inconsistent with the very same values, its growth too; of another
// binary, or where another Valgrind (allowed) may count otherwise, it is
// judged as an inexact count, as before.
func TestExactnessBelongsToTheIdentity(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r"}
	another := &result.Identity{BinarySHA256: "another", RunSHA256: "r"}
	here := result.Environment{Machine: result.Machine{Hostname: "a", OS: "linux", Arch: "amd64", Kernel: "6.1.0-18-amd64"},
		Toolchains: result.Toolchains{Go: "go1.27.4", Libc: "glibc 2.36", Valgrind: "valgrind-3.19.0"}}
	otherValgrind := here
	otherValgrind.Toolchains.Valgrind = "valgrind-3.24.0"
	allow := Lab
	allow.AllowEnvironmentChange = true
	side := func(exact bool, identity *result.Identity, env *result.Environment) Side {
		s := growthSide(t, "instructions", exact, havlak7ccSweep)
		s.Identity, s.Environment = identity, env
		return s
	}
	for _, tc := range []struct {
		name   string
		policy Policy
		change Side
		// inconsistent: both the figure and its growth must be, saying
		// why; otherwise neither may fail.
		inconsistent bool
	}{
		{"the same binary and run", Lab, side(false, id, &here), true},
		{"the same binary and run, no environment recorded", Lab, side(false, id, nil), true},
		{"another binary", Lab, side(false, another, &here), false},
		{"the same binary and run, another Valgrind allowed", allow, side(false, id, &otherValgrind), false},
		{"the same binary and run, declared exact", Lab, side(true, id, &here), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			verdicts := tc.policy.Compare(side(true, id, &here), tc.change)
			if len(verdicts) != 2 {
				t.Fatalf("%d verdicts, want the figure's and its growth's: %v", len(verdicts), verdicts)
			}
			for _, v := range verdicts {
				switch {
				case tc.inconsistent && (v.Outcome != Inconsistent || !v.Fails()):
					t.Errorf("%v, want an inconsistent measurement that fails", v)
				case tc.inconsistent && !strings.Contains(v.Reason, droppedExactness("instructions")):
					t.Errorf("%s: reason %q does not say the baseline measured it exactly", v.Figure, v.Reason)
				case !tc.inconsistent && (v.Outcome == Inconsistent || v.Fails()):
					t.Errorf("%v, want it to pass", v)
				}
			}
		})
	}
}
