package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
)

// An actionForm is one action's form on an alert's page, with the words
// it takes.
type actionForm struct {
	Action              alert.Action
	Label               string
	Note, Issue, Reason bool
	// NeedsText: the note (ack) or reason is required.
	NeedsText bool
}

type alertPage struct {
	Nav string
	alertRow
	// Seen is how many changes the page shows: an action refuses when the
	// alert has more by then (history.ChangeAlertSeen).
	Seen    int
	User    string
	CSRF    string
	Actions []actionForm
	SignIn  string // the sign-in page, back to this one
	// Points are the address of its series' points (the series page's
	// chart, drawn here by the series page's script), "" when it has no
	// one series; Compare the compare page of its range, "" without one.
	Points, Compare string
	// IssueTitle is the title of an issue about it, for the "file an
	// issue" link (Links.Issue).
	IssueTitle string
	// Changes are its record, each marked when it is an assignment.
	Changes []changeRow
}

// A changeRow is a change in an alert's record, as its page lists it.
type changeRow struct {
	alert.Change
	// Assigned: the change assigned the alert (to Assignee, "" nobody),
	// and did not move it.
	Assigned bool
}

// issueTitle names a for an issue: what, how big, and where it came in.
func issueTitle(a alert.Alert) string {
	title := string(a.Kind) + ": " + a.Series.String() + " " + a.ChangeText()
	if r := a.RangeText(); r != "" {
		title += ", " + r
	}
	return title
}

// alert serves an alert's page: what was found, where and on what
// evidence, the nights that found it, its record of states (who, when,
// why), and for a signed-in user the actions its state allows.
func (s *Server) alert(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		s.fail(w, "alerts", http.StatusNotFound, "alert "+strconv.Quote(r.PathValue("id"))+": want the number the alerts page shows")
		return
	}
	a, err := s.db.Alert(r.Context(), id)
	if errors.Is(err, history.ErrNoAlert) {
		s.fail(w, "alerts", http.StatusNotFound, "no alert "+strconv.FormatInt(id, 10)+" in the history")
		return
	}
	if err != nil {
		s.fail(w, "alerts", http.StatusInternalServerError, err.Error())
		return
	}
	v := viewerOf(r)
	p := alertPage{Nav: "alerts", alertRow: alertRowOf(a), Seen: len(a.Changes), User: v.User,
		SignIn: link("/signin", query("next", r.URL.RequestURI())), Compare: compareOf(a.Range), IssueTitle: issueTitle(a)}
	if p.alertRow.Series != "" {
		p.Points = link("/api/series", query("benchmark", a.Benchmark, "figure", a.Figure, "unit", a.Unit,
			"workload", a.Workload, "env", a.EnvKey))
	}
	for i, c := range a.Changes {
		p.Changes = append(p.Changes, changeRow{Change: c, Assigned: a.Assigned(i)})
	}
	if v.User != "" {
		p.CSRF = v.CSRF
		for _, act := range a.Actions() {
			rule := alert.ActionRule(act)
			p.Actions = append(p.Actions, actionForm{Action: act, Label: rule.ActionLabel,
				Note: rule.Words != alert.Reason, Issue: rule.Words == alert.NoteOrIssue,
				Reason: rule.Words == alert.Reason, NeedsText: rule.Words == alert.Reason})
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, http.StatusOK, "alert", p)
}

// triage makes a signed-in user's change of an alert's state through the
// history (ChangeAlertSeen: tools/alert's Transition, in one transaction),
// by them, now. A form is sent back to the alert's page; a script gets the
// alert as JSON.
func (s *Server) triage(w http.ResponseWriter, r *http.Request, v viewer) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		s.refuse(w, r, http.StatusNotFound, "alert "+strconv.Quote(r.PathValue("id"))+": want the number the alerts page shows")
		return
	}
	seen, err := seenOf(r, "seen")
	if err != nil {
		s.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	var a alert.Alert
	if r.PathValue("action") == string(alert.AssignAction) {
		a, err = s.db.AssignAlertSeen(r.Context(), id, seen, r.PostFormValue("assignee"), v.User, time.Now().UTC())
	} else {
		act, perr := alert.ParseAction(r.PathValue("action"))
		if perr != nil {
			s.refuse(w, r, http.StatusNotFound, perr.Error())
			return
		}
		c, cerr := askOf(r, act).Change(alert.Form, v.User, time.Now().UTC())
		if cerr != nil {
			s.refuse(w, r, http.StatusBadRequest, cerr.Error()+"; nothing was changed")
			return
		}
		a, err = s.db.ChangeAlertSeen(r.Context(), id, seen, c)
	}
	if err != nil {
		s.triageFailed(w, r, v, err, "alert "+strconv.FormatInt(id, 10))
		return
	}
	s.logf("alert %d is %s, assigned to %q, by %s", a.ID, a.State(), a.Assignee(), v.User)
	if api(r) {
		writeJSON(w, http.StatusOK, a)
		return
	}
	http.Redirect(w, r, "/alerts/"+strconv.FormatInt(a.ID, 10), http.StatusSeeOther)
}

// askOf is the Ask of a triage's form: act and the words it takes.
func askOf(r *http.Request, act alert.Action) alert.Ask {
	return alert.Ask{Action: act, Note: strings.TrimSpace(r.PostFormValue("note")), Issue: strings.TrimSpace(r.PostFormValue("issue")),
		Reason: strings.TrimSpace(r.PostFormValue("reason"))}
}

// seenOf reads the form's field name: how many changes of an alert its
// page showed; -1 (no check) when there is none.
func seenOf(r *http.Request, name string) (int, error) {
	text := r.PostFormValue(name)
	if text == "" {
		return -1, nil
	}
	seen, err := strconv.Atoi(text)
	if err != nil || seen < 0 {
		return 0, fmt.Errorf("%s=%s: want the number of changes the page showed", name, strconv.Quote(text))
	}
	return seen, nil
}

// triageFailed answers a change of what ("alert 7") that the history
// refused (err), or could not make.
func (s *Server) triageFailed(w http.ResponseWriter, r *http.Request, v viewer, err error, what string) {
	switch {
	case errors.Is(err, history.ErrNoAlert):
		s.refuse(w, r, http.StatusNotFound, "no "+what+" in the history; nothing was changed")
	case errors.Is(err, history.ErrAlertChanged), errors.Is(err, alert.ErrState):
		s.refuse(w, r, http.StatusConflict, err.Error()+"; nothing was changed (reload the alert's page)")
	case errors.Is(err, alert.ErrReason), errors.Is(err, alert.ErrIssue), errors.Is(err, alert.ErrAssignee):
		s.refuse(w, r, http.StatusBadRequest, err.Error()+"; nothing was changed")
	default:
		s.logf("%s: %s by %s: %v", what, r.PathValue("action"), v.User, err)
		s.refuse(w, r, http.StatusInternalServerError, "the history could not be changed; the server's log says why")
	}
}
