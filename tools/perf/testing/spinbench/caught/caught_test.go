package caught

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The count actions' outputs (BUILD.bazel passes them): BenchmarkSpin
// counted as a go_benchmark counts it, and its two variants.
var (
	baseCounts     = flag.String("base", "", "the base's count (spin_counts)")
	plus1pctCounts = flag.String("plus1pct", "", "the count of 1% more work an operation (spin_plus1pct_counts)")
	neutralCounts  = flag.String("neutral", "", "the count of another binary of the same work (spin_neutral_counts)")
	spinSource     = flag.String("spin_go", "", "spin.go, the benchmarks' source")
)

// runfile is path, a $(rootpath), in the test's runfiles.
func runfile(path string) string {
	if dir := os.Getenv("TEST_SRCDIR"); dir != "" && !filepath.IsAbs(path) {
		return filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), path)
	}
	return path
}

// side reads a count's outputs.zip as a side of the lab's comparison,
// named as the base is: the same benchmark at another commit.
func side(t *testing.T, path string) summary.Side {
	t.Helper()
	path = runfile(path)
	r, out, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	s, err := summary.NewSide(r, out, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Benchmark.Name = "spin"
	return s
}

// spinVerdict is the verdict on BenchmarkSpin's own instructions per
// operation, change against base, as the perf check judges counts.
func spinVerdict(t *testing.T, base, change summary.Side) verdict.Verdict {
	t.Helper()
	b, err := summary.CompareOne(base, change, summary.Counted(nil))
	if err != nil {
		t.Fatal(err)
	}
	figure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	for _, v := range b.Figures {
		if v.Figure == figure {
			return v
		}
	}
	t.Fatalf("no verdict on %s among %v", figure, b.Figures)
	return verdict.Verdict{}
}

// 1% more work an operation in a testing.B is caught by its count, its
// threshold calibrated from the base's runs; a change of the binary that
// does no more work raises no alarm.
func TestOnePercentMoreWorkIsCaught(t *testing.T) {
	if *baseCounts == "" {
		t.Skip("the count actions' outputs come from Bazel (BUILD.bazel's caught_test)")
	}
	base := side(t, *baseCounts)
	figure := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	var m result.Metric
	for _, f := range base.Figures {
		if f.Name == figure {
			m = result.Metric{Name: f.Name, Values: f.Values, Gated: f.Gated, Cost: f.Cost}
		}
	}
	if len(m.Values) != 3 || !m.Gated || m.Cost != result.CostWork {
		t.Fatalf("the base's %s: %+v; want 3 values, gated, a cost of work", figure, m)
	}
	t.Logf("base: %v own instructions an operation", m.Values)

	v := spinVerdict(t, base, side(t, *plus1pctCounts))
	if v.Outcome != verdict.Regressed || !v.Fails() || v.Calibration == nil {
		t.Errorf("1%% more work: %v; want REGRESSED, failing, its threshold calibrated", v)
	}
	t.Logf("1%% more work: %v (threshold: %s)", v, v.Calibration)
	if v := spinVerdict(t, base, side(t, *neutralCounts)); v.Fails() || v.Outcome == verdict.Regressed {
		t.Errorf("another binary of the same work: %v; want no alarm", v)
	}
}
