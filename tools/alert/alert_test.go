package alert

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

var night0 = time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)

func nightN(n int) Night {
	return Night{Time: night0.AddDate(0, 0, n), Commit: "c" + string(rune('0'+n)), By: "nightly"}
}

var own = Series{Benchmark: "havlak6", Figure: "own_instructions", Unit: "instructions", Workload: "quick", EnvKey: "e1"}

func regression(n int) Finding {
	return Finding{Kind: Regression, Series: own, Size: 0.05, Before: 100, After: 105,
		Range: Range{From: "c0", To: "c1", FromTime: night0, ToTime: night0.AddDate(0, 0, 1)}}
}

// A regression found on night N and acknowledged is the same alert on
// night N+1, found again, and fails neither night after the
// acknowledgement; the night the series comes back fixes it.
func TestReconcileAcknowledged(t *testing.T) {
	got := Reconcile(nil, []Finding{regression(1)}, nightN(1), nil)
	if len(got) != 1 || got[0].State() != New || !Fails(got) || !HoldsBaseline(got) {
		t.Fatalf("night 1: %+v, want one new alert that fails the night", got)
	}
	a := got[0]
	a.ID = 7
	a, err := Transition(a, Change{State: Acknowledged, By: "ann", At: night0.AddDate(0, 0, 1).Add(time.Hour), Issue: "https://example.com/issues/123"})
	if err != nil {
		t.Fatal(err)
	}
	got = Reconcile([]Alert{a}, []Finding{regression(2)}, nightN(2), func(Alert) string { return "the series came back" })
	if len(got) != 1 || got[0].ID != 7 || got[0].State() != Acknowledged || Fails(got) || !HoldsBaseline(got) ||
		!got[0].LastFound.Equal(nightN(2).Time) {
		t.Fatalf("night 2: %+v, want alert 7 found again, acknowledged, not failing, holding the baseline", got)
	}
	a = got[0]
	// Night 3 does not find it, and looked: the series came back.
	got = Reconcile([]Alert{a}, nil, nightN(3), func(Alert) string { return "the series came back" })
	if len(got) != 1 || got[0].State() != Fixed || got[0].Current().By != "nightly" || !strings.Contains(got[0].Current().Note, "came back") {
		t.Fatalf("night 3: %+v, want alert 7 fixed by the nightly", got)
	}
	// Not looked at (the benchmark did not run): nothing changes.
	if got := Reconcile([]Alert{a}, nil, nightN(3), func(Alert) string { return "" }); len(got) != 0 {
		t.Errorf("an alert tonight did not look at changed: %+v", got)
	}
}

// A trailer's acceptance opens the alert accepted, and the series' level
// restarts where it came in.
func TestReconcileAccepted(t *testing.T) {
	f := regression(1)
	f.Accepted = "trades 5% instructions for half the memory"
	got := Reconcile(nil, []Finding{f}, nightN(1), nil)
	if len(got) != 1 || got[0].State() != Accepted || Fails(got) || HoldsBaseline(got) || got[0].Current().Note != f.Accepted {
		t.Fatalf("%+v, want an accepted alert that neither fails nor holds the baseline", got)
	}
	if at := ResetAt(got, own); !at.Equal(f.Range.ToTime) {
		t.Errorf("ResetAt = %v, want %v", at, f.Range.ToTime)
	}
	// A change point the history finds later inside the accepted range is
	// the same change: no new alert.
	cp := Finding{Kind: ChangePoint, Series: own, Range: Range{FromTime: night0, ToTime: night0.AddDate(0, 0, 1)}}
	if again := Reconcile(got, []Finding{cp}, nightN(3), nil); len(again) != 1 || again[0].State() != Accepted || Fails(again) {
		t.Errorf("the change point of an accepted change: %+v, want the accepted alert", again)
	}
}

// A change point of the history before alerts were kept opens none; one
// that an alert found before matches it, even fixed, even moved a commit.
func TestReconcileChangePoints(t *testing.T) {
	old := Finding{Kind: ChangePoint, Series: own, Known: true, Range: Range{FromTime: night0, ToTime: night0.AddDate(0, 0, 1)}}
	if got := Reconcile(nil, []Finding{old}, nightN(5), nil); len(got) != 0 {
		t.Errorf("a known change point opened %+v", got)
	}
	found := Reconcile(nil, []Finding{{Kind: ChangePoint, Series: own, Range: Range{FromTime: night0.AddDate(0, 0, 2), ToTime: night0.AddDate(0, 0, 3)}}}, nightN(3), nil)
	found[0].ID = 1
	fixed, err := Transition(found[0], Change{State: Fixed, By: "ann", At: nightN(4).Time})
	if err != nil {
		t.Fatal(err)
	}
	moved := Finding{Kind: ChangePoint, Series: own, Known: true, Range: Range{FromTime: night0.AddDate(0, 0, 1), ToTime: night0.AddDate(0, 0, 3)}}
	if got := Reconcile([]Alert{fixed}, []Finding{moved}, nightN(6), nil); len(got) != 1 || got[0].ID != 1 || got[0].State() != Fixed || Fails(got) {
		t.Errorf("a fixed change point found again: %+v, want alert 1, still fixed", got)
	}
}

func TestTransitionRefuses(t *testing.T) {
	a := Alert{ID: 3, Finding: Finding{Kind: Missing, Series: own}, Changes: []Change{{State: New}}}
	at := night0
	for _, c := range []struct {
		change Change
		want   string
		is     error
	}{
		{Change{State: "closed", By: "x", At: at}, `state "closed": want one of new, acknowledged, accepted, ignored, fixed`, nil},
		{Change{State: Acknowledged, By: "x", At: at}, "acknowledging takes a note or an issue link", ErrReason},
		{Change{State: Acknowledged, By: "x", At: at, Issue: "javascript:alert(1)"}, "want the issue's http(s) link", nil},
		{Change{State: Ignored, By: "x", At: at, Note: "  "}, "say why it is ignored", ErrReason},
		{Change{State: Accepted, By: "x", At: at, Note: "intended"}, "only a change of level", ErrState},
		{Change{State: New, By: "x", At: at}, "from new it may become acknowledged, accepted, ignored, fixed", ErrState},
		{Change{State: Fixed, At: at}, "needs who made it and when", nil},
	} {
		_, err := Transition(a, c.change)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "alert 3") ||
			c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("Transition(%+v): %v, want an error naming alert 3 and saying %q", c.change, err, c.want)
		}
	}
	missing := Reconcile(nil, []Finding{{Kind: Missing, Series: own}}, nightN(1), nil)
	missing[0].ID = 4
	acked, err := Transition(missing[0], Change{State: Acknowledged, By: "x", At: at, Note: "agent down"})
	if err != nil || !acked.Fails() {
		t.Errorf("an acknowledged missing result: %v, fails %v; want it to fail all the same (fail closed)", err, acked.Fails())
	}
}

func TestParse(t *testing.T) {
	if _, err := ParseKind("flaky"); err == nil || !strings.Contains(err.Error(), "regression, change_point, missing, stale") {
		t.Errorf("ParseKind: %v", err)
	}
	if s, err := ParseState("ignored"); err != nil || s != Ignored {
		t.Errorf("ParseState(ignored) = %v, %v", s, err)
	}
}

// What stopped reporting is named once, at its widest: a whole
// environment key, else a benchmark, else a figure; never a function's
// series.
func TestStale(t *testing.T) {
	var nights []time.Time
	for n := range 10 {
		nights = append(nights, night0.AddDate(0, 0, n).Add(time.Duration(n)*time.Minute))
	}
	last := nights[9]
	seen := []Seen{
		{Series{Benchmark: "havlak6", Figure: "own_instructions", Workload: "quick", EnvKey: "e1"}, last, false},
		{Series{Benchmark: "havlak6", Figure: "real_seconds", Workload: "quick", EnvKey: "e1"}, last, false},
		// A figure no longer recorded, since night 5.
		{Series{Benchmark: "havlak6", Figure: "alloc_bytes", Workload: "quick", EnvKey: "e1"}, nights[5], false},
		// A benchmark that stopped, after night 7 (2 silent nights: not yet).
		{Series{Benchmark: "havlak7", Figure: "own_instructions", Workload: "quick", EnvKey: "e1"}, nights[7], false},
		// One that stopped after night 6: 3 silent nights.
		{Series{Benchmark: "havlak8", Figure: "own_instructions", Workload: "quick", EnvKey: "e1"}, nights[6], false},
		{Series{Benchmark: "havlak8", Figure: "real_seconds", Workload: "quick", EnvKey: "e1"}, nights[5], false},
		// An environment key (the old Go SDK) last seen on night 4.
		{Series{Benchmark: "havlak6", Figure: "own_instructions", Workload: "quick", EnvKey: "e0"}, nights[4], false},
		{Series{Benchmark: "havlak7", Figure: "own_instructions", Workload: "quick", EnvKey: "e0"}, nights[2], false},
		// A function's series, out of havlak6's top functions since
		// night 1: never stale.
		{Series{Benchmark: "havlak6", Figure: "function main.gone", Workload: "quick", EnvKey: "e1"}, nights[1], true},
	}
	got := map[string]Finding{}
	for _, f := range FindStale(seen, nights, 3) {
		got[f.Series.String()] = f
	}
	want := map[string]string{
		"environment e0":              "2026-11-24",
		"havlak8 (quick)":             "2026-11-26",
		"havlak6 alloc_bytes (quick)": "2026-11-25",
	}
	if len(got) != len(want) {
		t.Errorf("stale: %v, want %v", got, want)
	}
	for name, lastDay := range want {
		f, ok := got[name]
		if !ok || f.Kind != Stale || day(f.LastPoint) != lastDay || !strings.Contains(f.Evidence, "last seen on the night of "+lastDay) {
			t.Errorf("%s: %+v, want stale, last seen %s", name, f, lastDay)
		}
	}
	if FindStale(seen, nights, 0) != nil {
		t.Errorf("stale after 0 nights found something")
	}
}

// An environment change is a finding for triage: it neither fails the
// night nor holds the baseline, no night fixes it (the nights after it
// compare in the new environment and do not see it), found again against a
// baseline that stayed it is the same alert, and people close it.
func TestEnvironmentChange(t *testing.T) {
	moved := Finding{Kind: EnvironmentChange, Series: Series{EnvKey: "e2"},
		Evidence: `toolchains.go: "go1.27.4" → "go1.28"; their timings restart: havlak6 (quick)`,
		Range:    Range{From: "c0", To: "c1", FromTime: night0, ToTime: night0.AddDate(0, 0, 1)}}
	got := Reconcile(nil, []Finding{moved}, nightN(1), nil)
	if len(got) != 1 || got[0].State() != New || Fails(got) || HoldsBaseline(got) {
		t.Fatalf("night 1: %+v, want one new alert that neither fails the night nor holds the baseline", got)
	}
	if text := got[0].ChangeText(); text != "another environment than the baseline's" {
		t.Errorf("ChangeText = %q", text)
	}
	a := got[0]
	a.ID = 5
	// Not found again, whatever cleared says: it stays open.
	everythingWell := func(Alert) string { return "all well" }
	if got := Reconcile([]Alert{a}, nil, nightN(2), everythingWell); len(got) != 0 {
		t.Errorf("night 2 changed the environment change: %+v, want it left open", got)
	}
	// Found again (the baseline stayed): the same alert.
	got = Reconcile([]Alert{a}, []Finding{moved}, nightN(2), everythingWell)
	if len(got) != 1 || got[0].ID != 5 || got[0].State() != New || !got[0].LastFound.Equal(nightN(2).Time) {
		t.Fatalf("night 2, found again: %+v, want alert 5 found again, new", got)
	}
	a = got[0]
	if _, err := Transition(a, Change{State: Accepted, By: "ann", At: nightN(2).Time, Note: "new agent"}); !errors.Is(err, ErrState) ||
		!strings.Contains(err.Error(), "an environment change is acknowledged") {
		t.Errorf("accepting an environment change: %v, want it refused", err)
	}
	a, err := Transition(a, Change{State: Acknowledged, By: "ann", At: nightN(2).Time, Note: "the perf agent moved to Go 1.28"})
	if err != nil || a.Fails() || a.HoldsBaseline() {
		t.Fatalf("acknowledged: %v, %+v", err, a)
	}
	a, err = Transition(a, Change{State: Fixed, By: "ann", At: nightN(3).Time, Note: "timings restarted"})
	if err != nil || a.State().Open() {
		t.Fatalf("fixed by hand: %v, %+v", err, a)
	}
	// Another change to the same environment later is a new alert.
	if got := Reconcile([]Alert{a}, []Finding{moved}, nightN(9), nil); len(got) != 1 || got[0].ID != 0 || got[0].State() != New {
		t.Errorf("a later change: %+v, want a new alert", got)
	}
	if k, err := ParseKind("environment_change"); err != nil || k != EnvironmentChange {
		t.Errorf("ParseKind(environment_change) = %v, %v", k, err)
	}
}

// An Ask's words are checked for its action, whoever asks (the command's
// flags, the dashboard's form), and the actions offered are the moves the
// state allows.
func TestAsk(t *testing.T) {
	at := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ask  Ask
		says string
	}{
		{Ask{Action: Ack}, "ack needs a note or an issue link"},
		{Ask{Action: Ack, Reason: "r"}, "ack takes a note, not a reason"},
		{Ask{Action: Ignore}, "ignore needs a reason: why it is ignored"},
		{Ask{Action: Accept, Reason: "r", Note: "n"}, "accept takes a reason, not a note"},
		{Ask{Action: Fix, Issue: "https://example.com/1"}, "fix: an issue link goes with ack"},
		{Ask{Action: "close"}, `action "close": want one of ack, accept, ignore, fix, reopen`},
		{Ask{Action: Fix, Note: strings.Repeat("x", MaxText+1)}, "at most 4096 bytes"},
	} {
		if _, err := c.ask.Change(Form, "ann", at); !errors.Is(err, ErrAsk) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v, want ErrAsk saying %q", c.ask, err, c.says)
		}
	}
	c, err := Ask{Action: Ignore, Reason: "a neighbour"}.Change(Flags, "ann", at)
	if err != nil || c != (Change{State: Ignored, By: "ann", At: at, Note: "a neighbour"}) {
		t.Errorf("ignore: %+v, %v", c, err)
	}
	a := Alert{Finding: Finding{Kind: Regression}}
	if got := a.Actions(); !slices.Equal(got, []Action{Ack, Accept, Ignore, Fix}) {
		t.Errorf("a new regression's actions: %v", got)
	}
	a.Kind = Stale
	if got := a.Actions(); slices.Contains(got, Accept) {
		t.Errorf("a stale alert may be accepted: %v", got)
	}
	a.Changes = []Change{{State: Fixed}}
	if got := a.Actions(); !slices.Equal(got, []Action{Reopen}) {
		t.Errorf("a fixed alert's actions: %v", got)
	}
}

// The rules table is what the commands, the pages and the night read:
// each state and each action once, the orders they are listed in, moves
// between known states only, a colour a page can use, and an Ask that
// Change lets through never refused for its words by Transition (the two
// checks are lookups of the same rule).
func TestRules(t *testing.T) {
	if !slices.Equal(States, []State{New, Acknowledged, Accepted, Ignored, Fixed}) ||
		!slices.Equal(Actions, []Action{Ack, Accept, Ignore, Fix, Reopen}) {
		t.Errorf("States %v, Actions %v: the orders the commands and pages list", States, Actions)
	}
	if ActionsUsage() != "ack|accept|ignore|fix|reopen" || Answers() != "ack|accept|ignore" {
		t.Errorf("ActionsUsage %q, Answers %q", ActionsUsage(), Answers())
	}
	seen := map[string]bool{}
	for _, r := range Rules {
		for _, name := range []string{"state " + string(r.State), "action " + string(r.Action)} {
			if seen[name] {
				t.Errorf("%s: in two rules", name)
			}
			seen[name] = true
		}
		if r.Label == "" || r.ActionLabel == "" || r.Doing == "" {
			t.Errorf("%s: a label, an action's label and its doing, please: %+v", r.State, r)
		}
		if len(r.Colour) < 4 || r.Colour[0] != '#' || strings.Trim(r.Colour[1:], "0123456789abcdef") != "" {
			t.Errorf("%s: colour %q: want a CSS #hex colour", r.State, r.Colour)
		}
		for _, to := range r.To {
			if RuleOf(to).State != to {
				t.Errorf("%s may become %q, no state", r.State, to)
			}
		}
		if r.Open != (r.State != Fixed) || r.Action.State() != r.State {
			t.Errorf("%s: open %v, its action %s leads to %s", r.State, r.Open, r.Action, r.Action.State())
		}
	}
	if (Rule{}).Open || RuleOf("closed").State != "" || ActionRule("close").State != "" {
		t.Errorf("an unknown state or action has a rule")
	}

	at := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	moves := 0
	for _, kind := range Kinds {
		for _, from := range States {
			a := Alert{ID: 9, Finding: Finding{Kind: kind, Series: own}, Changes: []Change{{State: from, By: "x", At: at}}}
			for _, act := range a.Actions() {
				for _, words := range []Ask{{}, {Note: "n"}, {Issue: "https://example.com/1"}, {Reason: "r"}, {Note: "n", Issue: "https://example.com/1"}} {
					words.Action = act
					c, err := words.Change(Flags, "ann", at)
					if err != nil {
						continue
					}
					if _, err := Transition(a, c); err != nil {
						t.Errorf("%s %s, %s with %+v: Change let it through, Transition refused: %v", from, kind, act, words, err)
					}
					moves++
				}
			}
		}
	}
	if moves < len(Kinds)*len(States) {
		t.Errorf("%d moves tried: the table allows more", moves)
	}
}
