package verdict

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// Two versions of the lab, as result.Identity.LabSHA256 records them.
var (
	labA = strings.Repeat("a1", 32)
	labB = strings.Repeat("b2", 32)
)

// labSides are a quick result of the same binary and run measured twice:
// the baseline by the lab baseLab, tonight by nightLab, tonight's exact
// instructions 3% over the baseline's and its own instructions 3x.
func labSides(t *testing.T, goProgram bool, baseLab, nightLab string) (Side, Side) {
	t.Helper()
	base, night := quickResult(goProgram), quickResult(goProgram)
	base.Identity.LabSHA256, night.Identity.LabSHA256 = baseLab, nightLab
	if goProgram {
		scale(metric(t, night, "own_instructions").Values, 3)
	} else {
		scale(metric(t, night, "instructions").Values, 1.03)
	}
	return quickSide(t, base, baseSource), quickSide(t, night, nightSource)
}

// A result measured by another version of the lab than its baseline's is
// re-baselined by name, figure by figure: never regressed nor
// inconsistent, even where an exact count of the same binary and run
// differs; the same version judges as before.
func TestAnotherVersionOfTheLab(t *testing.T) {
	for _, goProgram := range []bool{true, false} {
		for _, tc := range []struct {
			name              string
			baseLab, nightLab string
			want              string // in every figure's reason; "" for judged as before
		}{
			{"the same lab", labA, labA, ""},
			{"another lab", labA, labB, AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2)"},
			// A baseline from before the lab recorded its version (schema
			// version 2) was measured by another version than tonight's.
			{"a baseline without the lab's version", "", labB, AnotherLab + " (the lab's version none recorded → b2b2b2b2b2b2)"},
		} {
			base, night := labSides(t, goProgram, tc.baseLab, tc.nightLab)
			verdicts := Lab.Compare(base, night)
			if len(verdicts) == 0 {
				t.Fatalf("%s: no verdicts", tc.name)
			}
			if tc.want == "" {
				// The same identity: the changed count is an inconsistent
				// measurement, as it always was.
				if Worst(verdicts) != Inconsistent {
					t.Errorf("%s (go %v): worst %s, want inconsistent as before: %v", tc.name, goProgram, Worst(verdicts), verdicts)
				}
				continue
			}
			for _, v := range verdicts {
				if v.Outcome != NotComparable || v.Reason != tc.want || v.Fails() {
					t.Errorf("%s (go %v): %s: %s %q, want not comparable, %q", tc.name, goProgram, v.Figure, v.Outcome, v.Reason, tc.want)
				}
			}
			// A person may compare across versions of the lab (the
			// report's --allow-env-change): then the figures are judged,
			// as two measurements that may differ, never inconsistent.
			allow := Lab
			allow.AllowEnvironmentChange = true
			for _, v := range allow.Compare(base, night) {
				if v.Outcome == Inconsistent || v.Outcome == NotComparable && strings.Contains(v.Reason, AnotherLab) {
					t.Errorf("%s (go %v), allowed: %s: %s %q", tc.name, goProgram, v.Figure, v.Outcome, v.Reason)
				}
			}
		}
	}
}

// LabChange compares only identities that both sides have: a result of
// schema version 1 has none, and says nothing of its lab.
func TestLabChangeNeedsIdentities(t *testing.T) {
	id := &result.Identity{BinarySHA256: "b", RunSHA256: "r", LabSHA256: labA}
	if got := LabChange(Side{}, Side{Identity: id}); got != "" {
		t.Errorf("a base without an identity: %q, want no lab change", got)
	}
	other := *id
	if got := LabChange(Side{Identity: id}, Side{Identity: &other}); got != "" {
		t.Errorf("the same lab: %q", got)
	}
	other.LabSHA256 = labB
	if got := LabChange(Side{Identity: id}, Side{Identity: &other}); !strings.HasPrefix(got, AnotherLab) {
		t.Errorf("another lab: %q, want it to start with %q", got, AnotherLab)
	}
}
