package summary

import (
	"bytes"
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// measuredBy is program(name, instructions, 2) of the binary binary, the
// same run, measured by the lab's version lab ("" for a result of schema
// version 2, which records none).
func measuredBy(name string, instructions float64, binary, lab string) Side {
	s := program(name, instructions, 2)
	s.Identity = &result.Identity{BinarySHA256: binary, RunSHA256: "run", LabSHA256: lab}
	return s
}

// Unchanged code measured by another version of the lab, its exact count
// moved 3% by the new tools: re-baselined by name, failing nothing, the
// way another environment is; the same version of the lab judges the
// same count's change as it always did (inconsistent).
func TestAnotherVersionOfTheLabRebaselines(t *testing.T) {
	labA, labB := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	base := []Side{measuredBy("havlak6cc", 1e9, "bin", labA), measuredBy("havlak7cc", 1e8, "bin7", "")}
	night := []Side{measuredBy("havlak6cc", 1.03e9, "bin", labB), measuredBy("havlak7cc", 1.03e8, "bin7", labB)}
	s, err := Compare("report", "base/", base, night, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"havlak6cc", "havlak7cc"} {
		b := find(t, s, name)
		if b.Fails() || b.Outcome != verdict.NotComparable || !b.EnvironmentChanged() || !b.LabChanged() || b.SameIdentity {
			t.Errorf("%s, measured by another lab: %+v, want not comparable, re-baselined", name, b)
		}
		if !strings.HasPrefix(b.Note, verdict.AnotherLab) || !strings.Contains(b.Note, "none of its figures was compared") {
			t.Errorf("%s: note %q", name, b.Note)
		}
		if b.Label() != "not compared: another version of the lab" {
			t.Errorf("%s: label %q", name, b.Label())
		}
	}
	if s.Status() != verdict.StatusNotComparable || len(s.Regressed()) != 0 {
		t.Errorf("status %d, regressed %v: want not comparable, nothing failing", s.Status(), s.Regressed())
	}
	var md bytes.Buffer
	s.WriteMarkdown(&md, Pair{})
	if !strings.Contains(md.String(), verdict.AnotherLab+" (the lab's version none recorded → b2b2b2b2b2b2): not compared, every figure restarts here: havlak7cc") {
		t.Errorf("the report does not say which benchmark another lab measured:\n%s", md.String())
	}

	// The same lab: the same binary's count moved is inconsistent, as before.
	night[0].Identity.LabSHA256 = labA
	b, err := CompareOne(base[0], night[0], Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	if b.Outcome != verdict.Inconsistent || b.LabChanged() || len(b.EnvironmentChanges) != 0 {
		t.Errorf("the same lab: %+v, want inconsistent", b)
	}
}

// The perf check measures both sides with the base's runner
// (OneEnvironment): a change whose side names another lab (its own
// xtime, say) is judged all the same, its regression failing.
func TestOneEnvironmentIsOneLab(t *testing.T) {
	base := measuredBy("havlak6cc", 1e9, "bin", strings.Repeat("a1", 32))
	change := measuredBy("havlak6cc", 1.05e9, "bin2", strings.Repeat("b2", 32))
	b, err := CompareOne(base, change, Counted(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Fails() || b.Outcome != verdict.Regressed || b.LabChanged() {
		t.Errorf("the perf check of a 5%% regression measured by one lab: %+v, want regressed", b)
	}
	if base.Identity.LabSHA256 == "" || change.Identity.LabSHA256 == "" {
		t.Error("the comparison cleared the callers' identities")
	}
}
