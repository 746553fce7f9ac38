package web

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// maxResultsPerCommit bounds what one side of a comparison reads: a night
// of the whole suite is a few dozen results.
const maxResultsPerCommit = 2000

// A side is the results of one commit, by benchmark and workload: the
// newest of each when the commit was measured more than once.
type side struct {
	Commit string // as the results have it
	Night  string // the date asked for, when a night was: 2026-11-20
	// Others are the other commits of the night's results, in the order
	// they were measured, when it has more than one (nightCommit).
	Others  []string
	Results map[benchKey]history.Stored
	// Recent has, by benchmark, its figures' medians and its sweeps in
	// the history's newest results of the identity and environment of its
	// result here (history.Recent): what calibrates a base's thresholds,
	// its growths' too.
	Recent map[benchKey]history.RecentResults
}

// loadRecent reads the recent results of the identity of each of sd's
// results (verdict.Lab.HistoryResults of them), for sd as a base.
func (s *Server) loadRecent(ctx context.Context, sd *side) error {
	sd.Recent = map[benchKey]history.RecentResults{}
	for k, st := range sd.Results {
		r := st.Result
		if r.Identity == nil {
			continue
		}
		recent, err := s.db.Recent(ctx, history.RecentQuery{Benchmark: k.Benchmark, Workload: k.Workload,
			EnvKey: result.EnvironmentKey(r.Environment), Identity: *r.Identity, N: verdict.Lab.HistoryResults})
		if err != nil {
			return err
		}
		sd.Recent[k] = recent
	}
	return nil
}

// nightOf reads a side's parameter as a night, its date (2026-11-20: the
// night whose results started that day, UTC), if it is one.
func nightOf(asked string) (time.Time, bool) {
	if len(asked) != len(time.DateOnly) {
		return time.Time{}, false
	}
	day, err := time.Parse(time.DateOnly, asked)
	return day, err == nil
}

type benchKey struct{ Benchmark, Workload string }

// loadSide reads the results of the commit (a commit's name or a prefix of
// one) or of the night (its date) from the history: of a night of
// several commits, those of the commit nightCommit picks. A prefix of two
// commits' names is refused, naming them.
func (s *Server) loadSide(ctx context.Context, name, commit string) (side, int, error) {
	q := history.ResultQuery{Commit: commit}
	sd := side{Results: map[benchKey]history.Stored{}}
	if day, ok := nightOf(commit); ok {
		q, sd.Night = history.ResultQuery{}.Night(day), commit
	} else if commit == "" || strings.ContainsFunc(commit, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}) {
		// The history refuses any other name too; this is the page's own
		// check of its parameter, to answer 400 rather than fail.
		return side{}, http.StatusBadRequest, fmt.Errorf("%s=%q: want a commit (its name or a prefix of it: letters and digits) or a night (its date, 2026-11-20)", name, commit)
	}
	stored, err := s.db.Results(ctx, q, maxResultsPerCommit)
	if err != nil {
		return side{}, http.StatusInternalServerError, err
	}
	commits := commitsOf(stored)
	switch {
	case len(commits) == 0 && sd.Night != "":
		return side{}, http.StatusNotFound, fmt.Errorf("%s=%s: the history has no result that started that day (UTC)", name, commit)
	case len(commits) == 0:
		return side{}, http.StatusNotFound, fmt.Errorf("%s=%s: the history has no result of such a commit", name, commit)
	case len(commits) > 1 && sd.Night == "":
		return side{}, http.StatusBadRequest, fmt.Errorf("%s=%s names more than one commit (%s): give more of it", name, commit, strings.Join(commits, ", "))
	}
	sd.Commit = nightCommit(stored)
	for _, st := range stored {
		if c := st.Result.Environment.Source.Commit; c != sd.Commit {
			if !slices.Contains(sd.Others, c) {
				sd.Others = append(sd.Others, c)
			}
			continue
		}
		// Oldest first: the newest of a benchmark stays.
		sd.Results[benchKey{st.Result.Benchmark.Name, st.Result.Benchmark.Workload.Name}] = st
	}
	return sd, 0, nil
}

// commitsOf are the commits of results, in the order they were measured.
func commitsOf(results []history.Stored) []string {
	var commits []string
	for _, st := range results {
		if c := st.Result.Environment.Source.Commit; !slices.Contains(commits, c) {
			commits = append(commits, c)
		}
	}
	return commits
}

// nightCommit is the commit that stands for a night whose results, oldest
// first, are of several commits (a personal history's runs by hand, a
// rerun): the one of the most results, of those the last measured. A
// night of the nightly job is its one commit of the whole suite; a run by
// hand that day, of fewer results, does not stand for it.
func nightCommit(results []history.Stored) string {
	count, last := map[string]int{}, map[string]int{}
	for i, st := range results {
		c := st.Result.Environment.Source.Commit
		count[c]++
		last[c] = i
	}
	return slices.MaxFunc(commitsOf(results), func(x, y string) int {
		return cmp.Or(cmp.Compare(count[x], count[y]), cmp.Compare(last[x], last[y]))
	})
}

// A row is one figure of one benchmark at both commits, with the one
// comparison's verdict on it; or a benchmark only one commit has.
type row struct {
	Benchmark, Workload, Study, Language string
	Figure, Unit                         string
	// Cost is the kind of cost the figure stands for (result.Costs), as
	// its producer declared it; Class how it is judged; Exact whether
	// both sides' figures are exact counts (result.Figure.Exact).
	Cost  string
	Class result.Class
	Exact bool
	// Old and New are the medians at A and B, "" at a side without runs
	// of the figure (missing at B, only at B); Change the relative change,
	// shown for a figure not judged too (not comparable) when it has one.
	Old, New, Change string
	change           float64
	// Moved is, for a figure not judged that moved, which way its
	// declaration calls the move (verdict.Verdict.Worsening): "worse" or
	// "better".
	Moved   string
	Outcome verdict.Outcome
	// verdict is a figure's (none for a whole benchmark's row); severity,
	// every row's, orders the table (summary.Worse).
	verdict  verdict.Verdict
	severity summary.Severity
	// Label is the verdict in a word (verdict.Label), Evidence what it
	// rests on; Note anything else to know of the row.
	Label, Evidence, Note string
	// NotRemeasured: both results measured the same binary and run (their
	// identity): the row is the noise floor, not a change.
	NotRemeasured bool
	Changed       bool
	// Series is the series page of the figure at B, zoomed to the nights
	// around the two commits.
	Series string
	// Attribution is the page of where a counted figure's change went, by
	// function and line, when both results (two, not one) kept line counts.
	Attribution string
	// Alerts are the alerts of the figure whose nights span B's.
	Alerts []alertLink
	// Profiles is, for a regression, where its profile diff is or why
	// there is none (profilesOf).
	Profiles *profileDiff
	// a and b are the two results, nil for a side without one.
	a, b *history.Stored
}

// rowsOf compares the two sides by the lab's one comparison of benchmarks
// (summary.Compare), workload by workload, A's recent history calibrating
// its thresholds: the dashboard pairs nothing itself. A benchmark whose
// result at either side cannot be read is one row saying why.
func rowsOf(a, b side) []row {
	rows, _ := comparisonOf(a, b)
	return rows
}

// comparisonOf is rowsOf with the benchmarks as they were judged, for
// their tally (summary.TallyOf) and their outcome as a whole
// (summary.Outcome): a benchmark that is one row is one without figures.
func comparisonOf(a, b side) ([]row, []summary.Benchmark) {
	var workloads []string
	for _, results := range []map[benchKey]history.Stored{a.Results, b.Results} {
		for k := range results {
			if !slices.Contains(workloads, k.Workload) {
				workloads = append(workloads, k.Workload)
			}
		}
	}
	var rows []row
	var judged []summary.Benchmark
	for _, w := range workloads {
		r, j := workloadRows(a, b, w)
		rows, judged = append(rows, r...), append(judged, j...)
	}
	slices.SortStableFunc(rows, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.Benchmark, y.Benchmark), cmp.Compare(x.Workload, y.Workload))
	})
	return rows, judged
}

// workloadRows are the rows of the two sides' results of one workload,
// and the benchmarks as they were judged, one without figures for each
// benchmark that is one row.
func workloadRows(a, b side, workload string) ([]row, []summary.Benchmark) {
	unreadable := map[string]error{}
	byName := map[string][2]verdict.Side{}
	sidesOf := func(results map[benchKey]history.Stored, at int) []summary.Side {
		var sides []summary.Side
		for k, st := range results {
			if k.Workload != workload {
				continue
			}
			out := &lazyOutputs{st: st}
			side, err := summary.NewSide(st.Result, out, st.Source)
			out.Close()
			if err != nil && unreadable[k.Benchmark] == nil {
				unreadable[k.Benchmark] = err
			}
			sides = append(sides, side)
			both := byName[k.Benchmark]
			both[at] = side.Side
			byName[k.Benchmark] = both
		}
		return sides
	}
	before, after := sidesOf(a.Results, 0), sidesOf(b.Results, 1)
	recent := func(base summary.Side) (map[result.FigureKey][]float64, map[string][]result.Sweep, error) {
		r := a.Recent[benchKey{base.Benchmark.Name, workload}]
		return r.Medians, r.Sweeps, nil
	}
	s, err := summary.Compare("dashboard", a.Commit, before, after, summary.Options{Policy: verdict.Lab, Recent: recent})
	if err != nil {
		// Each side has one result a benchmark (loadSide): not reached.
		return []row{{Workload: workload, Label: "unreadable", Note: err.Error(), Changed: true, Outcome: verdict.Missing,
			verdict: verdict.Verdict{Outcome: verdict.Missing}, severity: summary.Severity{Outcome: verdict.Missing}}}, []summary.Benchmark{{Outcome: verdict.Missing}}
	}
	var rows []row
	var benchmarks []summary.Benchmark
	for _, judged := range s.Benchmarks {
		// A benchmark of one row (one side lacks it, or cannot be read)
		// has its own outcome: missing, or not compared.
		whole := summary.Benchmark{Name: judged.Name, Outcome: judged.Outcome}
		k := benchKey{judged.Name, workload}
		base := row{Benchmark: k.Benchmark, Workload: k.Workload, Study: judged.Study, Language: judged.Language}
		old, inA := a.Results[k]
		now, inB := b.Results[k]
		if inA {
			base.a = &old
		}
		if inB {
			base.b = &now
		}
		// A benchmark of one row is ordered among figures as one row.
		base.Outcome, base.severity = judged.Outcome, judged.Severity()
		switch {
		case !inB:
			base.Study, base.Language = old.Result.Benchmark.Study, old.Result.Benchmark.Language
			base.Label, base.Note, base.Changed = "only at A", "B has no result of it", true
		case !inA:
			base.Label, base.Note, base.Changed = "only at B", "A has no result of it", true
		case unreadable[k.Benchmark] != nil:
			base.Label, base.Note, base.Changed = "unreadable", unreadable[k.Benchmark].Error(), true
		}
		if base.Label != "" {
			rows, benchmarks = append(rows, base), append(benchmarks, whole)
			continue
		}
		// The figures only B has values of are rows too, and counted.
		judged.Figures = append(slices.Clone(judged.Figures), verdict.OnlyInChange(byName[k.Benchmark][0], byName[k.Benchmark][1])...)
		benchmarks = append(benchmarks, judged)
		from, to := around(old.Result, now.Result)
		for _, v := range judged.Figures {
			r := base
			r.Figure, r.Unit, r.Outcome, r.verdict, r.severity = v.Figure, v.Unit, v.Outcome, v, summary.SeverityOf(v)
			r.Cost, r.Class, r.Exact = v.Cost, v.Class, v.Exact
			// A side without runs of the figure has no value: blank, not 0.
			if v.Old.Runs > 0 {
				r.Old = numfmt.Number(v.Old.Median)
			}
			if v.New.Runs > 0 {
				r.New = numfmt.Number(v.New.Median)
			}
			if hasChange(v) {
				r.Change, r.change = v.ChangeText(2), float64(v.Change)
				if w := v.Worsening(); v.Outcome == verdict.NotComparable && w > 0 {
					r.Moved = "worse"
				} else if v.Outcome == verdict.NotComparable && w < 0 {
					r.Moved = "better"
				}
			}
			r.Label, r.Evidence, r.Note = v.Label(), v.Evidence(), v.Warning
			if r.Note == r.Evidence {
				// A figure of too few runs says why once.
				r.Note = ""
			}
			r.NotRemeasured = judged.SameIdentity || old.SHA256 == now.SHA256
			r.Changed = v.Outcome != verdict.Unchanged && v.Outcome != verdict.NotComparable
			r.Series = link("/series", query("benchmark", k.Benchmark, "figure", v.Figure, "unit", v.Unit,
				"workload", k.Workload, "env", result.EnvironmentKey(now.Result.Environment), "from", from, "to", to))
			if cachegrind.Explains(v.Figure) && old.SHA256 != now.SHA256 && old.Result.LineCounts != "" && now.Result.LineCounts != "" {
				r.Attribution = attributionLink(now.SHA256, old.SHA256, v.Figure)
			}
			rows = append(rows, r)
		}
	}
	return rows, benchmarks
}

// hasChange tells whether a verdict has a change to show: a judged
// figure's, or one not judged of runs at both sides.
func hasChange(v verdict.Verdict) bool {
	switch {
	case v.Outcome == verdict.Missing:
		return false
	case v.Growth != nil:
		return v.Outcome != verdict.NotComparable
	case v.Outcome == verdict.NotComparable && v.Change == 0 && v.Old.Median != v.New.Median:
		// Not judged before its change was taken (a run's value is NaN).
		return false
	}
	return v.Old.Runs > 0 && v.New.Runs > 0 && !math.IsNaN(float64(v.Change))
}

// seriesMargin is how far before and after its two results a row's
// series page shows its figure.
const seriesMargin = 14 * 24 * time.Hour

// around is the zoom of a row's series page (its from= and to=): the
// nights of the two results, seriesMargin either side.
func around(a, b *result.Result) (string, string) {
	var times []time.Time
	for _, r := range []*result.Result{a, b} {
		if t, err := time.Parse(time.RFC3339, r.Environment.Started); err == nil {
			times = append(times, t.UTC())
		}
	}
	if len(times) == 0 {
		return "", ""
	}
	from, to := slices.MinFunc(times, time.Time.Compare), slices.MaxFunc(times, time.Time.Compare)
	return from.Add(-seriesMargin).Format(time.RFC3339), to.Add(seriesMargin).Format(time.RFC3339)
}

// lazyOutputs are a stored result's files (history.Stored.Outputs),
// opened at the first read: a program's or a server's figures are all in
// its result.json, and the compare page then opens no outputs.zip.
type lazyOutputs struct {
	st  history.Stored
	out result.Outputs
}

func (l *lazyOutputs) open() result.Outputs {
	if l.out == nil {
		l.out = l.st.Outputs()
	}
	return l.out
}

func (l *lazyOutputs) ReadFile(name string) ([]byte, error)        { return l.open().ReadFile(name) }
func (l *lazyOutputs) OpenFile(name string) (io.ReadCloser, error) { return l.open().OpenFile(name) }
func (l *lazyOutputs) Path(name string) string                     { return l.open().Path(name) }

func (l *lazyOutputs) Close() error {
	if l.out == nil {
		return nil
	}
	return l.out.Close()
}

// The columns the compare table sorts by, each with its order.
var sortings = map[string]func(x, y row) int{
	"benchmark": func(x, y row) int {
		return cmp.Or(cmp.Compare(x.Benchmark, y.Benchmark), cmp.Compare(x.Workload, y.Workload))
	},
	"figure": func(x, y row) int { return cmp.Compare(x.Figure, y.Figure) },
	// By how much worse the figure got, in the direction its rule
	// declares worse (a throughput down, a count up): the most better
	// first; -change, the most worse first.
	"change": func(x, y row) int { return cmp.Compare(worseningOf(x), worseningOf(y)) },
	// The worst first (summary.Worse): by outcome, what fails a gate
	// first, then by how much worse. The default.
	"outcome": func(x, y row) int { return summary.Worse(x.severity, y.severity) },
}

// worseningOf is how much worse r's figure got (verdict.Worsening), 0
// for a row without a change.
func worseningOf(r row) float64 {
	if r.Change == "" {
		return 0
	}
	return r.verdict.Worsening()
}

// defaultSort is the compare table's order when the URL names none.
const defaultSort = "outcome"

type column struct {
	Name, Title, Link, Arrow string
}

// filters narrow the compare table's rows, each from the URL: the kind
// of cost a figure stands for (cost=locality), the study and the
// language of its benchmark, and exact counts only (exact=1).
type filters struct {
	OnlyChanged     bool
	Cost            string
	Study, Language string
	Exact           bool
	// Verdict keeps the rows of one outcome (verdict=regressed).
	Verdict verdict.Outcome
}

func filtersOf(r *http.Request) (filters, error) {
	f := filters{OnlyChanged: param(r, "changed") == "1", Cost: param(r, "cost"), Study: param(r, "study"),
		Language: param(r, "language"), Exact: param(r, "exact") == "1", Verdict: verdict.Outcome(param(r, "verdict"))}
	if f.Cost != "" && !slices.Contains(result.Costs, f.Cost) {
		return f, fmt.Errorf("cost=%s: want one of %s", f.Cost, strings.Join(result.Costs, ", "))
	}
	if f.Verdict != "" && !f.Verdict.Valid() {
		return f, fmt.Errorf("verdict=%s: want one of %s", clip(string(f.Verdict)), strings.Join(outcomeNames(), ", "))
	}
	return f, nil
}

// outcomeNames are the outcomes' names, worst first (verdict.Outcomes),
// for a message that lists them.
func outcomeNames() []string {
	var names []string
	for _, o := range verdict.Outcomes() {
		names = append(names, string(o))
	}
	return names
}

// keeps tells whether the table shows r. A row of a benchmark only one
// side has, or unreadable, has no figure: no cost and not exact.
func (f filters) keeps(r row) bool {
	return (r.Changed || !f.OnlyChanged) && (f.Cost == "" || r.Cost == f.Cost) && (f.Study == "" || r.Study == f.Study) &&
		(f.Language == "" || r.Language == f.Language) && (!f.Exact || r.Exact) && (f.Verdict == "" || r.Outcome == f.Verdict)
}

// choices are a filter's options: "" (any) and every value the rows
// have, the chosen one selected, and the chosen one even when no row has
// it (a link from elsewhere), so that the page says what it filters by.
func choices(rows []row, chosen string, field func(row) string) []option {
	values := []string{}
	for _, r := range rows {
		if v := field(r); v != "" && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	if chosen != "" && !slices.Contains(values, chosen) {
		values = append(values, chosen)
	}
	slices.Sort(values)
	opts := []option{{Value: "", Label: "any", Selected: chosen == ""}}
	for _, v := range values {
		opts = append(opts, option{Value: v, Label: v, Selected: v == chosen})
	}
	return opts
}

type comparePage struct {
	Nav              string
	A, B             string // as asked
	CommitA, CommitB string // as the results have them
	NightA, NightB   string // the dates asked for, when nights were
	// OthersA and OthersB are a night's other commits than the one that
	// stands for it (nightCommit), each a link to the page with it instead.
	OthersA, OthersB []otherCommit
	filters
	Sort                   string
	Costs, Studies, Langs  []option
	Verdicts               []option
	Columns                []column
	Rows                   []row
	Total, Changed, Hidden int
	// Counts are every row's verdicts counted (summary.TallyOf), each a
	// link to its rows; Means the geometric means of the cost ratios.
	Counts  []verdictCount
	Means   []costMean
	Recent  []option // the pickers' nights and commits, newest first
	Message string
}

// An otherCommit is a commit of a night that does not stand for it
// (nightCommit), and a page of it ("" for none).
type otherCommit struct{ Commit, Link string }

// A verdictCount is how many rows have an outcome, and the page of them.
type verdictCount struct {
	Outcome verdict.Outcome
	Label   string
	N       int
	Link    string
}

// A costMean is summary.Mean in words: "+1.20%" of Figures figures.
type costMean struct {
	Cost, Change string
	Figures      int
	Worse        bool
	Better       bool
}

// recentCommits is how many of the history's newest commits the pickers
// offer, beside their nights.
const recentCommits = 20

// compare serves the comparison of two commits or nights: every
// benchmark and figure of either, judged by the lab's one comparison, in
// a table sorted by the column the URL names, narrowed by the filters the
// URL names.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	f, ferr := filtersOf(r)
	p := comparePage{Nav: "compare", A: param(r, "a"), B: param(r, "b"), filters: f, Sort: param(r, "sort")}
	p.Costs = []option{{Value: "", Label: "any", Selected: f.Cost == ""}}
	for _, c := range result.Costs {
		p.Costs = append(p.Costs, option{Value: c, Label: c, Selected: c == f.Cost})
	}
	if ferr != nil {
		p.Message = ferr.Error()
		s.render(w, http.StatusBadRequest, "compare", p)
		return
	}
	recent, err := s.db.RecentCommits(r.Context(), recentCommits)
	if err != nil {
		s.fail(w, "compare", http.StatusInternalServerError, err.Error())
		return
	}
	p.Recent = recentOptions(recent)
	if p.A == "" && p.B == "" {
		s.render(w, http.StatusOK, "compare", p)
		return
	}
	by, desc := strings.CutPrefix(cmp.Or(p.Sort, defaultSort), "-")
	order, ok := sortings[by]
	if !ok {
		p.Message = fmt.Sprintf("sort=%s: want one of benchmark, figure, change, outcome (- before it: descending)", clip(p.Sort))
		s.render(w, http.StatusBadRequest, "compare", p)
		return
	}
	a, status, err := s.loadSide(r.Context(), "a", p.A)
	if err == nil {
		if err = s.loadRecent(r.Context(), &a); err != nil {
			status = http.StatusInternalServerError
		}
	}
	if err == nil {
		var b side
		if b, status, err = s.loadSide(r.Context(), "b", p.B); err == nil {
			p.CommitA, p.CommitB, p.NightA, p.NightB = a.Commit, b.Commit, a.Night, b.Night
			for _, c := range a.Others {
				other := p
				other.A = c
				p.OthersA = append(p.OthersA, otherCommit{Commit: c, Link: link("/compare", other.query(p.Sort))})
			}
			for _, c := range b.Others {
				other := p
				other.B = c
				p.OthersB = append(p.OthersB, otherCommit{Commit: c, Link: link("/compare", other.query(p.Sort))})
			}
			all, judged := comparisonOf(a, b)
			slices.SortStableFunc(all, order)
			if desc {
				slices.Reverse(all)
			}
			p.tally(summary.TallyOf(judged))
			for _, row := range all {
				if row.Changed {
					p.Changed++
				}
				if p.keeps(row) {
					p.Rows = append(p.Rows, row)
				}
			}
			p.Total, p.Hidden = len(all), len(all)-len(p.Rows)
			p.Studies = choices(all, f.Study, func(r row) string { return r.Study })
			p.Langs = choices(all, f.Language, func(r row) string { return r.Language })
			if err = s.profilesOf(r.Context(), p.Rows, b); err != nil {
				status = http.StatusInternalServerError
			}
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

// tally puts the comparison's counts and means on the page: each count
// of every outcome, worst first as the rows are (verdict.Outcomes), a
// link to its rows (the other filters kept), the means in percent.
func (p *comparePage) tally(t summary.Tally) {
	p.Verdicts = []option{{Value: "", Label: "any", Selected: p.Verdict == ""}}
	for _, o := range verdict.Outcomes() {
		label := outcomeLabel(o)
		p.Verdicts = append(p.Verdicts, option{Value: string(o), Label: label, Selected: o == p.Verdict})
		if !counted(t, o) {
			continue
		}
		only := *p
		only.Verdict = o
		p.Counts = append(p.Counts, verdictCount{Outcome: o, Label: label, N: t.Counts[o], Link: link("/compare", only.query(p.Sort))})
	}
	for _, m := range t.Means {
		cost := m.Cost
		if cost == "" {
			cost = "no declared cost"
		}
		p.Means = append(p.Means, costMean{Cost: cost, Change: fmt.Sprintf("%+.2f%%", 100*m.Change), Figures: m.Figures,
			Worse: m.Change > 0, Better: m.Change < 0})
	}
}

// counted tells whether the pages count outcome o of t: every outcome,
// and a broken measurement (inconsistent) only when there is one.
func counted(t summary.Tally, o verdict.Outcome) bool {
	return o != verdict.Inconsistent || t.Counts[o] > 0
}

// outcomeLabel is an outcome in words, as the pages count it.
func outcomeLabel(o verdict.Outcome) string { return strings.ReplaceAll(string(o), "_", " ") }

// recentOptions are the pickers' choices: each recent commit's night
// (its newest result's date) once, then each commit.
func recentOptions(commits []history.Commit) []option {
	var nights, names []option
	for _, c := range commits {
		if d := day(c.Last); !slices.ContainsFunc(nights, func(o option) bool { return o.Value == d }) {
			nights = append(nights, option{Value: d, Label: "the night of " + d})
		}
		names = append(names, option{Value: c.Name, Label: gitwork.Short(c.Name) + ", " + minute(c.Last)})
	}
	return append(nights, names...)
}

// query is the page's URL parameters, sorted by sort.
func (p comparePage) query(sort string) url.Values {
	q := query("a", p.A, "b", p.B, "sort", sort, "cost", p.Cost, "study", p.Study, "language", p.Language,
		"verdict", string(p.Verdict))
	if p.OnlyChanged {
		q.Set("changed", "1")
	}
	if p.Exact {
		q.Set("exact", "1")
	}
	return q
}

// ShortA and ShortB are the commits as people quote them.
func (p comparePage) ShortA() string { return gitwork.Short(p.CommitA) }
func (p comparePage) ShortB() string { return gitwork.Short(p.CommitB) }

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
