package web

import (
	"context"
	"fmt"
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
	New                   bool   // the night the landing page shows found it first
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
	// Groups are Alerts by their commit range, in the order of their
	// newest alert: the alerts one change brought in are one group.
	Groups []alertGroup
	Total  int
	// None says why no alert is listed, when none is: the history has no
	// night yet, its nights found none, or none is in the state asked
	// for; never a bare count of nothing.
	None string
	// LastRun is the nightly job's newest run that kept a record, when
	// its gate searched no change points (no --otava), else nil: the page
	// says that its alerts are the gates' findings alone.
	LastRun *nightRun
	// User and CSRF are the signed-in user's, who may triage the alerts
	// in bulk (bulk.go); Bulk are the actions offered for that (their
	// Action and Label).
	User, CSRF string
	Bulk       []actionForm
}

// An alertGroup is the alerts of one commit range (none: From and To are
// "").
type alertGroup struct {
	From, To string
	Compare  string // the compare page of the range
	Alerts   []alertRow
}

// groupsOf groups rows by their commit range, each group where its first
// row is.
func groupsOf(rows []alertRow) []alertGroup {
	var groups []alertGroup
	for _, r := range rows {
		i := slices.IndexFunc(groups, func(g alertGroup) bool { return g.From == r.Range.From && g.To == r.Range.To })
		if i < 0 {
			groups = append(groups, alertGroup{From: r.Range.From, To: r.Range.To, Compare: compareOf(r.Range)})
			i = len(groups) - 1
		}
		groups[i].Alerts = append(groups[i].Alerts, r)
	}
	return groups
}

// compareOf is the compare page of a range's two ends, "" without both.
func compareOf(r alert.Range) string {
	if r.From == "" || r.To == "" {
		return ""
	}
	return link("/compare", query("a", r.From, "b", r.To))
}

// noAlerts says why p lists no alert: the history has no night, its
// nights found none, or none is open, or of the state asked for.
func (s *Server) noAlerts(ctx context.Context, p alertsPage) (string, error) {
	if p.Total > 0 {
		if p.State == "" {
			return fmt.Sprintf("No alert is open: the history's %d alerts are all fixed (state: all lists them).", p.Total), nil
		}
		return fmt.Sprintf("No alert is %s, of the history's %d.", p.State, p.Total), nil
	}
	_, nights, err := s.db.Seen(ctx)
	switch {
	case err != nil:
		return "", err
	case len(nights) == 0:
		return "No alert: the history holds no night yet. The nightly gate (docs/nightly.md) enters what each night " +
			"finds as alerts.", nil
	}
	return fmt.Sprintf("No alert: the nightly gate found none in the history's %d nights.", len(nights)), nil
}

// changePointsOff is the nightly job's newest run that kept a record,
// when it searched no change points; else nil.
func (s *Server) changePointsOff() *nightRun {
	runs, _ := s.archivedRuns()
	for _, run := range runs {
		if run.Recorded {
			if run.ChangePointsOff {
				return &run
			}
			return nil
		}
	}
	return nil
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
	p.Groups = groupsOf(p.Alerts)
	if len(p.Alerts) == 0 {
		if p.None, err = s.noAlerts(r.Context(), p); err != nil {
			s.fail(w, "alerts", http.StatusInternalServerError, err.Error())
			return
		}
	}
	p.LastRun = s.changePointsOff()
	if v := viewerOf(r); v.User != "" {
		p.User, p.CSRF = v.User, v.CSRF
		for _, act := range alert.Actions {
			p.Bulk = append(p.Bulk, actionForm{Action: act, Label: alert.ActionRule(act).ActionLabel})
		}
		p.Bulk = append(p.Bulk, actionForm{Action: alert.AssignAction, Label: "Assign"})
		w.Header().Set("Cache-Control", "no-store")
	}
	s.render(w, http.StatusOK, "alerts", p)
}
