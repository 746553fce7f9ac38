package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// maxResultsPerCommit bounds what one side of a comparison reads: a night
// of the whole suite is a few dozen results.
const maxResultsPerCommit = 2000

// A side is the results of one commit, by benchmark and workload: the
// newest of each when the commit was measured more than once.
type side struct {
	Commit  string // as the results have it
	Results map[benchKey]history.Stored
}

type benchKey struct{ Benchmark, Workload string }

// loadSide reads the results of the commit (a commit's name or a prefix of
// one) from the history; a prefix of two commits' names is refused,
// naming them.
func (s *Server) loadSide(ctx context.Context, name, commit string) (side, int, error) {
	// The history refuses any other name too; this is the page's own
	// check of its parameter, to answer 400 rather than fail.
	if commit == "" || strings.ContainsFunc(commit, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}) {
		return side{}, http.StatusBadRequest, fmt.Errorf("%s=%q: want a commit (its name or a prefix of it: letters and digits)", name, commit)
	}
	stored, err := s.db.Results(ctx, history.ResultQuery{Commit: commit}, maxResultsPerCommit)
	if err != nil {
		return side{}, http.StatusInternalServerError, err
	}
	sd := side{Results: map[benchKey]history.Stored{}}
	var commits []string
	for _, st := range stored {
		c := st.Result.Environment.Source.Commit
		if !slices.Contains(commits, c) {
			commits = append(commits, c)
		}
		// Oldest first: the newest of a benchmark stays.
		sd.Results[benchKey{st.Result.Benchmark.Name, st.Result.Benchmark.Workload.Name}] = st
	}
	switch len(commits) {
	case 0:
		return side{}, http.StatusNotFound, fmt.Errorf("%s=%s: the history has no result of such a commit", name, commit)
	case 1:
		sd.Commit = commits[0]
		return sd, 0, nil
	}
	return side{}, http.StatusBadRequest, fmt.Errorf("%s=%s names more than one commit (%s): give more of it", name, commit, strings.Join(commits, ", "))
}

// A row is one figure of one benchmark at both commits, with the one
// comparison's verdict on it; or a benchmark only one commit has.
type row struct {
	Benchmark, Workload, Study string
	Figure, Unit               string
	// Old and New are the medians at A and B; Change the relative change.
	Old, New, Change string
	change           float64
	Outcome          verdict.Outcome
	verdict          verdict.Verdict
	// Label is the verdict in a word (verdict.Label), Evidence what it
	// rests on; Note anything else to know of the row.
	Label, Evidence, Note string
	// NotRemeasured: both results measured the same binary and run (their
	// identity): the row is the noise floor, not a change.
	NotRemeasured bool
	Changed       bool
	Series        string // the series page of the figure at B
}

// rowsOf compares the two sides, benchmark by benchmark, with the lab's
// policy (verdict.Lab.Compare): the dashboard pairs nothing itself.
func rowsOf(a, b side) []row {
	keys := slices.Collect(func(yield func(benchKey) bool) {
		for k := range a.Results {
			if !yield(k) {
				return
			}
		}
		for k := range b.Results {
			if _, ok := a.Results[k]; !ok && !yield(k) {
				return
			}
		}
	})
	slices.SortFunc(keys, func(x, y benchKey) int {
		return cmp.Or(cmp.Compare(x.Benchmark, y.Benchmark), cmp.Compare(x.Workload, y.Workload))
	})
	var rows []row
	for _, k := range keys {
		old, inA := a.Results[k]
		now, inB := b.Results[k]
		base := row{Benchmark: k.Benchmark, Workload: k.Workload}
		switch {
		case !inB:
			base.Study, base.Label, base.Changed = old.Result.Benchmark.Study, "only at A", true
			base.Note = "B has no result of it"
			rows = append(rows, base)
			continue
		case !inA:
			base.Study, base.Label, base.Changed = now.Result.Benchmark.Study, "only at B", true
			base.Note = "A has no result of it"
			rows = append(rows, base)
			continue
		}
		base.Study = now.Result.Benchmark.Study
		oldSide, err := sideOf(old)
		if err == nil {
			var newSide verdict.Side
			if newSide, err = sideOf(now); err == nil {
				same := oldSide.Identity != nil && newSide.Identity != nil && *oldSide.Identity == *newSide.Identity
				for _, v := range verdict.Lab.Compare(oldSide, newSide) {
					r := base
					r.Figure, r.Unit, r.Outcome, r.verdict = v.Figure, v.Unit, v.Outcome, v
					r.Old, r.New = verdict.Number(v.Old.Median), verdict.Number(v.New.Median)
					if v.Outcome != verdict.Missing && v.Outcome != verdict.NotComparable {
						r.Change, r.change = v.ChangeText(2), float64(v.Change)
					}
					r.Label, r.Evidence, r.Note = v.Label(), v.Evidence(), v.Warning
					r.NotRemeasured = same || old.SHA256 == now.SHA256
					r.Changed = v.Outcome != verdict.Unchanged && v.Outcome != verdict.NotComparable
					r.Series = link("/series", query("benchmark", k.Benchmark, "figure", v.Figure, "unit", v.Unit,
						"workload", k.Workload, "env", result.EnvironmentKey(now.Result.Environment)))
					rows = append(rows, r)
				}
				continue
			}
		}
		base.Label, base.Note, base.Changed = "unreadable", err.Error(), true
		rows = append(rows, base)
	}
	return rows
}

// sideOf is a stored result as one side of the comparison: its figures
// (result.Figures, which read a Go benchmark's lines from its files where
// they were ingested from), sweeps, identity and environment.
func sideOf(st history.Stored) (verdict.Side, error) {
	r := st.Result
	figures, err := result.Figures(r, st.Outputs())
	if err != nil {
		return verdict.Side{}, err
	}
	return verdict.Side{Figures: figures, Sweeps: r.Sweeps, Identity: r.Identity, Environment: &r.Environment, Source: st.Source}, nil
}

// The columns the compare table sorts by, each with its order.
var sortings = map[string]func(x, y row) int{
	"benchmark": func(x, y row) int {
		return cmp.Or(cmp.Compare(x.Benchmark, y.Benchmark), cmp.Compare(x.Workload, y.Workload))
	},
	"figure": func(x, y row) int { return cmp.Compare(x.Figure, y.Figure) },
	"change": func(x, y row) int { return cmp.Compare(x.change, y.change) },
	// What fails a gate first (verdict.Fails), then what changed, then
	// the rest; in words within each.
	"outcome": func(x, y row) int {
		return cmp.Or(cmp.Compare(x.severity(), y.severity()), cmp.Compare(x.Label, y.Label))
	},
}

func (r row) severity() int {
	switch {
	case r.Figure != "" && r.verdict.Fails():
		return 0
	case r.Changed:
		return 1
	}
	return 2
}

type column struct {
	Name, Title, Link, Arrow string
}

type comparePage struct {
	Nav              string
	A, B             string // as asked
	CommitA, CommitB string // as the results have them
	OnlyChanged      bool
	Sort             string
	Columns          []column
	Rows             []row
	Total, Changed   int
	Message          string
}

// compare serves the comparison of two commits: every benchmark and
// figure of either, judged by the lab's one comparison, in a table sorted
// by the column the URL names, all rows or only the changed ones.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	p := comparePage{Nav: "compare", A: param(r, "a"), B: param(r, "b"), OnlyChanged: param(r, "changed") == "1", Sort: param(r, "sort")}
	if p.A == "" && p.B == "" {
		s.render(w, http.StatusOK, "compare", p)
		return
	}
	by, desc := strings.CutPrefix(p.Sort, "-")
	order, ok := sortings[by]
	if p.Sort != "" && !ok {
		p.Message = fmt.Sprintf("sort=%s: want one of benchmark, figure, change, outcome (- before it: descending)", p.Sort)
		s.render(w, http.StatusBadRequest, "compare", p)
		return
	}
	a, status, err := s.loadSide(r.Context(), "a", p.A)
	if err == nil {
		var b side
		if b, status, err = s.loadSide(r.Context(), "b", p.B); err == nil {
			p.CommitA, p.CommitB = a.Commit, b.Commit
			all := rowsOf(a, b)
			if ok {
				slices.SortStableFunc(all, order)
				if desc {
					slices.Reverse(all)
				}
			}
			for _, row := range all {
				if row.Changed {
					p.Changed++
				}
				if row.Changed || !p.OnlyChanged {
					p.Rows = append(p.Rows, row)
				}
			}
			p.Total = len(all)
		}
	}
	if err != nil {
		if status >= 500 {
			s.logf("%v", err)
			p.Message = "the history could not be read; the server's log says why"
		} else {
			p.Message = err.Error()
		}
		s.render(w, status, "compare", p)
		return
	}
	for _, c := range []struct{ name, title string }{{"benchmark", "Benchmark"}, {"figure", "Figure"}, {"change", "Change"}, {"outcome", "Verdict"}} {
		col := column{Name: c.name, Title: c.title}
		next := c.name
		if by == c.name && !desc {
			next, col.Arrow = "-"+c.name, "▲"
		} else if by == c.name {
			col.Arrow = "▼"
		}
		col.Link = link("/compare", p.query(next))
		p.Columns = append(p.Columns, col)
	}
	s.render(w, http.StatusOK, "compare", p)
}

// query is the page's URL parameters, sorted by sort.
func (p comparePage) query(sort string) url.Values {
	q := query("a", p.A, "b", p.B, "sort", sort)
	if p.OnlyChanged {
		q.Set("changed", "1")
	}
	return q
}

// ShortA and ShortB are the commits as people quote them.
func (p comparePage) ShortA() string { return gitwork.Short(p.CommitA) }
func (p comparePage) ShortB() string { return gitwork.Short(p.CommitB) }
