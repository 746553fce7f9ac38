package web

import (
	"cmp"
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
	"havlak-lab/tools/history"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

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
	// verdict is a figure's (none for a whole benchmark's row); at its
	// place among its benchmark's figures, for the orders a reader picks.
	verdict verdict.Verdict
	at      int
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

// A comparison is the two sides compared by the lab's one comparison of
// benchmarks (summary.Compare), workload by workload, A's recent history
// calibrating its thresholds and every figure of either side paired
// (EveryFigure): its table (summary.Table), whose rows, worst first,
// sections and tally the pages take whole. The dashboard pairs, orders
// and counts nothing itself. A benchmark whose result at either side
// cannot be read is judged as one row saying why (unreadable).
type comparison struct {
	summary.Table
	// Benchmarks are as they were judged, each with its workload: one
	// that is one row is without figures.
	judged     []summary.Benchmark
	a, b       side
	unreadable map[benchKey]error
}

// comparisonOf compares the two sides (comparison).
func comparisonOf(a, b side) comparison {
	var workloads []string
	for _, results := range []map[benchKey]history.Stored{a.Results, b.Results} {
		for k := range results {
			if !slices.Contains(workloads, k.Workload) {
				workloads = append(workloads, k.Workload)
			}
		}
	}
	c := comparison{a: a, b: b, unreadable: map[benchKey]error{}}
	for _, w := range workloads {
		c.judged = append(c.judged, c.judgeWorkload(w)...)
	}
	// The history's results come in no order: as bad, the table keeps
	// them by name and workload.
	slices.SortStableFunc(c.judged, func(x, y summary.Benchmark) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Workload, y.Workload))
	})
	c.Table = summary.TableOf(c.judged)
	return c
}

// judgeWorkload is the comparison of the two sides' results of one
// workload: its benchmarks as judged, each an unreadable one (and not
// gone or only at one side) without figures, as one row.
func (c comparison) judgeWorkload(workload string) []summary.Benchmark {
	unreadable := map[string]error{}
	sidesOf := func(results map[benchKey]history.Stored) []summary.Side {
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
		}
		return sides
	}
	before, after := sidesOf(c.a.Results), sidesOf(c.b.Results)
	recent := func(base summary.Side) (map[result.FigureKey][]float64, map[string][]result.Sweep, error) {
		r := c.a.Recent[benchKey{base.Benchmark.Name, workload}]
		return r.Medians, r.Sweeps, nil
	}
	s, err := summary.Compare("dashboard", c.a.Commit, before, after,
		summary.Options{Policy: verdict.Lab, Recent: recent, EveryFigure: true})
	if err != nil {
		// Each side has one result a benchmark (loadSide): not reached.
		c.unreadable[benchKey{"", workload}] = err
		return []summary.Benchmark{{Workload: workload, Outcome: verdict.Missing}}
	}
	for i := range s.Benchmarks {
		j := &s.Benchmarks[i]
		// A benchmark gone has no workload of its own in the comparison.
		j.Workload = workload
		if err := unreadable[j.Name]; err != nil && !j.Gone() && !j.OnlyInChange {
			c.unreadable[benchKey{j.Name, workload}] = err
			j.Figures = nil
		}
	}
	return s.Benchmarks
}

// rows are the comparison's rows, worst first, as the compare page shows
// them.
func (c comparison) rows() []row {
	var rows []row
	for _, r := range c.Rows {
		rows = append(rows, c.rowOf(r))
	}
	return rows
}

// rowOf is a row of the table as the pages show it, linked to its series,
// attribution and results.
func (c comparison) rowOf(r summary.Row) row {
	judged := r.Benchmark
	k := benchKey{judged.Name, judged.Workload}
	base := row{Benchmark: k.Benchmark, Workload: k.Workload, Study: judged.Study, Language: judged.Language,
		Outcome: r.Outcome()}
	old, inA := c.a.Results[k]
	now, inB := c.b.Results[k]
	if inA {
		base.a = &old
	}
	if inB {
		base.b = &now
	}
	if r.Figure == nil {
		// A benchmark of one row (one side lacks it, or cannot be read)
		// has its own outcome: missing, or not compared.
		base.Changed = true
		switch err := c.unreadable[k]; {
		case err != nil:
			base.Label, base.Note = "unreadable", err.Error()
		case judged.Gone():
			if inA {
				base.Study, base.Language = old.Result.Benchmark.Study, old.Result.Benchmark.Language
			}
			base.Label, base.Note = "only at A", "B has no result of it"
		case judged.OnlyInChange:
			base.Label, base.Note = "only at B", "A has no result of it"
		default:
			base.Label, base.Note = outcomeLabel(judged.Outcome), judged.Note
		}
		return base
	}
	v := *r.Figure
	base.Figure, base.Unit, base.verdict = v.Figure, v.Unit, v
	base.at = slices.IndexFunc(judged.Figures, func(f verdict.Verdict) bool { return f.Figure == v.Figure && f.Unit == v.Unit })
	base.Cost, base.Class, base.Exact = v.Cost, v.Class, v.Exact
	// A side without runs of the figure has no value: blank, not 0.
	if v.Old.Runs > 0 {
		base.Old = numfmt.Number(v.Old.Median)
	}
	if v.New.Runs > 0 {
		base.New = numfmt.Number(v.New.Median)
	}
	if hasChange(v) {
		base.Change, base.change = v.ChangeText(2), float64(v.Change)
		if w := v.Worsening(); v.Outcome == verdict.NotComparable && w > 0 {
			base.Moved = "worse"
		} else if v.Outcome == verdict.NotComparable && w < 0 {
			base.Moved = "better"
		}
	}
	base.Label, base.Evidence, base.Note = v.Label(), v.Evidence(), v.Warning
	if base.Note == base.Evidence {
		// A figure of too few runs says why once.
		base.Note = ""
	}
	if !inA || !inB {
		return base // not reached: a figure's benchmark is at both sides
	}
	base.NotRemeasured = judged.SameIdentity || old.SHA256 == now.SHA256
	base.Changed = v.Outcome != verdict.Unchanged && v.Outcome != verdict.NotComparable
	from, to := around(old.Result, now.Result)
	base.Series = link("/series", query("benchmark", k.Benchmark, "figure", v.Figure, "unit", v.Unit,
		"workload", k.Workload, "env", result.EnvironmentKey(now.Result.Environment), "from", from, "to", to))
	if attribution.Explains(v.Figure) && old.SHA256 != now.SHA256 &&
		linecounts.FigureFile(old.Result, v.Figure) != "" && linecounts.FigureFile(now.Result, v.Figure) != "" {
		base.Attribution = attributionLink(now.SHA256, old.SHA256, v.Figure)
	}
	return base
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

// The columns a reader may sort the compare table by, each with its
// order, and as alike, by benchmark and its figures' order. By outcome,
// the default, the table keeps the comparison's order (summary.Table:
// the worst first, by outcome, what fails a gate first, then by how much
// worse): nil.
var sortings = map[string]func(x, y row) int{
	"benchmark": func(x, y row) int { return byBenchmark(x, y) },
	"figure":    func(x, y row) int { return cmp.Or(cmp.Compare(x.Figure, y.Figure), byBenchmark(x, y)) },
	// By how much worse the figure got, in the direction its rule
	// declares worse (a throughput down, a count up): the most better
	// first; -change, the most worse first.
	"change":  func(x, y row) int { return cmp.Or(cmp.Compare(worseningOf(x), worseningOf(y)), byBenchmark(x, y)) },
	"outcome": nil,
}

// byBenchmark orders rows by benchmark and workload, then by their
// figures' order in the comparison.
func byBenchmark(x, y row) int {
	return cmp.Or(cmp.Compare(x.Benchmark, y.Benchmark), cmp.Compare(x.Workload, y.Workload), cmp.Compare(x.at, y.at))
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
	// Counts are every row's verdicts, as the comparison counts them
	// (summary.Table's Tally), each a
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
			c := comparisonOf(a, b)
			all := c.rows()
			if order != nil {
				slices.SortStableFunc(all, order)
			}
			if desc {
				slices.Reverse(all)
			}
			p.tally(c.Tally)
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
