package alert

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// An environment change's short text says what moved, as its evidence's
// list of what differs says (EnvironmentFinding, Finding.Moved): another
// version of the lab by name, another environment, or both; the evidence
// says which figures restart. An alert of a history, its evidence written
// before EnvironmentFinding was, reads the same.
func TestEnvironmentFindingSaysWhatMoved(t *testing.T) {
	lab := result.AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2)"
	goSDK := `toolchains.go: "go1.27.4" → "go1.28"`
	r := Range{From: "c0", To: "c1", FromTime: night0, ToTime: night0.AddDate(0, 0, 1)}
	for _, c := range []struct {
		name                 string
		changes, moved, also []string
		text, evidence       string
	}{
		{"the lab", []string{lab}, []string{"havlak6 (quick)"}, nil, result.AnotherLab,
			lab + "; not compared with the baseline, every figure restarts tonight: havlak6 (quick)"},
		{"the Go SDK", []string{goSDK}, []string{"havlak6 (quick)", "havlak7 (quick)"}, nil, "another environment than the baseline's",
			goSDK + "; not compared with the baseline, their timings restart tonight: havlak6 (quick), havlak7 (quick)"},
		{"both", []string{lab, goSDK}, []string{"havlak6 (quick)"}, nil,
			result.AnotherLab + "; another environment than the baseline's",
			lab + "; " + goSDK + "; not compared with the baseline, every figure restarts tonight: havlak6 (quick)"},
		{"the lab, compared as allowed", []string{lab}, nil, []string{"havlak6 (quick)"}, result.AnotherLab,
			lab + "; compared across it, as allowed: havlak6 (quick)"},
	} {
		f := EnvironmentFinding("e2", c.changes, c.moved, c.also, r)
		if f.Kind != EnvironmentChange || f.EnvKey != "e2" || f.Range != r || f.Evidence != c.evidence {
			t.Errorf("%s: %+v, want evidence %q", c.name, f, c.evidence)
		}
		if got := f.ChangeText(); got != c.text {
			t.Errorf("%s: ChangeText = %q, want %q", c.name, got, c.text)
		}
		if got := Reconcile(nil, []Finding{f}, nightN(1), nil); len(got) != 1 || got[0].ChangeText() != c.text {
			t.Errorf("%s: the alert: %+v, want it to say %q", c.name, got, c.text)
		}
	}
	if text := (Finding{Kind: Regression, Evidence: lab}).Moved(); text.Any() {
		t.Errorf("a regression's evidence read as a move: %+v", text)
	}
	old := Finding{Kind: EnvironmentChange, Evidence: lab + "; not compared with the baseline, every figure restarts tonight: a"}
	if !strings.HasPrefix(old.ChangeText(), result.AnotherLab) || old.Moved().Environment {
		t.Errorf("a stored alert of another lab: %q, %+v", old.ChangeText(), old.Moved())
	}
}
