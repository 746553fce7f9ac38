package web

import (
	"context"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
	"strings"
	"time"
)

// A profileDiff is a regression's profile diff: pprof's UI of B's
// profile with A's as its base (Link, its flame graph), made when asked
// for from the two results' profiles in the archive; or why there is
// none (Why). Alerts are the alerts of B's night that keep the diffs the
// nightly job made.
type profileDiff struct {
	Kind, Link string
	Alerts     []profileAlert
	Why        string
}

type profileAlert struct {
	ID    int64
	Page  string
	Diffs []archivedFile
}

// An archivedFile is a file of the archive the history names: its path,
// and its address on the dashboard ("" when not in the archive's
// reports).
type archivedFile struct{ Path, Link string }

// profilesFor are the kinds of profile that show where a cost goes, best
// first: the time of a program is in its CPU profile, its allocations in
// its heap's (allocs: a server's), its waits for locks in its mutex
// profile (a server's, taken with -mutexprofilefraction).
var profilesFor = map[string][]string{
	result.CostTime:             {"cpu"},
	result.CostWork:             {"cpu"},
	result.CostLocality:         {"cpu"},
	result.CostWorkAndLocality:  {"cpu"},
	result.CostSystemCalls:      {"cpu"},
	result.CostContention:       {"mutex", "cpu"},
	result.CostMemoryManagement: {"allocs", "heap"},
	result.CostMemory:           {"heap", "allocs"},
}

// An alertLink is an alert of a row's figure: its page, and its state.
type alertLink struct {
	ID    int64
	Page  string
	State alert.State
}

// spans tells whether a's nights, from the first that found it to the
// last, include B's result of the row, or B's commit is the one that
// found it first or last.
func spans(a alert.Alert, b *history.Stored, commitB string) bool {
	if a.Range.To == commitB || a.LastFoundCommit == commitB {
		return true
	}
	if b == nil {
		return false
	}
	started, err := time.Parse(time.RFC3339, b.Result.Environment.Started)
	if err != nil {
		return false
	}
	night := day(started)
	return day(a.FirstFound) <= night && night <= day(a.LastFound)
}

// profilesOf links each row's figure to its alerts whose nights span B's
// result (spans), and fills in each regression's profile diff: a link to
// the diff of the profile its figure's cost calls for, when both results
// keep it in the archive; else why not. The alerts spanning B's night
// that name the regression's benchmark link to the diffs the nightly job
// kept.
func (s *Server) profilesOf(ctx context.Context, rows []row, b side) error {
	commitB := b.Commit
	alerts, err := s.db.Alerts(ctx)
	if err != nil {
		return err
	}
	for i := range rows {
		r := &rows[i]
		if r.Figure == "" {
			continue
		}
		for _, a := range alerts {
			if a.Benchmark == r.Benchmark && a.Workload == r.Workload && a.Figure == r.Figure && a.Unit == r.Unit && spans(a, r.b, commitB) {
				r.Alerts = append(r.Alerts, alertLink{ID: a.ID, Page: alertRowOf(a).Page, State: a.State()})
			}
		}
		if r.Outcome != verdict.Regressed {
			continue
		}
		d := &profileDiff{}
		d.Kind, d.Why = diffKind(r.Cost, r.a, r.b)
		if d.Why == "" {
			d.Link = profileLink(r.b.SHA256, r.a.SHA256, d.Kind, "flamegraph")
		}
		for _, a := range alerts {
			if a.Benchmark == r.Benchmark && a.Workload == r.Workload && len(a.ProfileDiffs) > 0 && spans(a, r.b, commitB) {
				pa := profileAlert{ID: a.ID, Page: alertRowOf(a).Page}
				for _, p := range a.ProfileDiffs {
					pa.Diffs = append(pa.Diffs, archivedFile{Path: p, Link: archivedLink(p)})
				}
				d.Alerts = append(d.Alerts, pa)
			}
		}
		r.Profiles = d
	}
	return nil
}

// diffKind is the kind of profile to diff for a figure of cost, the
// first of profilesFor[cost] that both results keep in the archive; or
// why there is none.
func diffKind(cost string, a, b *history.Stored) (string, string) {
	kinds := profilesFor[cost]
	if kinds == nil {
		kinds = profilesFor[result.CostTime]
	}
	for _, st := range []*history.Stored{a, b} {
		if st == nil {
			return "", "no profile diff: a side has no result"
		}
		if _, _, ok := archived(st.Source); !ok || !result.IsSHA256(st.SHA256) {
			return "", "no profile diff: " + st.Result.Environment.Source.Commit + "'s result was not ingested from the nightly " +
				"job's archive, where the dashboard reads profiles"
		}
	}
	for _, k := range kinds {
		if profileKind(k) && a.Result.Find(result.RoleProfile, k) != "" && b.Result.Find(result.RoleProfile, k) != "" {
			return k, ""
		}
	}
	return "", "no profile diff: a " + cost + " figure's is of a " + strings.Join(kinds, " or ") + " profile, and " +
		keptProfiles("A", a) + "; " + keptProfiles("B", b)
}

// keptProfiles says which profiles a side's result keeps.
func keptProfiles(name string, st *history.Stored) string {
	if st == nil {
		return name + " has no result"
	}
	var profiles []string
	for _, f := range st.Result.FilesWith(result.RoleProfile) {
		profiles = append(profiles, f.Profile+" ("+f.Name+")")
	}
	if len(profiles) == 0 {
		return name + "'s result keeps no profile"
	}
	return name + "'s result keeps " + strings.Join(profiles, ", ")
}
