// The regression suite's part in the default tests: one of its patches
// (tools/regressionsuite/patches), applied to a copy of havlak7cc's
// sources and built in this build (//cc/regressionsuite:
// havlak7cc_extra_work_half: half a percent more instructions, an exact
// count whose calibrated threshold is the floor, 0.25%), is caught by the
// gate's rule, and the unpatched stage measured again raises no alarm.
// The whole matrix is //tools/regressionsuite:matrix_test's.
package benchmarks_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"havlak-lab/tools/regressionsuite/suite"
	"havlak-lab/tools/summary"
)

var (
	suiteRunner  = flag.String("suite_runner", "", "the perf runner")
	suiteSpec    = flag.String("suite_spec", "", "the quick test spec of the stage the patch changes")
	suitePatched = flag.String("suite_patched", "", "the patched program")
	suitePatch   = flag.String("suite_patch", "", "the patch")
)

func TestPatchIsCaught(t *testing.T) {
	if *suiteRunner == "" {
		t.Skip("run by bazel test //benchmarks:regression_suite_test")
	}
	runfiles := filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"))
	data, err := os.ReadFile(filepath.Join(runfiles, *suitePatch))
	if err != nil {
		t.Fatal(err)
	}
	c, err := suite.ParseCase(*suitePatch, data)
	if err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(runfiles, *suiteRunner)
	patchedSpec, err := suite.WithBinary(filepath.Join(runfiles, *suiteSpec), *suitePatched, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	measure := func(spec string) summary.Side {
		t.Helper()
		r, err := suite.MeasureSpec(runner, runfiles, spec, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		side, err := summary.NewSide(r, nil, spec)
		if err != nil {
			t.Fatal(err)
		}
		return side
	}
	base := measure(*suiteSpec)
	patched := measure(patchedSpec)
	again := measure(*suiteSpec)

	// The perf check's comparison (summary.Counted), as the suite judges.
	judged, err := summary.CompareOne(base, patched, summary.Counted(nil))
	if err != nil {
		t.Fatal(err)
	}
	caught := false
	for _, f := range judged.Figures {
		t.Logf("%s: %s", c.Name, f)
		caught = caught || f.Figure == c.Figure && f.Fails()
	}
	if !caught {
		t.Errorf("%s (%s, %s): %s did not catch it", c.Name, c.Kind, c.Size, c.Figure)
	}
	// The same binary measured again, judged as a change (its noise
	// against the thresholds), as the suite judges its reruns.
	rerun := summary.Counted(nil)
	rerun.IgnoreIdentity = true
	unchanged, err := summary.CompareOne(base, again, rerun)
	if err != nil {
		t.Fatal(err)
	}
	if unchanged.Fails() {
		t.Errorf("the unpatched stage measured again: a false alarm: %+v", unchanged.Figures)
	}
}
