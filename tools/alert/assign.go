package alert

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// AssignAction is the action that assigns an alert to someone (or to
// nobody), as the dashboard names it. It is no move between states: it is
// not among Actions, and Rules has no row of it; the alert keeps its
// state, and its record of changes gets the assignment, by whom and when.
const AssignAction Action = "assign"

// MaxAssignee is the longest assignee Assign takes, in bytes.
const MaxAssignee = 200

// ErrAssignee is the error of an assignment that cannot be made: the
// message says why.
var ErrAssignee = errors.New("not an assignment")

// Assigned tells whether a's change i assigned it: it changed who the alert
// is assigned to, from the change before (nobody, before the first).
func (a Alert) Assigned(i int) bool {
	before := ""
	if i > 0 {
		before = a.Changes[i-1].Assignee
	}
	return a.Changes[i].Assignee != before
}

// AssignTo assigns a to assignee ("" for nobody), by by at at: a change
// in its record that keeps its state. An assignee is a name of at most
// MaxAssignee bytes of printable text; assigning a to whom it is assigned
// to already is an error (ErrAssignee), as is one by nobody or at no time.
func AssignTo(a Alert, assignee, by string, at time.Time) (Alert, error) {
	where := fmt.Sprintf("alert %d (%s %s, %s)", a.ID, a.Kind, a.Series, a.State())
	assignee = strings.TrimSpace(assignee)
	switch {
	case by == "" || at.IsZero():
		return a, fmt.Errorf("%s: an assignment needs who made it and when", where)
	case len(assignee) > MaxAssignee:
		return a, fmt.Errorf("%s: %w: an assignee of at most %d bytes", where, ErrAssignee, MaxAssignee)
	case !utf8.ValidString(assignee) || strings.ContainsFunc(assignee, unicode.IsControl):
		return a, fmt.Errorf("%s: %w: assignee %q: want a name, printable text", where, ErrAssignee, assignee)
	case assignee == a.Assignee() && assignee == "":
		return a, fmt.Errorf("%s: %w: it is assigned to nobody already", where, ErrAssignee)
	case assignee == a.Assignee():
		return a, fmt.Errorf("%s: %w: it is assigned to %s already", where, ErrAssignee, assignee)
	}
	a.Changes = append(slices.Clone(a.Changes), Change{State: a.State(), By: by, At: at, Assignee: assignee})
	return a, nil
}
