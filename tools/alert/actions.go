package alert

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// An Action is a change of state a person asks for, by the name that
// `history alerts` and the dashboard give it.
type Action string

// The actions; Rules (rules.go) says the state each moves an alert into
// and what it takes.
const (
	Ack    Action = "ack"    // acknowledged, with a note or an issue link
	Accept Action = "accept" // accepted, with a reason
	Ignore Action = "ignore" // ignored, with a reason
	Fix    Action = "fix"    // fixed, with a note if any
	Reopen Action = "reopen" // new again, with a note if any
)

// ParseAction reads an action, naming the valid ones when s is none.
func ParseAction(s string) (Action, error) {
	if a := Action(s); slices.Contains(Actions, a) {
		return a, nil
	}
	return "", fmt.Errorf("action %q: want one of %s", s, join(Actions, ", "))
}

// State is the state the action moves an alert into.
func (a Action) State() State { return ActionRule(a).State }

// Actions are what people may do with the alert in its state: the moves
// Transition allows, acceptance only for a change of level. Transition
// still checks, since the alert may have changed since it was shown.
func (a Alert) Actions() []Action {
	var out []Action
	for _, act := range Actions {
		to := ActionRule(act)
		if slices.Contains(RuleOf(a.State()).To, to.State) && (!to.LevelOnly || a.Kind.level()) {
			out = append(out, act)
		}
	}
	return out
}

// ErrAsk is the error of an Ask whose words do not fit its action; the
// message says which.
var ErrAsk = errors.New("not what the action takes")

// askError is an ErrAsk saying what is wrong, and only that.
type askError string

func (e askError) Error() string        { return string(e) }
func (e askError) Is(target error) bool { return target == ErrAsk }

// MaxText is the longest note, reason or issue link an Ask takes, in
// bytes.
const MaxText = 4096

// An Ask is what a person asks for: an action and the words that go with
// it, as typed (a command's flags, a page's form).
type Ask struct {
	Action Action
	// Note is what is known (ack, fix, reopen); Issue the issue that
	// tracks it (ack); Reason why it is intended (accept) or noise
	// (ignore).
	Note, Issue, Reason string
}

// Fields are how the asker's interface spells an Ask's words, for its
// messages.
type Fields struct{ Note, Issue, Reason string }

// Flags spell an Ask's words as `history alerts` takes them; Form as the
// dashboard's forms do.
var (
	Flags = Fields{Note: "--note TEXT", Issue: "--issue URL", Reason: "--reason TEXT"}
	Form  = Fields{Note: "a note", Issue: "an issue link", Reason: "a reason"}
)

// Change is the change of state q asks for, by whom and when, its words
// checked: each action takes its own and needs what its state needs
// (errors wrap ErrAsk, naming the words as f spells them). What the
// alert's state allows is Transition's to say.
func (q Ask) Change(f Fields, by string, at time.Time) (Change, error) {
	rule := ActionRule(q.Action)
	to := rule.State
	fail := func(format string, args ...any) (Change, error) {
		return Change{}, askError(fmt.Sprintf(format, args...))
	}
	switch {
	case to == "":
		return fail("action %q: want one of %s", q.Action, join(Actions, ", "))
	case rule.Words == Reason && q.Reason == "":
		return fail("%s needs %s: why it is %s", q.Action, f.Reason, to)
	case rule.Words != Reason && q.Reason != "":
		return fail("%s takes %s, not %s", q.Action, f.Note, f.Reason)
	case rule.Words == NoteOrIssue && q.Note == "" && q.Issue == "":
		return fail("%s needs %s or %s: what is known, or where it is tracked", q.Action, f.Note, f.Issue)
	case rule.Words != NoteOrIssue && q.Issue != "":
		return fail("%s: %s goes with %s", q.Action, f.Issue, Taking(NoteOrIssue))
	case rule.Words == Reason && q.Note != "":
		return fail("%s takes %s, not %s", q.Action, f.Reason, f.Note)
	case len(q.Note) > MaxText || len(q.Reason) > MaxText || len(q.Issue) > MaxText:
		return fail("%s: at most %d bytes of text", q.Action, MaxText)
	}
	text := q.Note
	if q.Reason != "" {
		text = q.Reason
	}
	return Change{State: to, By: by, At: at, Note: text, Issue: q.Issue}, nil
}
