package alert

import (
	"slices"
	"strings"
)

// Words are what a move into a state takes from the person who makes it.
type Words int

const (
	// NoteIfAny: a note, which may be left out.
	NoteIfAny Words = iota
	// NoteOrIssue: a note or an issue link, at least one.
	NoteOrIssue
	// Reason: a reason, required, and nothing else.
	Reason
)

// A Rule is everything the lab knows of one state of an alert and of the
// action that moves an alert into it. Rules is the one place a state or an
// action is added: Transition and Ask.Change look their checks up here;
// `history alerts` makes its usage, the dashboard its labels, colours and
// forms, and the nightly job its annotation's hint from it.
type Rule struct {
	State State
	// Label is the state as pages list it; Colour its colour there (CSS:
	// its markers on a chart and in their list).
	Label, Colour string
	// Open: the state still asks for work or tracks a change.
	Open bool
	// To are the states an alert in this state may become.
	To []State
	// Action is the action that moves an alert into the state, by the
	// name commands and pages give it; ActionLabel is its button, Doing
	// names it in messages ("acknowledging takes ...").
	Action      Action
	ActionLabel string
	Doing       string
	// Words are what the action takes.
	Words Words
	// LevelOnly: only a change of level (a regression, a change point)
	// may move into the state.
	LevelOnly bool
	// Answer: the action is one of the answers to a new alert that the
	// night's annotation offers (fixing is the night's own to see).
	Answer bool
}

// Rules are the states, in the order tables list them, each with the
// action into it.
var Rules = []Rule{
	{State: New, Label: "new", Colour: "#b00020", Open: true,
		To:     []State{Acknowledged, Accepted, Ignored, Fixed},
		Action: Reopen, ActionLabel: "Reopen", Doing: "reopening", Words: NoteIfAny},
	{State: Acknowledged, Label: "acknowledged", Colour: "#e67e22", Open: true,
		To:     []State{Acknowledged, Accepted, Ignored, Fixed, New},
		Action: Ack, ActionLabel: "Acknowledge", Doing: "acknowledging", Words: NoteOrIssue, Answer: true},
	{State: Accepted, Label: "accepted", Colour: "#1b7f2a", Open: true,
		To:     []State{New},
		Action: Accept, ActionLabel: "Accept", Doing: "accepting", Words: Reason, LevelOnly: true, Answer: true},
	{State: Ignored, Label: "ignored", Colour: "#888", Open: true,
		To:     []State{Acknowledged, Accepted, Fixed, New},
		Action: Ignore, ActionLabel: "Ignore", Doing: "ignoring", Words: Reason, Answer: true},
	{State: Fixed, Label: "fixed", Colour: "#2c7be5",
		To:     []State{New},
		Action: Fix, ActionLabel: "Fixed", Doing: "fixing", Words: NoteIfAny},
}

// States are every state, in the order tables list them.
var States = statesOf(Rules)

// Actions are every action, in the order commands and pages list them:
// the table's, but the one back to the first state (reopen) last, so that
// the ways forward come first.
var Actions = actionsOf(Rules)

func statesOf(rules []Rule) []State {
	var out []State
	for _, r := range rules {
		out = append(out, r.State)
	}
	return out
}

func actionsOf(rules []Rule) []Action {
	var out []Action
	for _, r := range rules[1:] {
		out = append(out, r.Action)
	}
	return append(out, rules[0].Action)
}

// RuleOf is the state's rule; an unknown state's is the zero Rule.
func RuleOf(s State) Rule {
	if i := slices.IndexFunc(Rules, func(r Rule) bool { return r.State == s }); i >= 0 {
		return Rules[i]
	}
	return Rule{}
}

// ActionRule is the rule of the state the action moves an alert into; an
// unknown action's is the zero Rule.
func ActionRule(a Action) Rule {
	if i := slices.IndexFunc(Rules, func(r Rule) bool { return r.Action == a }); i >= 0 {
		return Rules[i]
	}
	return Rule{}
}

// ActionsUsage lists the actions as a usage line gives a choice:
// "ack|accept|ignore|fix|reopen".
func ActionsUsage() string { return join(Actions, "|") }

// Answers are the actions the night offers for a new alert, as a usage
// line gives them: "ack|accept|ignore".
func Answers() string {
	var out []Action
	for _, act := range Actions {
		if ActionRule(act).Answer {
			out = append(out, act)
		}
	}
	return join(out, "|")
}

// Taking are the actions whose words are one of words, for a flag's help:
// "accept, ignore".
func Taking(words ...Words) string {
	var out []Action
	for _, act := range Actions {
		if slices.Contains(words, ActionRule(act).Words) {
			out = append(out, act)
		}
	}
	return join(out, ", ")
}

// Usage is what the action takes, as f spells it in a usage line:
// "(--note TEXT | --issue URL)", "--reason TEXT", "[--note TEXT]".
func (f Fields) Usage(a Action) string {
	switch ActionRule(a).Words {
	case NoteOrIssue:
		return "(" + f.Note + " | " + f.Issue + ")"
	case Reason:
		return f.Reason
	}
	return "[" + f.Note + "]"
}

// Colours are the states' colours by name, for a page's script.
func Colours() map[State]string {
	out := map[State]string{}
	for _, r := range Rules {
		out[r.State] = r.Colour
	}
	return out
}

// join lists states, kinds or actions for messages: "new, acknowledged".
func join[T ~string](values []T, sep string) string {
	var s []string
	for _, v := range values {
		s = append(s, string(v))
	}
	return strings.Join(s, sep)
}
