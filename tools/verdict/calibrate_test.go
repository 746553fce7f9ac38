package verdict

import (
	"math"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// count is a gated count declared as the runner declares Cachegrind's:
// 1%, exact or not.
func count(name string, exact bool, values ...float64) result.Figure {
	return result.Figure{Name: name, Unit: "instructions", Class: result.ClassCount, Better: result.LowerIsBetter,
		Gated: true, Threshold: CountThreshold, Exact: exact, Values: values}
}

// judgeOne compares one figure of a base with the same of a change by the
// lab's policy.
func judgeOne(t *testing.T, base Side, change result.Figure) Verdict {
	t.Helper()
	v := Lab.Compare(base, Side{Figures: []result.Figure{change}})
	if len(v) != 1 {
		t.Fatalf("%d verdicts, want 1: %v", len(v), v)
	}
	return v[0]
}

func TestCalibratedExactCount(t *testing.T) {
	const base = 234_584_917 // havlak6cc's instructions, exact
	for _, tc := range []struct {
		name        string
		baseRuns    []float64
		change      float64
		history     []float64
		want        Outcome
		threshold   float64
		source      ThresholdSource
		evidenceHas string
	}{
		// The same count to the last instruction in 3 reruns: the floor.
		{"+0.5%, 3 reruns", runs(base, 0, 3), base * 1.005, nil, Regressed, ExactCountFloor, Floor,
			"threshold 0.25% (the floor: 5 × noise 0% of 3 reruns is under it)"},
		{"+0.2%, 3 reruns", runs(base, 0, 3), base * 1.002, nil, Unchanged, ExactCountFloor, Floor, ""},
		{"unchanged, 3 reruns", runs(base, 0, 3), base, nil, Unchanged, ExactCountFloor, Floor, ""},
		{"-0.5%, 3 reruns", runs(base, 0, 3), base * 0.995, nil, Improved, ExactCountFloor, Floor, ""},
		// One run and no history: its noise is not known, the declared
		// 1% applies.
		{"+0.5%, 1 run", []float64{base}, base * 1.005, nil, Unchanged, CountThreshold, Declared,
			"threshold 1% (declared: fewer than 3 unchanged measurements to calibrate it)"},
		// One run, and the history's results of the same binary and run.
		{"+0.5%, 1 run and history", []float64{base}, base * 1.005, runs(base, 0, 5), Regressed, ExactCountFloor, Floor,
			"of 5 results of the same binary and run"},
		// Too few results in the history either.
		{"+0.5%, 1 run and 2 results", []float64{base}, base * 1.005, runs(base, 0, 2), Unchanged, CountThreshold, Declared, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			side := Side{Figures: []result.Figure{count("instructions", true, tc.baseRuns...)}}
			if tc.history != nil {
				side.History = map[result.FigureKey][]float64{{Name: "instructions", Unit: "instructions"}: tc.history}
			}
			v := judgeOne(t, side, count("instructions", true, runs(tc.change, 0, len(tc.baseRuns))...))
			if v.Outcome != tc.want || v.Rule.Threshold != tc.threshold || v.Calibration == nil || v.Calibration.Source != tc.source {
				t.Fatalf("%v (calibration %+v), want %s at threshold %v from %s", v, v.Calibration, tc.want, tc.threshold, tc.source)
			}
			if !strings.Contains(v.String(), tc.evidenceHas) {
				t.Errorf("%q does not say %q", v.String(), tc.evidenceHas)
			}
			if tc.want == Regressed && !v.Fails() {
				t.Errorf("%v does not fail", v)
			}
		})
	}
}

func TestCalibratedGoCount(t *testing.T) {
	// havlak7's own instructions: 160,300,302, moving by up to 0.0012%
	// between unchanged runs (a Go program's own count is not exact).
	const base = 160_300_302
	const measured = 0.000012
	baseRuns := runs(base, measured, 3)
	for _, tc := range []struct {
		name   string
		change float64
		want   Outcome
	}{
		// Differences the size of the noise, and ten times it, do not
		// alarm: no false alarm of the Go figure.
		{"noise-sized", 1 + measured, Unchanged},
		{"ten times the noise", 1 + 10*measured, Unchanged},
		{"+0.4%", 1.004, Unchanged},
		// The injected quadratic pass's +0.87% at the quick size, which
		// the declared 1% let through (injected_test.go), is caught.
		{"the injected quadratic pass", injected.quickPatched / injected.quickBase, Regressed},
		{"+0.6%", 1.006, Regressed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeOne(t, Side{Figures: []result.Figure{count("own_instructions", false, baseRuns...)}},
				count("own_instructions", false, runs(base*tc.change, measured, 3)...))
			if v.Outcome != tc.want || v.Rule.Threshold != CountFloor || v.Calibration.Source != Floor {
				t.Errorf("%v, want %s at the count floor", v, tc.want)
			}
		})
	}
}

func TestCalibratedNoisyCount(t *testing.T) {
	// A Go program's own D1 misses, moving by 0.19% in 5 runs: 5 × 0.19%.
	baseRuns := runs(1_000_000, 0.0019, 5)
	v := judgeOne(t, Side{Figures: []result.Figure{count("d1_misses", false, baseRuns...)}},
		count("d1_misses", false, runs(1_005_500, 0.0019, 5)...))
	if v.Outcome != Unchanged || v.Calibration.Source != Measured || !near(v.Rule.Threshold, 5*0.0019) {
		t.Errorf("+0.55%% of a figure of 0.19%% noise: %v, want unchanged at 0.95%%", v)
	}
	if v := judgeOne(t, Side{Figures: []result.Figure{count("d1_misses", false, baseRuns...)}},
		count("d1_misses", false, runs(1_012_000, 0.0019, 5)...)); v.Outcome != Regressed {
		t.Errorf("+1.2%% of a figure of 0.19%% noise: %v, want regressed", v)
	}
	if !strings.Contains(v.Evidence(), "threshold 0.95% (5 × noise 0.19% of 5 reruns)") {
		t.Errorf("evidence %q", v.Evidence())
	}
	// The history saw it move by 0.5%: the declared 1% is the ceiling.
	base := Side{Figures: []result.Figure{count("d1_misses", false, baseRuns...)},
		History: map[result.FigureKey][]float64{{Name: "d1_misses", Unit: "instructions"}: {1_000_000, 1_005_000, 1_002_000}}}
	v = judgeOne(t, base, count("d1_misses", false, runs(1_009_000, 0.0019, 5)...))
	if v.Outcome != Unchanged || v.Calibration.Source != Ceiling || v.Rule.Threshold != CountThreshold ||
		v.Calibration.Points != 3 || v.Calibration.Reruns != 5 {
		t.Errorf("+0.9%% of a figure of 0.5%% noise in its history: %v (%+v), want unchanged at the ceiling", v, v.Calibration)
	}
}

func TestCalibratedTimingNeverUnderItsFloor(t *testing.T) {
	timing := func(values ...float64) result.Figure {
		return result.Figure{Name: "real_seconds", Unit: "s", Class: result.ClassTiming, Gated: true, Better: result.LowerIsBetter, Values: values}
	}
	for _, noise := range []float64{0, 0.0001, 0.01, 0.04} {
		base := Side{Figures: []result.Figure{timing(runs(1, noise, 10)...)},
			History: map[result.FigureKey][]float64{{Name: "real_seconds", Unit: "s"}: runs(1, noise, 5)}}
		// Every new run 4% slower: the U test separates them, the
		// threshold does not let it through.
		v := judgeOne(t, base, timing(runs(1.04, noise, 10)...))
		if v.Rule.Threshold < TimingFloor || v.Outcome != Unchanged {
			t.Errorf("noise %v: %v, want unchanged at a threshold of at least %v", noise, v, TimingFloor)
		}
		// 20%: past the ceiling whatever the noise.
		if v := judgeOne(t, base, timing(runs(1.2, noise, 10)...)); v.Outcome != Regressed || v.Rule.Threshold > TimingThreshold {
			t.Errorf("noise %v: %v, want regressed", noise, v)
		}
	}
	// Max RSS: its own floor.
	rss := result.Figure{Name: "max_rss_kib", Unit: "KiB", Class: result.ClassMemory, Gated: true, Better: result.LowerIsBetter, Values: runs(20000, 0, 5)}
	rule, c := Lab.Calibrate(Lab.Rule(result.ClassMemory, 0, true, rss.Better), rss.Class, false, Noise{Reruns: rss.Values})
	if rule.Threshold != MemoryFloor || c.Source != Floor {
		t.Errorf("max RSS without noise: %v from %s, want the floor %v", rule.Threshold, c.Source, MemoryFloor)
	}
}

func TestCalibrationKeepsTighterDeclarations(t *testing.T) {
	// A benchmark that declares 0.1%: under the floor, and it applies.
	f := count("instructions", true, runs(1e6, 0, 3)...)
	f.Threshold = 0.001
	v := judgeOne(t, Side{Figures: []result.Figure{f}}, count("instructions", true, runs(1.002e6, 0, 3)...))
	if v.Outcome != Regressed || v.Rule.Threshold != 0.001 || v.Calibration.Source != Ceiling {
		t.Errorf("+0.2%% declared at 0.1%%: %v (%+v), want regressed at 0.1%%", v, v.Calibration)
	}
	// A policy without calibration leaves the threshold as declared.
	p := Lab
	p.NoiseFactor = 0
	rule, c := p.Calibrate(CountRule(0.01, true), result.ClassCount, true, Noise{Reruns: runs(1e6, 0, 5)})
	if rule.Threshold != 0.01 || c.Source != Declared {
		t.Errorf("without calibration: %v from %s", rule.Threshold, c.Source)
	}
	// Runs that are no numbers calibrate nothing.
	rule, c = Lab.Calibrate(CountRule(0.01, true), result.ClassCount, true, Noise{Reruns: []float64{1, 1, math.NaN()}})
	if rule.Threshold != 0.01 || c.Source != Declared {
		t.Errorf("with a NaN run: %v from %s", rule.Threshold, c.Source)
	}
}

func TestCalibrationIsTheBasesNotTheChanges(t *testing.T) {
	// The change's runs are noisy (1%): the base's (exact) calibrate, and
	// the change's noise counts only as a count's BeyondNoise does.
	v := judgeOne(t, Side{Figures: []result.Figure{count("instructions", true, runs(1e6, 0, 3)...)}},
		count("instructions", true, runs(1.03e6, 0.01, 3)...))
	if v.Rule.Threshold != ExactCountFloor || v.Outcome != Regressed {
		t.Errorf("%v, want a regression at the floor", v)
	}
}

func TestPercent(t *testing.T) {
	for x, want := range map[float64]string{0.01: "1%", 0.0025: "0.25%", 0.15: "15%", 0.000012: "0.0012%", 0: "0%", 0.0057: "0.57%"} {
		if got := Percent(x); got != want {
			t.Errorf("Percent(%v) = %q, want %q", x, got, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// Origin names each source of a threshold in words, from what calibrated
// it: reruns, history results, the floor, the declared ceiling.
func TestCalibrationOrigin(t *testing.T) {
	rule := Rule{Threshold: CountThreshold, Gated: true}
	for _, tc := range []struct {
		noise  Noise
		exact  bool
		source ThresholdSource
		want   string
	}{
		{Noise{Reruns: runs(1e6, 0.0015, 3)}, false, Measured, "calibrated from 3 reruns"},
		{Noise{Reruns: runs(1e6, 0.0015, 3), History: runs(1e6, 0.0016, 10)}, false, Measured, "calibrated from 3 reruns and 10 history results"},
		{Noise{Reruns: []float64{1e6}, History: runs(1e6, 0.0016, 5)}, false, Measured, "calibrated from 5 history results"},
		{Noise{Reruns: runs(1e6, 0, 3)}, true, Floor, "the floor: what 3 reruns measured is under it"},
		{Noise{Reruns: runs(1e6, 0.01, 3)}, false, Ceiling, "the declared ceiling: what 3 reruns measured is over it"},
		{Noise{Reruns: []float64{1e6}}, true, Declared, "the declared ceiling: too few unchanged measurements to calibrate it"},
	} {
		_, c := Lab.Calibrate(rule, result.ClassCount, tc.exact, tc.noise)
		if c.Source != tc.source || c.Origin() != tc.want {
			t.Errorf("%+v: %s, %q; want %s, %q", tc.noise, c.Source, c.Origin(), tc.source, tc.want)
		}
	}
}
