package web

import (
	"net/http"
	"slices"
	"strconv"

	"havlak-lab/tools/alert"
)

// An alertRow is one alert as the list shows it.
type alertRow struct {
	alert.Alert
	// Change, Commits and Note are in words (alert.Finding's ChangeText
	// and RangeText; the current state's note or issue).
	Change, Commits, Note string
	Series                string // the series page of its figure, if it has one
	Page                  string // its own page
}

// alertRowOf is a's row in the list, and the head of its page.
func alertRowOf(a alert.Alert) alertRow {
	r := alertRow{Alert: a, Change: a.ChangeText(), Commits: a.RangeText(), Page: "/alerts/" + strconv.FormatInt(a.ID, 10)}
	c := a.Current()
	r.Note = c.Note
	if c.Issue != "" {
		r.Note = c.Issue + " " + c.Note
	}
	if a.Benchmark != "" && a.Figure != "" && a.EnvKey != "" {
		r.Series = link("/series", query("benchmark", a.Benchmark, "figure", a.Figure, "unit", a.Unit,
			"workload", a.Workload, "env", a.EnvKey))
	}
	return r
}

type alertsPage struct {
	Nav    string
	State  string // "" (open ones), "all", or a state
	States []option
	Alerts []alertRow
	Total  int
}

// alerts serves the list of alerts, newest first: the open ones, every
// one (state=all), or those of one state; each links to its page, where
// it is triaged (triage.go).
func (s *Server) alerts(w http.ResponseWriter, r *http.Request) {
	p := alertsPage{Nav: "alerts", State: param(r, "state")}
	var want alert.State
	switch p.State {
	case "", "all":
	default:
		var err error
		if want, err = alert.ParseState(p.State); err != nil {
			s.fail(w, "alerts", http.StatusBadRequest, "state="+err.Error())
			return
		}
	}
	p.States = []option{{Value: "", Label: "open", Selected: p.State == ""}, {Value: "all", Label: "all", Selected: p.State == "all"}}
	for _, st := range alert.States {
		p.States = append(p.States, option{Value: string(st), Label: alert.RuleOf(st).Label, Selected: st == want})
	}
	all, err := s.db.Alerts(r.Context())
	if err != nil {
		s.fail(w, "alerts", http.StatusInternalServerError, err.Error())
		return
	}
	p.Total = len(all)
	slices.Reverse(all)
	for _, a := range all {
		if want != "" && a.State() != want || p.State == "" && !a.State().Open() {
			continue
		}
		p.Alerts = append(p.Alerts, alertRowOf(a))
	}
	s.render(w, http.StatusOK, "alerts", p)
}
