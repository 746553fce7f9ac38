package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"havlak-lab/tools/alert"
)

// maxBulk bounds the alerts one bulk triage changes.
const maxBulk = 500

// bulk makes a signed-in user's one action on several alerts (the id
// fields: the alerts page's checkboxes), each change the one a triage of
// that alert alone makes (Transition's rules, checked against seen-ID,
// the changes the page showed of it; or an assignment), all in one
// transaction (alert.Batch): when the history refuses one, none is made.
// The note or reason comes in text too (the page's one field), as the
// action takes it. A form is sent back to the alerts page; a script gets
// the changed alerts as JSON.
func (s *Server) bulk(w http.ResponseWriter, r *http.Request, v viewer) {
	act := alert.Action(r.PathValue("action"))
	if act != alert.AssignAction {
		if _, err := alert.ParseAction(string(act)); err != nil {
			s.refuse(w, r, http.StatusNotFound, err.Error()+" or "+string(alert.AssignAction))
			return
		}
	}
	if err := r.ParseForm(); err != nil {
		s.refuse(w, r, http.StatusBadRequest, "the form could not be read; nothing was changed")
		return
	}
	var ids []int64
	for _, text := range r.PostForm["id"] {
		id, err := strconv.ParseInt(text, 10, 64)
		if err != nil || id < 1 {
			s.refuse(w, r, http.StatusBadRequest, "id="+strconv.Quote(text)+": want the number the alerts page shows; nothing was changed")
			return
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	switch {
	case len(ids) == 0:
		s.refuse(w, r, http.StatusBadRequest, "no alert picked: tick the alerts to change; nothing was changed")
		return
	case len(ids) > maxBulk:
		s.refuse(w, r, http.StatusBadRequest, "more than "+strconv.Itoa(maxBulk)+" alerts at once; nothing was changed")
		return
	}
	at := time.Now().UTC()
	var c alert.Change
	assignee := strings.TrimSpace(r.PostFormValue("assignee"))
	if act != alert.AssignAction {
		if assignee != "" {
			s.refuse(w, r, http.StatusBadRequest, string(act)+" takes no assignee (assign does); nothing was changed")
			return
		}
		ask := askOf(r, act)
		if text := strings.TrimSpace(r.PostFormValue("text")); text != "" && ask.Note == "" && ask.Reason == "" {
			if alert.ActionRule(act).Words == alert.Reason {
				ask.Reason = text
			} else {
				ask.Note = text
			}
		}
		var err error
		if c, err = ask.Change(alert.Form, v.User, at); err != nil {
			s.refuse(w, r, http.StatusBadRequest, err.Error()+"; nothing was changed")
			return
		}
	}
	var updates []alert.Update
	var names []string
	for _, id := range ids {
		key := strconv.FormatInt(id, 10)
		seen, err := seenOf(r, "seen-"+key)
		if err != nil {
			s.refuse(w, r, http.StatusBadRequest, err.Error()+"; nothing was changed")
			return
		}
		if act == alert.AssignAction {
			updates = append(updates, alert.Assign(id, seen, assignee, v.User, at))
		} else {
			updates = append(updates, alert.Move(id, seen, c))
		}
		names = append(names, key)
	}
	what := "alert among " + strings.Join(names, ", ")
	changed, err := s.db.UpdateAlerts(r.Context(), alert.Batch(updates...))
	if err != nil {
		s.triageFailed(w, r, v, err, what)
		return
	}
	for _, a := range changed {
		s.logf("alert %d is %s, assigned to %q, by %s (in bulk)", a.ID, a.State(), a.Assignee(), v.User)
	}
	if api(r) {
		writeJSON(w, http.StatusOK, changed)
		return
	}
	back := "/alerts"
	if state := r.PostFormValue("state"); state != "" {
		back = link("/alerts", query("state", state))
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
