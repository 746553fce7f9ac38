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
	if !strings.Contains(md.String(), "**The lab's version changed** since the baseline") || strings.Contains(md.String(), "nvironment") {
		t.Errorf("the report of another lab alone titles its list otherwise, or says environment:\n%s", md.String())
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

// Every reader words a benchmark not compared by what moved since the
// baseline (Benchmark.Moved): another version of the lab, another
// environment, or both; the note, the table's label and the tally
// (NotCompared) say it so.
func TestNotComparedSaysWhatMoved(t *testing.T) {
	labA, labB := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	one := &result.Environment{Machine: result.Machine{CPUModel: "one"}}
	another := &result.Environment{Machine: result.Machine{CPUModel: "another"}}
	side := func(name, lab string, env *result.Environment) Side {
		s := measuredBy(name, 1e9, "bin-"+name, lab)
		s.Environment = env
		return s
	}
	base := []Side{side("lab", labA, one), side("machine", labA, one), side("both", labA, one), side("same", labA, one)}
	night := []Side{side("lab", labB, one), side("machine", labA, another), side("both", labB, another), side("same", labA, one)}
	s, err := Compare("report", "base/", base, night, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, label string
		moved       result.Moved
		note        []string
		notNote     string
	}{
		{"lab", "not compared: another version of the lab", result.Moved{Lab: true},
			[]string{verdict.AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2): none of its figures was compared"}, "another environment"},
		{"machine", "not compared: another environment", result.Moved{Environment: true},
			[]string{`another environment than the baseline's (machine.cpu_model: "one" → "another"): only the figures it cannot change were compared`},
			"another version of the lab"},
		{"both", "not compared: another version of the lab and another environment", result.Moved{Lab: true, Environment: true},
			[]string{verdict.AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2): none of its figures was compared",
				`another environment than the baseline's (machine.cpu_model: "one" → "another") as well`}, "only the figures it cannot change"},
	} {
		b := find(t, s, c.name)
		if b.Moved() != c.moved || !b.EnvironmentChanged() || b.Fails() || b.LabChanged() != c.moved.Lab ||
			c.moved.Lab && b.Outcome != verdict.NotComparable {
			t.Errorf("%s: moved %+v, %+v; want %+v, not compared", c.name, b.Moved(), b, c.moved)
		}
		if b.Label() != c.label {
			t.Errorf("%s: label %q, want %q", c.name, b.Label(), c.label)
		}
		for _, want := range c.note {
			if !strings.Contains(b.Note, want) {
				t.Errorf("%s: note %q, want it to say %q", c.name, b.Note, want)
			}
		}
		if strings.Contains(b.Note, c.notNote) {
			t.Errorf("%s: note %q says %q", c.name, b.Note, c.notNote)
		}
	}
	if b := find(t, s, "same"); b.Moved().Any() || b.EnvironmentChanged() {
		t.Errorf("the same lab and machine: %+v, want nothing moved", b)
	}
	tally := NotCompared(s.Benchmarks)
	if want := (NotComparedTally{Lab: 2, LabAndEnvironment: 1, Environment: 1}); tally != want {
		t.Errorf("NotCompared = %+v, want %+v", tally, want)
	}
	want := "2 benchmarks measured by another version of the lab: re-baselined (1 also in another environment than the baseline's); " +
		"1 benchmark in another environment than the baseline's"
	if got := tally.String(); got != want {
		t.Errorf("the tally says %q, want %q", got, want)
	}
	var md strings.Builder
	s.WriteMarkdown(&md, Pair{})
	if !strings.Contains(md.String(), "**The lab's version and the environment changed** since the baseline") {
		t.Errorf("the report of both changes does not title its list so:\n%s", md.String())
	}
	if got := NotCompared(s.Benchmarks[:0]).String(); got != "" {
		t.Errorf("no benchmark not compared: %q, want nothing", got)
	}
}
