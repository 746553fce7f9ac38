package night

import (
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/result"
	verdictlib "havlak-lab/tools/verdict"
)

// identifyHavlak7 gives havlak7's result in the night dir an identity,
// the sha256 of its binary binary repeated (the same run and the same
// version of the lab in every night), and edits it.
func identifyHavlak7(t *testing.T, dir, binary string, edit func(r *result.Result)) {
	t.Helper()
	path := filepath.Join(dir, "havlak7_quick_test", result.ZipName)
	files := readZip(t, path)
	editResult(t, files, func(r *result.Result) {
		r.SchemaVersion = result.SchemaVersion
		r.Identity = &result.Identity{BinarySHA256: strings.Repeat(binary, 64), RunSHA256: strings.Repeat("b", 64),
			LabSHA256: strings.Repeat("c", 64)}
		edit(r)
	})
	writeZip(t, path, files)
}

// measureHavlak7 makes havlak7's result in the night dir the same binary
// and run in every night, counting its own instructions as perfrun
// declares them (gated, not exact: 3 counted runs 0.0005% apart) times
// own, its timed runs' real time times timings.
func measureHavlak7(t *testing.T, dir string, own, timings float64) {
	t.Helper()
	identifyHavlak7(t, dir, "a", func(r *result.Result) {
		r.Metrics = append(r.Metrics, result.Metric{Name: "own_instructions", Unit: "instructions",
			Source: "cachegrind, 3 counted runs (outside the Go runtime)", Cost: result.CostWork, Gated: true,
			Threshold: verdictlib.CountThreshold, Values: []float64{160_300_302 * own, 160_301_150 * own, 160_300_690 * own}})
		for i := range r.Timing.Runs {
			r.Timing.Runs[i].RealSeconds *= timings
		}
	})
}

// firstBaseline is the baseline the gate makes of a first night, which
// measure edits, and the snapshot of its files.
func firstBaseline(t *testing.T, measure func(dir string)) (baseline, files string) {
	t.Helper()
	t.Setenv("BUILDKITE", "")
	baseline = filepath.Join(t.TempDir(), "baseline")
	first := makeNight(t, nightSpec{allocs: 1})
	measure(first)
	if status, log := gateNight(t, baseline, first); status != 0 {
		t.Fatalf("first night: exit status %d, want 0:\n%s", status, log)
	}
	return baseline, snapshot(t, baseline)
}

// A night of the baseline's binary and run that counts 3x its own
// instructions, or runs 5x as long, is an inconsistent measurement (issue
// 43): the night fails and never becomes the baseline. Its noise passes,
// and the night becomes the baseline.
func TestGateInconsistentNightIsNotPromoted(t *testing.T) {
	needCommands(t)
	baseline, before := firstBaseline(t, func(dir string) { measureHavlak7(t, dir, 1, 1) })
	for _, c := range []struct {
		name         string
		own, timings float64
		status       int
		says         []string
		newBaseline  bool
	}{
		{"3x the own instructions", 3, 1, 1, []string{"report: havlak7 regressed: INCONSISTENT", "own_instructions INCONSISTENT: inconsistent measurement"}, false},
		{"5x the real time", 1, 5, 1, []string{"report: havlak7 regressed: INCONSISTENT", "real_seconds INCONSISTENT: inconsistent measurement"}, false},
		{"own instructions +0.001%", 1.00001, 1, 0, []string{"This night becomes the baseline"}, true},
	} {
		tonight := makeNight(t, nightSpec{allocs: 1})
		measureHavlak7(t, tonight, c.own, c.timings)
		status, log := gateNight(t, baseline, tonight)
		before = checkNight(t, c.name, status, log, c.status, c.says, baseline, before, c.newBaseline)
	}
}

// A night of the baseline's binary and run measured by another version of
// the lab (a consumer that moved its pin of the lab, or a commit that
// changed the runner) is re-baselined by name: its 3x own instructions,
// inconsistent with one lab, are not compared, the night fails nothing,
// and it becomes the baseline.
func TestGateAnotherLabIsRebaselined(t *testing.T) {
	needCommands(t)
	baseline, before := firstBaseline(t, func(dir string) { measureHavlak7(t, dir, 1, 1) })
	tonight := makeNight(t, nightSpec{allocs: 1})
	measureHavlak7(t, tonight, 3, 1)
	identifyHavlak7(t, tonight, "a", func(r *result.Result) { r.Identity.LabSHA256 = strings.Repeat("d", 64) })
	status, log := gateNight(t, baseline, tonight)
	checkNight(t, "another lab", status, log, 0, []string{
		verdictlib.AnotherLab + " (the lab's version cccccccccccc → dddddddddddd): not compared, every figure restarts here: havlak7",
		"| havlak7 | Go |", "not compared: another version of the lab", "This night becomes the baseline",
		"**1 benchmark " + verdictlib.AnotherLab + "** (the lab's versions named above): none of their figures was compared"},
		baseline, before, true)
	if strings.Contains(log, "INCONSISTENT") || strings.Contains(log, "REGRESSED") {
		t.Errorf("a night of another lab judged a figure:\n%s", log)
	}
	if strings.Contains(log, "**Environment changed**") || strings.Contains(log, "another environment") {
		t.Errorf("a night of another lab, in the baseline's environment, says another environment:\n%s", log)
	}
}
