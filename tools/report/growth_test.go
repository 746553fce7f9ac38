package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// havlak7's own instructions at 1, 2, 4 and 8 trees of 3,800 loops, as
// its quick test's sweep recorded them (O(N), RMS 0.000%).
var (
	sweepSizes  = []float64{3800, 7600, 15200, 30400}
	sweepCounts = []float64{11565043, 23058801, 46045751, 92019325}
)

// setSweep gives the unpacked result in dir a sweep of own_instructions
// with the counts at sweepSizes, fitted.
func setSweep(t *testing.T, dir string, counts []float64) {
	t.Helper()
	s := result.Sweep{Figure: "own_instructions", Unit: "instructions", N: "loops found", Source: "test",
		Gated: true, Threshold: verdict.CountThreshold}
	for i, n := range sweepSizes {
		s.Points = append(s.Points, result.SweepPoint{N: n, Value: counts[i]})
	}
	var err error
	if s.Fit, _, err = complexity.Best(s.Sizes(), s.Values()); err != nil {
		t.Fatal(err)
	}
	editResult(t, dir, func(doc map[string]any) { doc["sweeps"] = []result.Sweep{s} })
}

// withQuadraticPass adds to havlak7's counts a pass quadratic in N that
// costs the fraction quick of the count at the quick workload's size
// (11,400 loops), as its linear fit predicts it.
func withQuadraticPass(quick float64) []float64 {
	linear, _ := complexity.FitOrder(complexity.ON, sweepSizes, sweepCounts)
	const q = 11400
	e := quick * linear.At(q) / (q * q)
	var counts []float64
	for i, n := range sweepSizes {
		counts = append(counts, sweepCounts[i]+e*n*n)
	}
	return counts
}

// The gate on how cost grows: a quadratic pass the counted figure would
// pass (0.5% at the quick size) fails by the coefficient, a larger one by
// the order; the same counts pass. report.md shows the sweep's table.
func TestGrowthGate(t *testing.T) {
	for _, c := range []struct {
		name      string
		counts    []float64
		regressed bool
		change    string
	}{
		{"the same growth", sweepCounts, false, "+0.00% of O(N)"},
		{"a quadratic pass of 0.5% at the quick size", withQuadraticPass(0.005), true, "% of O(N)"},
		{"a quadratic pass of 5% at the quick size", withQuadraticPass(0.05), true, "O(N) → O(N log N)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldDir, newDir := t.TempDir(), t.TempDir()
			for dir, counts := range map[string][]float64{oldDir: sweepCounts, newDir: c.counts} {
				unzipTo(t, filepath.Join(fixtures, "havlak7_quick_test", "outputs.zip"), filepath.Join(dir, "havlak7"))
				setSweep(t, filepath.Join(dir, "havlak7"), counts)
			}
			out := t.TempDir()
			stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
			if regressed := status == 1; regressed != c.regressed || status > 1 {
				t.Fatalf("exit status %d, want regressed %v:\n%s", status, c.regressed, stderr)
			}
			sum, err := summary.Read(filepath.Join(out, summary.FileName))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(sum.Benchmarks, func(b summary.Benchmark) bool { return b.Name == "havlak7" })
			if i < 0 {
				t.Fatalf("summary.json has no havlak7: %+v", sum)
			}
			j := slices.IndexFunc(sum.Benchmarks[i].Figures, func(v verdict.Verdict) bool { return v.Figure == "own_instructions_growth" })
			if j < 0 {
				t.Fatalf("summary.json does not judge own_instructions_growth: %+v", sum.Benchmarks[i])
			}
			v := sum.Benchmarks[i].Figures[j]
			if v.Fails() != c.regressed || !strings.Contains(v.ChangeText(2), c.change) || v.Growth == nil {
				t.Errorf("own_instructions_growth: %v (%s), want failing %v and %q", v, v.ChangeText(2), c.regressed, c.change)
			}
			md, _ := os.ReadFile(filepath.Join(out, "report.md"))
			if !strings.Contains(string(md), "## How cost grows") || !strings.Contains(string(md), "| havlak7 | own_instructions | 3,800, 7,600, 15,200, 30,400 loops found | ") {
				t.Errorf("report.md has no row of havlak7's sweep:\n%s", md)
			}
		})
	}
}

// The growth charts in a real browser: one per swept benchmark, drawn by
// uPlot with the measured counts as points and the fitted curve through
// them; a result without a sweep has none. Screenshot: growth.png.
func TestGrowthInBrowser(t *testing.T) {
	dir := t.TempDir()
	for _, name := range fixtureStages(t) {
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(dir, name))
	}
	setSweep(t, filepath.Join(dir, "havlak7"), sweepCounts)
	setSweep(t, filepath.Join(dir, "havlak6"), withQuadraticPass(0.5))
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", dir, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	d := startBrowser(t)
	d.Call("POST", "/url", map[string]string{"url": "file://" + filepath.Join(out, "index.html")})
	var charts []struct {
		Benchmark, Order, Caption string
		Points, Painted           int
		// FitAtPoints is the fitted curve over the measured counts at
		// the points' sizes.
		FitAtPoints []float64
	}
	d.Script(&charts, `return Array.from(document.querySelectorAll("figure.growth")).map(figure => {
			const u = window.growthCharts[figure.id];
			const canvas = figure.querySelector("canvas");
			const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
			let painted = 0;
			for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
			const at = [];
			u.data[1].forEach((count, i) => { if (count !== null) at.push(u.data[2][i] / count); });
			return {benchmark: figure.dataset.benchmark, order: figure.dataset.order, caption: figure.querySelector("figcaption").textContent,
				points: at.length, painted: painted, fitAtPoints: at};
		});`)
	if len(charts) != 2 {
		t.Fatalf("%d growth charts, want havlak6's and havlak7's: %+v", len(charts), charts)
	}
	for _, c := range charts {
		if c.Points != len(sweepSizes) || c.Painted < 2000 {
			t.Errorf("%s: %d points, %d pixels painted; want %d points drawn", c.Benchmark, c.Points, c.Painted, len(sweepSizes))
		}
		if !strings.Contains(c.Caption, "own_instructions: "+c.Order) {
			t.Errorf("%s: caption %q does not give the order %s", c.Benchmark, c.Caption, c.Order)
		}
	}
	if c := charts[1]; c.Benchmark != "havlak7" || c.Order != "O(N)" {
		t.Errorf("the second chart: %s %s, want havlak7 O(N)", c.Benchmark, c.Order)
	} else {
		for _, r := range c.FitAtPoints {
			if r < 0.999 || r > 1.001 {
				t.Errorf("havlak7: the fit is %v of a measured count; an O(N) fit of its counts passes through them", r)
			}
		}
	}
	if c := charts[0]; c.Order == "O(N)" {
		t.Errorf("havlak6 with a quadratic pass fitted as %s", c.Order)
	}
	d.Screenshot("/element/"+d.Element("details.growth")+"/screenshot", "growth.png")
}

// scaled is sweepCounts times k: the same order, its coefficient k times.
func scaled(k float64) []float64 {
	var counts []float64
	for _, c := range sweepCounts {
		counts = append(counts, k*c)
	}
	return counts
}

// identify gives the unpacked result in dir the identity of the binary
// whose sha256 is binary repeated.
func identify(t *testing.T, dir, binary string) {
	t.Helper()
	editResult(t, dir, func(doc map[string]any) {
		doc["schema_version"] = 2
		doc["identity"] = map[string]any{"binary_sha256": strings.Repeat(binary, 64), "run_sha256": strings.Repeat("b", 64)}
	})
}

// The history's sweeps calibrate a growth (--history): tonight's
// coefficient 0.3% over the baseline's fails by the growth's floor
// (0.25%), which the baseline's own fit leaves it at, and passes when
// the history has three sweeps of the baseline's binary 0.1% apart (5 ×
// 0.1%: 0.5%). Sweeps of another binary calibrate nothing.
func TestGrowthCalibratedByHistory(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "history.sqlite")
	db, err := history.Create(ctx, dsn, history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []float64{1, 1.0005, 0.9995} {
		dir := filepath.Join(night(t, "havlak7"), "havlak7")
		setSweep(t, dir, scaled(k))
		identify(t, dir, "a")
		if _, err := db.Ingest(ctx, dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	baseline, tonight := night(t, "havlak7"), night(t, "havlak7")
	setSweep(t, filepath.Join(baseline, "havlak7"), sweepCounts)
	setSweep(t, filepath.Join(tonight, "havlak7"), scaled(1.003))
	identify(t, filepath.Join(tonight, "havlak7"), "c")
	for _, c := range []struct {
		name, binary string
		history      bool
		fails        bool
		source       verdict.ThresholdSource
		threshold    string
	}{
		{"no history", "a", false, true, verdict.Floor, "threshold 0.25% (the floor: 5 × noise "},
		{"the history of the baseline's binary", "a", true, false, verdict.Measured,
			"threshold 0.5% (5 × noise 0.1% of the fit over 4 sizes and 3 results of the same binary and run)"},
		{"the history of another binary", "d", true, true, verdict.Floor, "threshold 0.25% (the floor: 5 × noise "},
	} {
		t.Run(c.name, func(t *testing.T) {
			identify(t, filepath.Join(baseline, "havlak7"), c.binary)
			args := []string{"--from", tonight, "--baseline", baseline}
			if c.history {
				args = append(args, "--history", dsn)
			}
			sum, stderr, status := reportSummary(t, args...)
			b := benchmarkOf(sum, "havlak7")
			if b == nil {
				t.Fatalf("no havlak7 in the summary:\n%s", stderr)
			}
			i := slices.IndexFunc(b.Figures, func(v verdict.Verdict) bool { return v.Figure == "own_instructions_growth" })
			if i < 0 {
				t.Fatalf("own_instructions_growth not judged: %+v", b)
			}
			v := b.Figures[i]
			if v.Fails() != c.fails || (status == 1) != c.fails || v.Calibration == nil || v.Calibration.Source != c.source ||
				!strings.Contains(v.String(), c.threshold) {
				t.Errorf("own_instructions_growth %s, calibration %+v, exit status %d; want failing %v, a threshold from %s: %q\n%s",
					v.String(), v.Calibration, status, c.fails, c.source, c.threshold, stderr)
			}
		})
	}
}
