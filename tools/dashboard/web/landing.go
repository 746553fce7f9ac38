package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// The landing page, /: a night (the last, or ?night=DATE) against the
// night before, as the compare page of the two shows it (comparisonOf:
// the lab's one comparison), in its sections by outcome (inconsistent,
// missing, regressed, not compared, improved: verdict's order), each
// worst first, with a sparkline of its series; the alerts
// that night found or that are still open, by commit range; what was not
// compared and why; the history's nights to pick from; and the nightly
// job's last runs as its archive keeps them.

const (
	// pickedNights is how many of the newest nights the picker offers,
	// archivedRuns how many of the archive's nights the page lists.
	pickedNights = 30
	archivedRuns = 10
	// sparkPoints is how many of a series' newest points a sparkline
	// draws; sparkRows how many rows of a list get one.
	sparkPoints = 30
	sparkRows   = 12
	// The sparkline's box, in pixels.
	sparkWidth, sparkHeight = 120, 24
)

// A landingRow is a row of the night's comparison, with its sparkline.
type landingRow struct {
	row
	Spark *sparkline
}

// A sparkline is a series' newest medians as an SVG polyline: Points in
// the box's coordinates, the last one (the night) marked at LastX, LastY.
type sparkline struct {
	Width, Height int
	Points        string
	LastX, LastY  string
	Count         int
}

// A nightRun is a night the nightly job archived: its directory's name
// (when it started, its commit), how many tests it kept and its report,
// and what its run's record (tools/runrecord) says of the run.
type nightRun struct {
	Name    string
	Started time.Time
	Commit  string
	// Night is its date, the landing page of it; "" when it archived no
	// result (the history has none of it).
	Night  string
	Tests  int
	Report string // the dashboard's address of its report, "" for none
	// Verdict is what its report judged (reportVerdict), "" for none.
	Verdict string
	// Recorded: the night has a run record, read into what follows;
	// else (a night from before the records) only its directory speaks.
	Recorded bool
	Duration string
	// Shards is "n of m" shards reported, "" for an unsharded run;
	// Unreported names each shard that failed or never reported, and
	// its benchmarks without a result.
	Shards     string
	Unreported []string
	Results    int
	// Status is the run's status (passed, failed, no results), or why
	// its record cannot be read; Reasons what failed it, Baseline what
	// became of the baseline.
	Status   string
	Reasons  []string
	Baseline string
	// Failed: the run failed, or its record cannot be read.
	Failed bool
	// ChangePointsOff: its gate searched no change points (no --otava):
	// the gates' findings alone were its alerts.
	ChangePointsOff bool
	// Listed: the page's table of the last runs has it (its row's id is
	// "run-" and its Name).
	Listed bool
}

// Record is where the run's record is in the archive, as the page names
// it.
func (r nightRun) Record() string { return path.Join(history.NightsDir, r.Name, nightdir.Run) }

type outcomeCount struct {
	Label string
	N     int
}

type landingPage struct {
	Nav string
	// Night is the date shown, Commit its results' commit; Prev the
	// night before and its commit, "" for none.
	Night, Commit    string
	Prev, PrevCommit string
	// Others are the night's other commits than Commit, which stands for
	// it (nightCommit), each a link to its compare page against Prev.
	Others  []otherCommit
	Compare string // the compare page of Prev against Night
	Nights  []option
	// Empty: the history has no result at all.
	Empty bool
	// Message says why the night could not be compared, else "".
	Message string
	// Worst is the night's verdict: the worst of its benchmarks' outcomes
	// (summary.Outcome), missing when one of the night before has no
	// result.
	Worst verdict.Outcome
	// Counts are the rows by outcome, as the compare page counts them,
	// worst first (verdict.Outcomes).
	Counts []outcomeCount
	// Sections are the comparison's rows by outcome, as the comparison
	// sections them (summary.Table), but the unchanged.
	Sections []landingSection
	Alerts   []alertGroup
	// Measured lists the night's benchmarks when there is no night before
	// it: each links to its series.
	Measured []measuredBenchmark
	Results  int
	Runs     []nightRun
	RunsNote string
	// NightRun is the nightly job's run of the night shown, as its
	// record says (its newest, when it ran twice), or nil: the page says
	// when it failed, or searched no change points, rather than call a
	// night without alerts a good one. LastRun is the archive's newest
	// run when it failed and is of a later night than the one shown (a
	// night that put no result in the history, say), else nil.
	NightRun, LastRun *nightRun
}

// A landingSection is the rows of one outcome: ID names its table, Why
// says it is a table of why its rows were not compared.
type landingSection struct {
	Outcome   verdict.Outcome
	ID, Title string
	Why       bool
	Rows      []landingRow
}

type measuredBenchmark struct {
	Benchmark, Workload, Series string
}

// landing serves the landing page of the night asked for, the last by
// default. A night the history does not have is a 404.
func (s *Server) landing(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, days, err := s.db.Seen(ctx)
	if err != nil {
		s.fail(w, "night", http.StatusInternalServerError, err.Error())
		return
	}
	p := landingPage{Nav: "night"}
	p.Runs, p.RunsNote = s.archivedRuns()
	if len(days) == 0 {
		if asked := param(r, "night"); asked != "" {
			s.fail(w, "night", http.StatusNotFound, "night="+asked+": the history has no night yet")
			return
		}
		p.Empty = true
		s.render(w, http.StatusOK, "landing", p)
		return
	}
	i := len(days) - 1
	if asked := param(r, "night"); asked != "" {
		d, ok := nightOf(asked)
		if !ok {
			s.fail(w, "night", http.StatusBadRequest, "night="+asked+": want a night's date, 2026-11-20")
			return
		}
		if i = slices.IndexFunc(days, func(t time.Time) bool { return t.Equal(d) }); i < 0 {
			s.fail(w, "night", http.StatusNotFound, "night="+asked+": the history has no result that started that day (UTC)")
			return
		}
	}
	p.Night = day(days[i])
	for j := len(days) - 1; j >= 0 && j >= len(days)-pickedNights; j-- {
		p.Nights = append(p.Nights, option{Value: day(days[j]), Label: day(days[j]), Selected: j == i})
	}
	if i > 0 {
		p.Prev = day(days[i-1])
		p.Compare = link("/compare", query("a", p.Prev, "b", p.Night))
	}
	status, err := s.fillNight(ctx, &p)
	if status >= 500 {
		s.fail(w, "night", status, err.Error())
		return
	}
	if err != nil {
		p.Message = err.Error()
	}
	p.NightRun, p.LastRun = s.runOfNight(p.Night, p.Runs), lastFailedRun(p.Night, p.Runs)
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, http.StatusOK, "landing", p)
}

// runOfNight is the newest run the archive keeps of the night (a date):
// one of listed, the page's last runs, when it is among them (Listed),
// else read from the archive; nil when it kept none.
func (s *Server) runOfNight(night string, listed []nightRun) *nightRun {
	for i := range listed {
		if day(listed[i].Started) == night {
			run := listed[i]
			run.Listed = true
			return &run
		}
	}
	root, err := s.openArchive()
	if err != nil {
		return nil
	}
	defer root.Close()
	entries, _ := fs.ReadDir(root.FS(), history.NightsDir)
	for _, e := range slices.Backward(entries) {
		if run, ok := readRun(root.FS(), e); ok && day(run.Started) == night {
			return &run
		}
	}
	return nil
}

// lastFailedRun is the newest of runs, the archive's last, when it failed
// on a day after the night shown: else nil.
func lastFailedRun(night string, runs []nightRun) *nightRun {
	if len(runs) == 0 || !runs[0].Failed || day(runs[0].Started) <= night {
		return nil
	}
	run := runs[0]
	run.Listed = true
	return &run
}

// fillNight compares p's night with the night before, if there is one,
// and reads its alerts; a night that cannot be compared is a 4xx status
// and the error that says why.
func (s *Server) fillNight(ctx context.Context, p *landingPage) (int, error) {
	b, status, err := s.loadSide(ctx, "night", p.Night)
	if err != nil {
		return status, err
	}
	p.Commit, p.Results = b.Commit, len(b.Results)
	for _, c := range b.Others {
		o := otherCommit{Commit: c}
		if p.Prev != "" {
			o.Link = link("/compare", query("a", p.Prev, "b", c))
		}
		p.Others = append(p.Others, o)
	}
	if p.Prev == "" {
		for k, st := range b.Results {
			p.Measured = append(p.Measured, measuredBenchmark{Benchmark: k.Benchmark, Workload: k.Workload,
				Series: link("/series", query("benchmark", k.Benchmark, "workload", k.Workload,
					"env", result.EnvironmentKey(st.Result.Environment)))})
		}
		slices.SortFunc(p.Measured, func(x, y measuredBenchmark) int {
			return cmp.Or(cmp.Compare(x.Benchmark, y.Benchmark), cmp.Compare(x.Workload, y.Workload))
		})
	} else {
		a, status, err := s.loadSide(ctx, "the night before", p.Prev)
		if err == nil {
			if err = s.loadRecent(ctx, &a); err != nil {
				status = http.StatusInternalServerError
			}
		}
		if err != nil {
			return status, err
		}
		p.PrevCommit = a.Commit
		c := comparisonOf(a, b)
		p.Worst = summary.Outcome(c.judged)
		if err := s.judgeNight(ctx, p, c); err != nil {
			return http.StatusInternalServerError, err
		}
	}
	if err := s.nightAlerts(ctx, p); err != nil {
		return http.StatusInternalServerError, err
	}
	return 0, nil
}

// judgeNight puts the comparison's sections on p, but the unchanged, as
// the comparison sections and orders them (verdict's order of outcomes,
// each worst first), and draws the sparklines of the first of each that
// was judged; the counts are the compare page's of the same two nights
// (the comparison's tally), in verdict's order of outcomes, so that the
// two pages never count one night twice over.
func (s *Server) judgeNight(ctx context.Context, p *landingPage, c comparison) error {
	for _, sec := range c.Sections {
		if sec.Outcome == verdict.Unchanged {
			continue
		}
		ls := landingSection{Outcome: sec.Outcome, ID: string(sec.Outcome), Title: outcomeTitle(sec.Outcome)}
		if sec.Outcome == verdict.NotComparable {
			ls.ID, ls.Why = "not-compared", true
		}
		for i, r := range sec.Rows {
			lr := landingRow{row: c.rowOf(r)}
			if lr.Figure == "" && lr.Outcome == verdict.Missing && lr.a != nil {
				// A benchmark gone (or unreadable at B): its series at A.
				lr.Series = link("/series", query("benchmark", lr.Benchmark, "workload", lr.Workload,
					"env", result.EnvironmentKey(lr.a.Result.Environment)))
			}
			if !ls.Why && i < sparkRows {
				if err := s.sparkOf(ctx, &lr); err != nil {
					return err
				}
			}
			ls.Rows = append(ls.Rows, lr)
		}
		p.Sections = append(p.Sections, ls)
	}
	for _, o := range verdict.Outcomes() {
		if counted(c.Tally, o) {
			p.Counts = append(p.Counts, outcomeCount{Label: outcomeLabel(o), N: c.Tally.Counts[o]})
		}
	}
	return nil
}

// outcomeTitle is an outcome as a section's title: "Not compared".
func outcomeTitle(o verdict.Outcome) string {
	if o == verdict.NotComparable {
		return "Not compared"
	}
	t := outcomeLabel(o)
	return strings.ToUpper(t[:1]) + t[1:]
}

// sparkOf draws r's series: its figure in the environment of its newest
// side's result.
func (s *Server) sparkOf(ctx context.Context, r *landingRow) error {
	st := r.b
	if st == nil {
		st = r.a
	}
	if st == nil || r.Figure == "" {
		return nil
	}
	env := result.EnvironmentKey(st.Result.Environment)
	if r.Series == "" {
		r.Series = link("/series", query("benchmark", r.Benchmark, "figure", r.Figure, "unit", r.Unit,
			"workload", r.Workload, "env", env))
	}
	all, err := s.db.Series(ctx, history.Query{Benchmark: r.Benchmark, Figure: r.Figure, Workload: r.Workload,
		EnvKey: env, Newest: sparkPoints})
	if err != nil {
		return err
	}
	for _, series := range all {
		if series.Unit != r.Unit {
			continue
		}
		var medians []float64
		for _, pt := range series.Points {
			if len(pt.Values) > 0 {
				medians = append(medians, result.NewSample(pt.Values).Median)
			}
		}
		r.Spark = sparkOfValues(medians)
	}
	return nil
}

// sparkOfValues is the sparkline of values, oldest first; nil for none.
func sparkOfValues(values []float64) *sparkline {
	if len(values) == 0 {
		return nil
	}
	lo, hi := slices.Min(values), slices.Max(values)
	const pad = 2.0
	x := func(i int) float64 {
		if len(values) == 1 {
			return sparkWidth - pad
		}
		return pad + float64(i)*(sparkWidth-2*pad)/float64(len(values)-1)
	}
	y := func(v float64) float64 {
		if hi == lo {
			return sparkHeight / 2
		}
		return sparkHeight - pad - (v-lo)*(sparkHeight-2*pad)/(hi-lo)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	sp := &sparkline{Width: sparkWidth, Height: sparkHeight, Count: len(values)}
	var pts []string
	for i, v := range values {
		pts = append(pts, f(x(i))+","+f(y(v)))
	}
	sp.Points = strings.Join(pts, " ")
	sp.LastX, sp.LastY = f(x(len(values)-1)), f(y(values[len(values)-1]))
	return sp
}

// nightAlerts are the alerts the night found first and those open now,
// newest first, grouped by their commit range.
func (s *Server) nightAlerts(ctx context.Context, p *landingPage) error {
	all, err := s.db.Alerts(ctx)
	if err != nil {
		return err
	}
	slices.Reverse(all)
	var rows []alertRow
	for _, a := range all {
		isNew := day(a.FirstFound) == p.Night
		if !isNew && !a.State().Open() {
			continue
		}
		r := alertRowOf(a)
		r.New = isNew
		rows = append(rows, r)
	}
	p.Alerts = groupsOf(rows)
	return nil
}

// archivedRuns are the newest nights of the nightly job's archive, or a
// note of why there are none: each with its run's record (readRunRecord),
// which a run that archived nothing has alone in its directory. A night
// from before the records is what its directory implies: its results,
// and its report's summary of how its gate judged it.
func (s *Server) archivedRuns() ([]nightRun, string) {
	root, err := s.openArchive()
	if err != nil {
		return nil, err.Error()
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), history.NightsDir)
	if err != nil {
		return nil, fmt.Sprintf("the archive has no %s directory: the nightly job has archived no night", history.NightsDir)
	}
	var runs []nightRun
	for _, e := range slices.Backward(entries) {
		if len(runs) == archivedRuns {
			break
		}
		if run, ok := readRun(root.FS(), e); ok {
			runs = append(runs, run)
		}
	}
	if len(runs) == 0 {
		return nil, "the archive holds no night yet"
	}
	return runs, ""
}

// readRun reads the night of the archive's nights directory e, when it
// is one: its tests, its run's record (readRunRecord) and its report.
func readRun(fsys fs.FS, e fs.DirEntry) (nightRun, bool) {
	started, commit, ok := nightDirName(e.Name())
	if !e.IsDir() || !ok {
		return nightRun{}, false
	}
	run := nightRun{Name: e.Name(), Started: started, Commit: commit}
	dir := path.Join(history.NightsDir, e.Name())
	tests, _ := fs.ReadDir(fsys, dir)
	for _, t := range tests {
		if _, err := fs.Stat(fsys, history.ArchivedResult(e.Name(), t.Name())); err == nil && archiveName(t.Name()) {
			run.Tests++
		}
	}
	if run.Tests > 0 {
		run.Night = day(started)
	}
	readRunRecord(fsys, path.Join(dir, nightdir.Run), &run)
	if _, err := fs.Stat(fsys, path.Join(dir, nightdir.Report, "index.html")); err == nil {
		run.Report = "/nights/" + e.Name() + "/" + nightdir.Report + "/"
	}
	run.Verdict = reportVerdict(fsys, path.Join(dir, nightdir.Report, summary.FileName))
	return run, true
}

// readRunRecord fills run in from its night's run record at name, if it
// has one: a record that cannot be read shows as a failed run, naming why.
func readRunRecord(fsys fs.FS, name string, run *nightRun) {
	r, err := runrecord.ReadFS(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	run.Recorded = true
	if err != nil {
		run.Status, run.Failed = "its run record cannot be read: "+err.Error(), true
		return
	}
	run.Started, run.Commit = r.Started, r.Commit
	run.Duration = r.Duration().Round(time.Second).String()
	if r.Sharded {
		run.Shards = fmt.Sprintf("%d of %d", r.Reported(), len(r.Shards))
	}
	for _, s := range r.Shards {
		if s.State == runrecord.Reported {
			continue
		}
		line := fmt.Sprintf("shard %d %s", s.Index, s.State)
		if s.Why != "" {
			line += ": " + s.Why
		}
		if len(s.Missing) > 0 {
			line += "; no result of " + strings.Join(s.Missing, ", ")
		}
		run.Unreported = append(run.Unreported, line)
	}
	run.Results, run.Status, run.Reasons, run.Baseline = r.Results, string(r.Status), r.Reasons, r.Baseline
	run.Failed = r.Status != runrecord.Passed
	run.ChangePointsOff = r.ChangePoints == runrecord.ChangePointsOff
}

// reportVerdict is what a night's report judged against its baseline, as
// its summary (tools/summary) at name says: the status the report exited
// with, in words; "" when it has none.
func reportVerdict(fsys fs.FS, name string) string {
	sum, err := summary.ReadFS(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return "its summary cannot be read"
	}
	switch sum.Status() {
	case verdict.StatusRegressed:
		return fmt.Sprintf("failed: %d benchmarks failing, %d results unreadable", len(sum.Regressed()), len(sum.Unreadable))
	case verdict.StatusNotComparable:
		return "not comparable: " + summary.NotCompared(sum.Benchmarks).String()
	}
	return "passed"
}

// nightDirName reads a night's directory of the archive, as the nightly
// job names it: 20261106T020000Z-COMMIT, when it started and its commit.
func nightDirName(name string) (time.Time, string, bool) {
	stamp, commit, ok := strings.Cut(name, "-")
	if !ok || !nightName(name) {
		return time.Time{}, "", false
	}
	started, err := time.Parse("20060102T150405Z", stamp)
	return started, commit, err == nil
}
