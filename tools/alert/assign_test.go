package alert

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// An alert keeps the report and profile diffs of the night that opened
// it, where the change came in, when later nights find it again; a night
// gives its report to an alert that has none.
func TestReconcileKeepsTheFirstReport(t *testing.T) {
	first := regression(1)
	first.Report, first.ProfileDiffs = "nights/1/report/index.html", []string{"nights/1/report/cpu-diff.svg"}
	a := Reconcile(nil, []Finding{first}, nightN(1), nil)[0]
	a.ID = 1
	again := regression(2)
	again.Report, again.ProfileDiffs = "nights/2/report/index.html", []string{"nights/2/report/cpu-diff.svg"}
	got := Reconcile([]Alert{a}, []Finding{again}, nightN(2), nil)
	if len(got) != 1 || got[0].Report != first.Report || !slices.Equal(got[0].ProfileDiffs, first.ProfileDiffs) ||
		!got[0].LastFound.Equal(nightN(2).Time) {
		t.Errorf("found again on night 2: %+v; want night 1's report and diffs, last found on night 2", got)
	}
	bare := Reconcile(nil, []Finding{regression(1)}, nightN(1), nil)[0]
	bare.ID = 2
	if got := Reconcile([]Alert{bare}, []Finding{again}, nightN(2), nil); got[0].Report != again.Report {
		t.Errorf("an alert without a report, found again with one: report %q, want %q", got[0].Report, again.Report)
	}
}

// An assignment is a change in the alert's record, by whom and when, that
// keeps its state; changes of state keep the assignee, the nightly job's
// too; assigning to whom it is assigned already, or to a name that is no
// printable text, is refused.
func TestAssign(t *testing.T) {
	a := Reconcile(nil, []Finding{regression(1)}, nightN(1), nil)[0]
	a.ID = 3
	at := night0.AddDate(0, 0, 1).Add(time.Hour)
	got, err := AssignTo(a, " ann ", "bob", at)
	if err != nil || got.Assignee() != "ann" || got.State() != New || len(got.Changes) != 2 || !got.Assigned(1) ||
		got.Assigned(0) || got.Changes[1].By != "bob" || !got.Changes[1].At.Equal(at) || got.Current().By != "nightly" || len(a.Changes) != 1 {
		t.Fatalf("assigned: %+v, %v; want new, assigned to ann by bob, the original untouched", got, err)
	}
	// Someone who saw it before the assignment is told of it.
	if _, err := Move(3, 1, Change{State: Acknowledged, By: "carol", At: at, Note: "x"})([]Alert{got}); !errors.Is(err, ErrChanged) ||
		!strings.Contains(err.Error(), "it is new, assigned to ann now (by bob") {
		t.Errorf("a move on a view from before the assignment: %v", err)
	}
	got, err = Transition(got, Change{State: Acknowledged, By: "ann", At: at, Note: "looking", Assignee: "mallory"})
	if err != nil || got.Assignee() != "ann" || got.Assigned(2) {
		t.Fatalf("acknowledged: %+v, %v; want still assigned to ann", got, err)
	}
	fixed := Reconcile([]Alert{got}, nil, nightN(3), func(Alert) string { return "the series came back" })
	if len(fixed) != 1 || fixed[0].State() != Fixed || fixed[0].Assignee() != "ann" {
		t.Errorf("fixed by the night: %+v; want still assigned to ann", fixed)
	}
	for _, name := range []string{"ann", "a\nb", "a\x00", string(make([]byte, MaxAssignee+1))} {
		if _, err := AssignTo(got, name, "bob", at); !errors.Is(err, ErrAssignee) {
			t.Errorf("assigning to %q: %v, want ErrAssignee", name, err)
		}
	}
	if _, err := AssignTo(got, "carol", "", at); err == nil {
		t.Errorf("an assignment by nobody was made")
	}
	none, err := AssignTo(got, "", "ann", at)
	if err != nil || none.Assignee() != "" || !none.Assigned(len(none.Changes)-1) {
		t.Errorf("unassigned: %+v, %v", none, err)
	}
	if _, err := AssignTo(none, "", "ann", at); !errors.Is(err, ErrAssignee) {
		t.Errorf("unassigning an alert of nobody: %v, want ErrAssignee", err)
	}
	if _, err := ParseAction(string(AssignAction)); err == nil || slices.Contains(Actions, AssignAction) {
		t.Errorf("assign is among the moves of state")
	}
}

// A Batch is its updates one after the other on what those before left:
// every alert changed once, as last left; one refused, none is.
func TestBatch(t *testing.T) {
	var all []Alert
	for i := range 3 {
		a := Reconcile(nil, []Finding{regression(1)}, nightN(1), nil)[0]
		a.ID = int64(i + 1)
		all = append(all, a)
	}
	at := night0.AddDate(0, 0, 2)
	ack := Change{State: Acknowledged, By: "ann", At: at, Note: "known"}
	got, err := Batch(Move(1, 1, ack), Move(3, 1, ack), Assign(1, 2, "ann", "ann", at))(all)
	if err != nil || len(got) != 2 || got[0].ID != 1 || got[1].ID != 3 || got[0].State() != Acknowledged ||
		got[0].Assignee() != "ann" || len(got[0].Changes) != 3 || got[1].State() != Acknowledged {
		t.Fatalf("batch: %+v, %v; want alerts 1 (acknowledged, assigned) and 3 (acknowledged)", got, err)
	}
	if got, err := Batch(Move(1, 1, ack), Move(2, 1, Change{State: Accepted, By: "ann", At: at}))(all); !errors.Is(err, ErrReason) || got != nil {
		t.Errorf("a batch with a refused move: %+v, %v; want ErrReason and nothing", got, err)
	}
	if _, err := Batch(Move(1, 1, ack), Move(9, -1, ack))(all); !errors.Is(err, ErrNoAlert) {
		t.Errorf("a batch with an unknown alert: %v, want ErrNoAlert", err)
	}
	if len(all[0].Changes) != 1 {
		t.Errorf("a batch changed the alerts it was given: %+v", all[0])
	}
}
