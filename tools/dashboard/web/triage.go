package web

import (
	"errors"
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
		SignIn: link("/signin", query("next", r.URL.RequestURI()))}
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
	act, err := alert.ParseAction(r.PathValue("action"))
	if err != nil {
		s.refuse(w, r, http.StatusNotFound, err.Error())
		return
	}
	seen := -1
	if text := r.PostFormValue("seen"); text != "" {
		if seen, err = strconv.Atoi(text); err != nil || seen < 0 {
			s.refuse(w, r, http.StatusBadRequest, "seen="+strconv.Quote(text)+": want the number of changes the page showed")
			return
		}
	}
	ask := alert.Ask{Action: act, Note: strings.TrimSpace(r.PostFormValue("note")), Issue: strings.TrimSpace(r.PostFormValue("issue")),
		Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	c, err := ask.Change(alert.Form, v.User, time.Now().UTC())
	if err != nil {
		s.refuse(w, r, http.StatusBadRequest, err.Error()+"; nothing was changed")
		return
	}
	a, err := s.db.ChangeAlertSeen(r.Context(), id, seen, c)
	switch {
	case errors.Is(err, history.ErrNoAlert):
		s.refuse(w, r, http.StatusNotFound, "no alert "+strconv.FormatInt(id, 10)+" in the history")
		return
	case errors.Is(err, history.ErrAlertChanged), errors.Is(err, alert.ErrState):
		s.refuse(w, r, http.StatusConflict, err.Error()+"; nothing was changed (reload the alert's page)")
		return
	case errors.Is(err, alert.ErrReason), errors.Is(err, alert.ErrIssue):
		s.refuse(w, r, http.StatusBadRequest, err.Error()+"; nothing was changed")
		return
	case err != nil:
		s.logf("alert %d: %s by %s: %v", id, act, v.User, err)
		s.refuse(w, r, http.StatusInternalServerError, "the history could not be changed; the server's log says why")
		return
	}
	s.logf("alert %d is %s, by %s", a.ID, a.State(), v.User)
	if api(r) {
		writeJSON(w, http.StatusOK, a)
		return
	}
	http.Redirect(w, r, "/alerts/"+strconv.FormatInt(a.ID, 10), http.StatusSeeOther)
}
