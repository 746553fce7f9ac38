package changepoint

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/changepoint/otavatest"
)

// otava installs Otava with the project's own script and returns its path.
func otava(t *testing.T) string {
	return otavatest.Command(t, filepath.Join("..", "ci", "tools.sh"))
}

const (
	nights = 30
	// Relative noise of a night's median, as a standard deviation. Low:
	// the lab's low-noise figures that move at all (Go stages' total
	// instructions and allocations, up to 0.32% and 0.28% in
	// docs/noise.md). Noisier: the allocation figures' worst, 1.2% in
	// another series of the same page.
	lowNoise   = 0.003
	noisyNoise = 0.012
	// Seeds per scenario: each is its own history.
	seeds = 5
)

var firstNight = time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)

// history is a synthetic series: night i has commit c<i>, and the value
// base × level(i) × (1 + noise·N(0,1)), the noise seeded.
func history(name string, direction Direction, seed uint64, noise float64, level func(night int) float64) Series {
	random := rand.New(rand.NewPCG(seed, 14))
	s := Series{Name: name, Direction: direction}
	for i := range nights {
		s.Points = append(s.Points, Point{
			ID:    fmt.Sprintf("c%02d", i),
			Time:  firstNight.Add(time.Duration(i) * 24 * time.Hour),
			Value: 1.69e8 * level(i) * (1 + noise*random.NormFloat64()),
		})
	}
	return s
}

func flat(int) float64 { return 1 }

// step multiplies every night from at on by 1+change.
func step(at int, change float64) func(int) float64 {
	return func(night int) float64 {
		if night >= at {
			return 1 + change
		}
		return 1
	}
}

// The creep: each of the 10 nights from creepStart on is 0.7% worse than
// the one before; after them the series stays at the level reached.
const (
	creepStart  = 10
	creepNights = 10
	creepRate   = 0.007
)

func creep(night int) float64 {
	return math.Pow(1+creepRate, float64(min(max(night-creepStart+1, 0), creepNights)))
}

func near(got, want, relative float64) bool {
	return math.Abs(got-want) <= relative*math.Abs(want)
}

func mean(points []Point) float64 {
	sum := 0.0
	for _, p := range points {
		sum += p.Value
	}
	return sum / float64(len(points))
}

// checkStatistics: each change point names the points at its index; Otava's
// mean before it is the mean of the stretch from the previous one, as ours
// is (so the indexes and the scaling are right); the stretches join up;
// Otava's p-values are within the maximum.
func checkStatistics(t *testing.T, s Series, r Result, opts Options) {
	t.Helper()
	previous := 0
	for i, cp := range r.ChangePoints {
		if cp.Before != s.Points[cp.Index-1] || cp.After != s.Points[cp.Index] {
			t.Errorf("%s: change point at %d: range %s..%s, want %s..%s", s.Name, cp.Index, cp.Before.ID, cp.After.ID,
				s.Points[cp.Index-1].ID, s.Points[cp.Index].ID)
		}
		want := mean(s.Points[previous:cp.Index])
		if !near(cp.MeanBefore, want, 1e-12) || !near(cp.Otava.MeanBefore, want, 1e-5) {
			t.Errorf("%s: change point at %d: mean before %.7g, Otava's %.7g, want %.7g (points %d to %d)",
				s.Name, cp.Index, cp.MeanBefore, cp.Otava.MeanBefore, want, previous, cp.Index-1)
		}
		if i+1 < len(r.ChangePoints) && cp.MeanAfter != r.ChangePoints[i+1].MeanBefore {
			t.Errorf("%s: change point at %d: mean after %.7g, but the next one's mean before is %.7g",
				s.Name, cp.Index, cp.MeanAfter, r.ChangePoints[i+1].MeanBefore)
		}
		if !near(cp.Change, cp.MeanAfter/cp.MeanBefore-1, 1e-12) {
			t.Errorf("%s: change point at %d: change %+.4f%%, means %.7g → %.7g", s.Name, cp.Index, 100*cp.Change, cp.MeanBefore, cp.MeanAfter)
		}
		if cp.Otava.PValue > opts.MaxPValue {
			t.Errorf("%s: change point at %d: p = %g, above the maximum %g", s.Name, cp.Index, cp.Otava.PValue, opts.MaxPValue)
		}
		previous = cp.Index
	}
	if n := len(r.ChangePoints); n > 0 {
		last := r.ChangePoints[n-1]
		if want := mean(s.Points[last.Index:]); !near(last.MeanAfter, want, 1e-12) {
			t.Errorf("%s: last change point at %d: mean after %.7g, want %.7g", s.Name, last.Index, last.MeanAfter, want)
		}
	}
}

// TestSyntheticHistory is issue 14's synthetic history, every scenario
// with several seeds, all series in one run of Otava.
func TestSyntheticHistory(t *testing.T) {
	opts := DefaultOptions(otava(t))
	// Otava filters by a branch column when BRANCH is set (a CI variable
	// elsewhere): Detect must not let it.
	t.Setenv("BRANCH", "main")

	type scenario struct {
		series Series
		check  func(t *testing.T, s Series, r Result)
	}
	var scenarios []scenario
	add := func(name string, direction Direction, noise float64, level func(int) float64, check func(*testing.T, Series, Result)) {
		for seed := uint64(1); seed <= seeds; seed++ {
			scenarios = append(scenarios, scenario{
				history(fmt.Sprintf("%s seed=%d", name, seed), direction, seed, noise, level), check})
		}
	}
	// (a) Nothing changes: no change point, so no alert.
	none := func(t *testing.T, s Series, r Result) {
		if len(r.ChangePoints) != 0 {
			t.Errorf("%s: change points in a flat history: %+v", s.Name, r.ChangePoints)
		}
	}
	add("flat low-noise", LowerIsBetter, lowNoise, flat, none)
	add("flat noisier", LowerIsBetter, noisyNoise, flat, none)
	add("flat throughput noisier", HigherIsBetter, noisyNoise, flat, none)

	// (b, d) A 3% step at night 15: one change point, commits c14..c15.
	add("step up, lower is better", LowerIsBetter, lowNoise, step(15, 0.03), stepAt(true, 0.03))
	add("step down, higher is better", HigherIsBetter, lowNoise, step(15, -0.03), stepAt(true, -0.03))
	add("improvement, lower is better", LowerIsBetter, lowNoise, step(15, -0.03), stepAt(false, -0.03))
	add("improvement, higher is better", HigherIsBetter, lowNoise, step(15, 0.03), stepAt(false, 0.03))

	// (c) The creep (creepFound).
	add("creep", LowerIsBetter, lowNoise, creep, creepFound(opts))

	series := make([]Series, len(scenarios))
	for i, sc := range scenarios {
		series[i] = sc.series
	}
	defer func(runs, least int) { otavaRuns, minRunSeries = runs, least }(otavaRuns, minRunSeries)
	otavaRuns = 1
	results, err := Detect(context.Background(), opts, series...)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(series) {
		t.Fatalf("%d results for %d series", len(results), len(series))
	}
	// Split between three runs of Otava at once: the same results.
	otavaRuns, minRunSeries = 3, 1
	if split, err := Detect(context.Background(), opts, series...); err != nil || !reflect.DeepEqual(split, results) {
		t.Errorf("the %d series split between 3 runs of Otava: %v, or other results than in one run", len(series), err)
	}
	for i, sc := range scenarios {
		t.Run(sc.series.Name, func(t *testing.T) {
			if results[i].Series != sc.series.Name {
				t.Fatalf("result %d is of %s, want %s", i, results[i].Series, sc.series.Name)
			}
			checkStatistics(t, sc.series, results[i], opts)
			sc.check(t, sc.series, results[i])
		})
	}
}

// A series whose values are all the same, as a C++ stage's instruction
// count is night after night, and one that steps on the last night.
func TestExactCounts(t *testing.T) {
	opts := DefaultOptions(otava(t))
	constant := history("constant", LowerIsBetter, 1, 0, flat)
	lastNight := history("last night +2%", LowerIsBetter, 1, 0, step(nights-1, 0.02))
	below := history("+0.5%, below the magnitude", LowerIsBetter, 1, 0, step(15, 0.005))
	// Seconds: the scaling keeps Otava's 6 decimals meaningful.
	small := history("small values", LowerIsBetter, 3, lowNoise, step(15, 0.03))
	for i := range small.Points {
		small.Points[i].Value *= 1e-11
	}
	results, err := Detect(context.Background(), opts, constant, lastNight, below, small)
	if err != nil {
		t.Fatal(err)
	}
	if cps := results[0].ChangePoints; len(cps) != 0 {
		t.Errorf("constant: change points %+v", cps)
	}
	if cps := results[1].ChangePoints; len(cps) != 1 || cps[0].After.ID != "c29" || !near(cps[0].Change, 0.02, 1e-6) || !cps[0].Regression {
		t.Errorf("last night +2%%: change points %+v, want one at c29, +2%%, a regression", cps)
	}
	if cps := results[2].ChangePoints; len(cps) != 0 {
		t.Errorf("+0.5%% with a 1%% minimum magnitude: change points %+v", cps)
	}
	if cps := results[3].ChangePoints; len(cps) != 1 || cps[0].Index != 15 {
		t.Errorf("small values: change points %+v, want one at 15", cps)
	} else {
		checkStatistics(t, small, results[3], opts)
	}
}

// Bad input is refused before Otava runs, naming the series and point.
func TestBadInput(t *testing.T) {
	good := history("good", LowerIsBetter, 1, lowNoise, flat)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions(exe)
	mutate := func(f func(s *Series)) Series {
		s := history("havlak6 instructions", LowerIsBetter, 1, lowNoise, flat)
		s.Points = append([]Point(nil), s.Points...)
		f(&s)
		return s
	}
	for _, c := range []struct {
		opts   Options
		series []Series
		want   string
	}{
		{DefaultOptions(""), []Series{good}, "tools/ci/tools.sh otava"},
		{DefaultOptions("/no/such/otava"), []Series{good}, "/no/such/otava"},
		{DefaultOptions(t.TempDir()), []Series{good}, "not an executable"},
		{Options{Otava: exe, Window: 1, MaxPValue: 0.01}, []Series{good}, "window 1"},
		{Options{Otava: exe, Window: 30, MaxPValue: 0}, []Series{good}, "p-value 0"},
		{opts, []Series{good, good}, "series good is given twice"},
		{opts, []Series{mutate(func(s *Series) { s.Name = "" })}, "no name"},
		{opts, []Series{mutate(func(s *Series) { s.Direction = 0 })}, "series havlak6 instructions: no direction"},
		{opts, []Series{mutate(func(s *Series) { s.Points = nil })}, "series havlak6 instructions: no points"},
		{opts, []Series{mutate(func(s *Series) { s.Points[3].Value = math.NaN() })}, "point 3 (c03): value is NaN"},
		{opts, []Series{mutate(func(s *Series) { s.Points[4].ID = "" })}, "point 4 has no id"},
		{opts, []Series{mutate(func(s *Series) { s.Points[5].Time = time.Time{} })}, "point 5 (c05) has no time"},
		{opts, []Series{mutate(func(s *Series) { s.Points[9].Time = time.Date(2287, 1, 1, 0, 0, 0, 0, time.UTC) })}, "point 9 (c09) at 2287-01-01T00:00:00Z: want a time within 10 digits"},
		{opts, []Series{mutate(func(s *Series) { s.Points[6].Time = s.Points[2].Time })}, "point 6 (c06) at 2026-10-03T02:00:00Z comes before point 5 (c05)"},
	} {
		_, err := Detect(context.Background(), c.opts, c.series...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Detect: error %v, want one saying %q", err, c.want)
		}
	}
}

// stepAt checks a series of issue 14 with a step at night 15: one change
// point, commits c14..c15, a regression or not, of about change.
func stepAt(regression bool, change float64) func(*testing.T, Series, Result) {
	return func(t *testing.T, s Series, r Result) {
		if len(r.ChangePoints) != 1 {
			t.Fatalf("%s: change points %+v, want one at index 15", s.Name, r.ChangePoints)
		}
		cp := r.ChangePoints[0]
		if cp.Index != 15 || cp.Before.ID != "c14" || cp.After.ID != "c15" {
			t.Errorf("%s: change point at %d (%s..%s), want 15 (c14..c15)", s.Name, cp.Index, cp.Before.ID, cp.After.ID)
		}
		if cp.Regression != regression {
			t.Errorf("%s: regression %v, want %v", s.Name, cp.Regression, regression)
		}
		// 15 nights each side: the means' noise is 0.3%/√15 ≈ 0.08%.
		if math.Abs(cp.Change-change) > 0.004 {
			t.Errorf("%s: change %+.2f%%, want about %+.0f%%", s.Name, 100*cp.Change, 100*change)
		}
	}
}

// creepFound checks the creep of issue 14. E-divisive fits steps: Otava
// reports one or more change points within the creep (typically one near
// its start and one near its end), each a part of the whole. Every one
// must be a regression whose commit range holds a commit of the creep (c10
// to c19), and together they must account for no more than the creep.
func creepFound(opts Options) func(*testing.T, Series, Result) {
	total := math.Pow(1+creepRate, creepNights) - 1
	return func(t *testing.T, s Series, r Result) {
		if len(r.Regressions()) == 0 {
			t.Fatalf("%s: no regression found in a creep of %.1f%% over %d nights", s.Name, 100*total, creepNights)
		}
		combined := 1.0
		for _, cp := range r.ChangePoints {
			if !cp.Regression || cp.Index < creepStart || cp.Index >= creepStart+creepNights {
				t.Errorf("%s: change point at %d (%s..%s, %+.2f%%, regression %v), want regressions with the commit range inside c%02d..c%02d",
					s.Name, cp.Index, cp.Before.ID, cp.After.ID, 100*cp.Change, cp.Regression, creepStart, creepStart+creepNights-1)
			}
			combined *= 1 + cp.Change
		}
		// The first and last stretches hold parts of the creep, so the
		// change between them is less than all of it (by noise at most).
		if combined-1 > total+0.003 || combined-1 < opts.MinMagnitude {
			t.Errorf("%s: change points add up to %+.2f%%, want up to the creep's %+.2f%%", s.Name, 100*(combined-1), 100*total)
		}
		t.Logf("%s: %d change points:", s.Name, len(r.ChangePoints))
		for _, cp := range r.ChangePoints {
			t.Logf("  %s..%s %+.2f%% (Otava: %+.2f%%, p=%g)", cp.Before.ID, cp.After.ID, 100*cp.Change, 100*(cp.Otava.MeanAfter/cp.Otava.MeanBefore-1), cp.Otava.PValue)
		}
	}
}
