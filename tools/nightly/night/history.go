package night

// The night in the results history (tools/history): the night's results
// are archived and ingested, change points are searched over each
// benchmark's history (tools/changepoint, Apache Otava: only with its
// command, else change points are off), the series go to the report as
// trend charts (tools/trends), and each new regression's commit range is
// bisected (tools/bisect).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labdir"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint"
	"havlak-lab/tools/firstbad"
	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/trends"
	verdictlib "havlak-lab/tools/verdict"
)

// A historyConfig says where the history is and how to search it.
type historyConfig struct {
	// dir holds the archive of the nights ingested (dir/nights/NIGHT/TEST/
	// outputs.zip: the history points at them, so they must outlive the
	// job's artifacts) and, unless dsn says otherwise, the SQLite database.
	dir string
	dsn string
	// otava is Apache Otava's command (tools/ci/tools.sh otava); "" turns
	// the change-point search off.
	otava string
	// bisect: a new regression whose range holds more than one commit is
	// bisected in checkout (tools/firstbad).
	bisect   bool
	checkout string
	// name is the database's DSN without its password, and access its
	// access, once open ("" before).
	name   string
	access history.Access
}

// changePoints tells whether the history is searched for change points:
// Otava's command was given.
func (h *historyConfig) changePoints() bool { return h.otava != "" }

// chartedFigure tells whether a figure gets a chart and a change-point
// search: as tools/result declares it (result.Charted), and every
// function's series (history's, of a result's line counts).
func chartedFigure(s history.Series) bool {
	return result.Charted(s.Figure, s.Gated) || s.Function()
}

// open opens the history database, making a shared SQLite one the first
// time.
func (h *historyConfig) open(ctx context.Context) (*history.DB, error) {
	db, err := h.openOrCreate(ctx)
	if err == nil {
		h.name, h.access = db.Name(), db.Access()
	}
	return db, err
}

func (h *historyConfig) openOrCreate(ctx context.Context) (*history.DB, error) {
	db, err := history.Open(ctx, h.dsn)
	path := strings.TrimPrefix(h.dsn, "sqlite:")
	if err == nil || strings.Contains(h.dsn, "://") || fileExists(path) {
		return db, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return history.Create(ctx, h.dsn, history.Shared)
}

// historyStep records the night in the history (db), searches it for
// change points (with Otava) and writes the trends file; it returns the change points
// for the worse in the series that have tonight's point, as findings
// (tools/alert), and the charts it wrote, for the report. accepted are the
// regressions commits since the baseline declare intended.
func (n *night) historyStep(ctx context.Context, db *history.DB, found []result.Found, trendsFile string, accepted []verdictlib.Acceptance) ([]alert.Finding, []trends.Series, error) {
	// What was recorded is searched, even when some result was refused.
	_, recordErr := n.record(ctx, db, found)
	findings, charts, err := n.detect(ctx, db, found, trendsFile, accepted)
	return findings, charts, errors.Join(recordErr, err)
}

// writeCharts writes the trends file, and returns its charts when it could.
func writeCharts(trendsFile string, charts []trends.Series) ([]trends.Series, error) {
	if err := trends.Write(trendsFile, charts); err != nil {
		return nil, err
	}
	return charts, nil
}

// record archives the night's results that db takes and ingests them. An
// untrusted night is not an error: it is said, and left out.
func (n *night) record(ctx context.Context, db *history.DB, found []result.Found) (ingested int, err error) {
	fmt.Fprintf(n.stdout, "--- :card_file_box: History (%s)\n", db.Name())
	var take []result.Found
	for _, f := range found {
		if f.Err != nil {
			continue
		}
		if ok, why := f.Result.Environment.Origin.Trusted(); !ok && db.Access() == history.Shared {
			fmt.Fprintf(n.stdout, "%s: not recorded: %s; only scheduled builds of %s enter the history\n",
				cli.Field(f.Result.Benchmark.Name), cli.Field(why), result.TrustedBranch)
			continue
		}
		take = append(take, f)
	}
	if len(take) == 0 {
		return 0, nil
	}
	archive, err := n.archive(take)
	if err != nil {
		return 0, fmt.Errorf("archiving the night: %w", err)
	}
	// Every result the database takes goes in; a refused one is named and
	// fails the step, after the others.
	var refused []error
	for _, zip := range archive {
		in, err := db.Ingest(ctx, zip)
		if err != nil {
			fmt.Fprintf(n.stdout, "%s: refused: %s\n", cli.Field(zip), cli.Field(err.Error()))
			refused = append(refused, err)
			if errors.Is(err, history.ErrBusy) || errors.Is(err, history.ErrCorrupt) || ctx.Err() != nil {
				break // the next would fare no better
			}
			continue
		}
		what := "already there"
		if in.Added {
			what = "added"
			ingested++
		}
		fmt.Fprintf(n.stdout, "%s: %s (%s)\n", cli.Field(in.Benchmark), what, cli.Field(zip))
	}
	if len(refused) > 0 {
		return ingested, fmt.Errorf("%d of the night's %d results were not recorded: %w", len(refused), len(archive), errors.Join(refused...))
	}
	return ingested, nil
}

// archive copies the results into the history's directory of nights,
// named by when and at which commit the night ran, and returns the
// copies' paths. The directory is the night's archive once it holds the
// lab's marker (labdir.NightArchive), written last: a new one appears
// whole, marker and all; one an earlier run left without the marker (its
// run's record alone, when its history could not be opened, or an archive
// from before the marker) gets the results it lacks, then the marker.
// Anything else there is refused, and nothing is written into it.
func (n *night) archive(found []result.Found) ([]string, error) {
	env := found[0].Result.Environment
	started, _ := time.Parse(time.RFC3339, env.Started)
	dir := n.nightDir(started, env.Source.Commit)
	var zips []string
	for _, f := range found {
		zips = append(zips, result.NightZip(dir, result.Test(f)))
	}
	if err := n.removeArchiveLeftovers(dir, zips); err != nil {
		return nil, err
	}
	state, err := checkArchive(dir)
	switch {
	case err != nil:
		return nil, err
	case state == labdir.Absent:
		err = newArchive(dir, found, n.artifacts)
	case state != labdir.Marked:
		err = completeArchive(dir, found, zips, n.artifacts)
	}
	if err != nil {
		return nil, err
	}
	n.archivedNight = dir
	return zips, nil
}

// removeArchiveLeftovers removes the temporary files that a run killed
// while it wrote into dir, the night's archive, left beside the files it
// writes there (its results, its run's record, the marker): the archive
// would otherwise hold a stray file, and every later run refuse it.
func (n *night) removeArchiveLeftovers(dir string, zips []string) error {
	paths := append([]string{filepath.Join(dir, labdir.Marker)}, zips...)
	for name, isDir := range nightdir.ArchiveLayout() {
		if !isDir {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	for _, path := range paths {
		removed, err := atomicfile.RemoveLeftovers(path)
		for _, left := range removed {
			fmt.Fprintf(n.stdout, "Removed %s, which an interrupted archive left behind.\n", cli.Field(left))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkArchive is what dir, a night's directory of the history's archive,
// holds (labdir.Check): nothing, the night's archive (Marked), or what
// the job writes there without the marker (Empty, Adoptable); anything
// else is an error.
func checkArchive(dir string) (labdir.State, error) {
	return labdir.Check("the history's archive of the night", dir, labdir.NightArchive, func(dir string) error {
		_, err := result.OpenNight(dir, nightdir.ArchiveLayout())
		return err
	})
}

// newArchive makes dir, absent, holding the results, the layout variants'
// counts of the night in artifacts and the marker: it is made beside it
// and renamed, so that it appears whole or not at all.
func newArchive(dir string, found []result.Found, artifacts string) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	for _, f := range found {
		if err := copyCapped(f.Path, result.NightZip(tmp, result.Test(f))); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	}
	if _, err := copyLayoutVariants(artifacts, tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := labdir.Mark(tmp, labdir.NightArchive); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return os.Rename(tmp, dir)
}

// completeArchive copies into dir, a night's directory the job wrote
// without archiving it whole, the results it lacks and the layout
// variants' counts of the night in artifacts, then marks it. A result
// already there is kept: the history may point at it.
func completeArchive(dir string, found []result.Found, zips []string, artifacts string) error {
	for i, f := range found {
		if isFile(zips[i]) {
			continue
		}
		if err := copyCapped(f.Path, zips[i]); err != nil {
			return err
		}
	}
	if _, err := copyLayoutVariants(artifacts, dir); err != nil {
		return err
	}
	return labdir.Mark(dir, labdir.NightArchive)
}

// nightDir is the history's directory of the night that started then at
// commit (history.NightName).
func (n *night) nightDir(started time.Time, commit string) string {
	return filepath.Join(n.history.dir, history.NightsDir, history.NightName(started, commit))
}

// archiveReport keeps tonight's report with tonight's archived results,
// for the trend charts' links to each night's profiles.
func (n *night) archiveReport() error {
	if n.archivedNight == "" || !isDir(n.reportDir()) {
		return nil
	}
	return filepath.Walk(n.reportDir(), func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(n.artifacts, path)
		if err != nil {
			return err
		}
		return copyCapped(path, filepath.Join(n.archivedNight, rel))
	})
}

// reportDir is where the report of the night goes.
func (n *night) reportDir() string { return filepath.Join(n.artifacts, nightdir.Report) }

// detect searches every charted series of tonight's benchmarks for change
// points, writes them with the series as a trends file for the report,
// and returns the regressions among them in the series that end with
// tonight's point, each Known unless it is new tonight (found with
// tonight's point and not without it): a known one only matches the
// alert that found it before. A series whose level was accepted
// (alert.ResetAt) is searched from the accepted level on
// (changepoint.NightWindow); a change of a benchmark's figure that a
// commit since the baseline accepts is found accepted. Without Otava
// the series are charted, and none is searched.
func (n *night) detect(ctx context.Context, db *history.DB, found []result.Found, trendsFile string, accepted []verdictlib.Acceptance) ([]alert.Finding, []trends.Series, error) {
	all, err := tonightsSeries(ctx, db, found)
	if err != nil {
		return nil, nil, err
	}
	if len(all) == 0 {
		fmt.Fprintln(n.stdout, "No history of tonight's benchmarks in this environment yet.")
		return nil, nil, nil
	}
	if !n.history.changePoints() {
		fmt.Fprintf(n.stdout, "Change points: off (no --otava): %d series charted, none searched.\n", len(all))
		charts, err := writeCharts(trendsFile, chartsOf(all, nil, n.reportDir(), n.archivedNight))
		return nil, charts, err
	}
	alerts, err := db.Alerts(ctx)
	if err != nil {
		return nil, nil, err
	}
	windows := make([]changepoint.Window, len(all))
	for i, s := range all {
		windows[i] = changepoint.NightWindow(changeSeries(s), alert.ResetAt(alerts, alertSeries(s)), endsTonight(s, found))
	}
	if !slices.ContainsFunc(windows, func(w changepoint.Window) bool { return w.Searched }) {
		fmt.Fprintf(n.stdout, "Change points: no series has %d points yet.\n", changepoint.MinSearchedPoints)
		charts, err := writeCharts(trendsFile, chartsOf(all, nil, n.reportDir(), n.archivedNight))
		return nil, charts, err
	}
	results, known, err := n.search(ctx, windows)
	if err != nil {
		return nil, nil, err
	}
	var findings []alert.Finding
	for i, s := range all {
		if !windows[i].Searched {
			continue
		}
		findings = append(findings, n.changeFindings(s, windows[i], results[i], known, accepted)...)
		results[i] = windows[i].Whole(results[i])
	}
	charts, err := writeCharts(trendsFile, chartsOf(all, results, n.reportDir(), n.archivedNight))
	return findings, charts, err
}

// tonightsSeries reads the charted series (chartedSeries) of each of
// tonight's benchmarks in its workload and environment.
func tonightsSeries(ctx context.Context, db *history.DB, found []result.Found) ([]history.Series, error) {
	var all []history.Series
	for _, f := range found {
		if f.Err != nil {
			continue
		}
		r := f.Result
		q := history.Query{Benchmark: r.Benchmark.Name, Workload: r.Benchmark.Workload.Name, EnvKey: result.EnvironmentKey(r.Environment)}
		charted, err := chartedSeries(ctx, db, q)
		if err != nil {
			return nil, err
		}
		all = append(all, charted...)
	}
	return all, nil
}

// endsTonight says s's newest point is one of tonight's results.
func endsTonight(s history.Series, found []result.Found) bool {
	if len(s.Points) == 0 {
		return false
	}
	last := s.Points[len(s.Points)-1]
	return slices.ContainsFunc(found, func(f result.Found) bool {
		return f.Err == nil && f.Result.Benchmark.Name == s.Benchmark && f.Result.Environment.Started == last.Started.Format(time.RFC3339)
	})
}

// search searches the windows for change points with Otava, and returns
// each window's change points (none for a window not searched) and those
// found without tonight's point too (knownChange), where one may be new.
func (n *night) search(ctx context.Context, windows []changepoint.Window) ([]changepoint.Result, map[string]bool, error) {
	var now []changepoint.Series
	for _, w := range windows {
		if w.Searched {
			now = append(now, w.Series)
		}
	}
	opts := changepoint.DefaultOptions(n.history.otava)
	fmt.Fprintf(n.stdout, "Change points: Apache Otava over %d series (window %d, p ≤ %g, change ≥ %g%%)\n",
		len(now), opts.Window, opts.MaxPValue, 100*opts.MinMagnitude)
	foundNow, err := changepoint.Detect(ctx, opts, now...)
	if err != nil {
		return nil, nil, err
	}
	results := make([]changepoint.Result, len(windows))
	var before []changepoint.Series
	for i, w := range windows {
		if !w.Searched {
			continue
		}
		results[i], foundNow = foundNow[0], foundNow[1:]
		if w.NeedsWithoutNewest(results[i]) {
			before = append(before, w.WithoutNewest)
		}
	}
	known := map[string]bool{}
	if len(before) == 0 {
		return results, known, nil
	}
	foundBefore, err := changepoint.Detect(ctx, opts, before...)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range foundBefore {
		for _, cp := range r.ChangePoints {
			known[knownChange(r.Series, cp)] = true
		}
	}
	return results, known, nil
}

// knownChange is how a change point found without tonight's point is
// known: by its series and the first commit after it.
func knownChange(series string, cp changepoint.ChangePoint) string {
	return series + " " + cp.After.ID
}

// changeFindings prints the change points found in s's window, and
// returns its regressions as findings if tonight's point is its newest,
// each naming the functions that moved its figure (changeFunctions). A
// function's series is charted and searched, never gated: its change
// points are printed, and are no finding.
func (n *night) changeFindings(s history.Series, w changepoint.Window, r changepoint.Result, known map[string]bool, accepted []verdictlib.Acceptance) []alert.Finding {
	var findings []alert.Finding
	for _, cp := range r.ChangePoints {
		what := map[bool]string{true: " (regression)"}[cp.Regression]
		if s.Function() {
			what = " (a function's series: charted, not gated)"
		}
		fmt.Fprintf(n.stdout, "%s: %s..%s %+.2f%%%s\n", cli.Field(r.Series), gitwork.Short(cp.Before.ID), gitwork.Short(cp.After.ID),
			100*cp.Change, what)
		if cp.Regression && w.Tonight && !s.Function() {
			f := changeFinding(s, cp, known[knownChange(r.Series, cp)], accepted)
			f.Evidence += changeFunctions(s, cp)
			findings = append(findings, f)
		}
	}
	return findings
}

// chartedSeries reads the series of q's benchmark, workload and
// environment that the nightly job charts and searches (chartedFigure), each
// its newest changepoint.SearchedPoints points: the others' figures are
// not read.
func chartedSeries(ctx context.Context, db *history.DB, q history.Query) ([]history.Series, error) {
	heads, err := db.SeriesOf(ctx, q)
	if err != nil {
		return nil, err
	}
	var charted []history.Series
	read := map[string]bool{}
	for _, h := range heads {
		// A figure's units are read together.
		if !chartedFigure(h) || read[h.Figure] {
			continue
		}
		read[h.Figure] = true
		q := q
		q.Figure, q.Newest = h.Figure, changepoint.SearchedPoints
		series, err := db.Series(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, s := range series {
			if chartedFigure(s) {
				charted = append(charted, s)
			}
		}
	}
	return charted, nil
}

// alertSeries is what an alert names of a history series.
func alertSeries(s history.Series) alert.Series {
	return alert.Series{Benchmark: s.Benchmark, Figure: s.Figure, Unit: s.Unit, Workload: s.Workload, EnvKey: s.EnvKey}
}

// changeFinding is a change point for the worse of s as an alert's
// finding; known says it was found without tonight's point too.
func changeFinding(s history.Series, cp changepoint.ChangePoint, known bool, accepted []verdictlib.Acceptance) alert.Finding {
	f := alert.Finding{Kind: alert.ChangePoint, Series: alertSeries(s), Known: known,
		Range: alert.Range{From: cp.Before.ID, To: cp.After.ID, FromTime: cp.Before.Time, ToTime: cp.After.Time},
		Size:  cp.Change, Before: cp.MeanBefore, After: cp.MeanAfter,
		Evidence: fmt.Sprintf("Apache Otava: mean %s → %s %s over the stable stretches on either side, p=%.6f",
			numfmt.Number(cp.MeanBefore), numfmt.Number(cp.MeanAfter), s.Unit, cp.Otava.PValue)}
	for _, a := range accepted {
		if a.Benchmark == s.Benchmark && a.Figure == s.Figure {
			f.Accepted = a.Reason
		}
	}
	return f
}

// chartsOf is the series with their change points (results[i], if any) as
// the report charts them.
func chartsOf(all []history.Series, results []changepoint.Result, reportDir, tonight string) []trends.Series {
	var charts []trends.Series
	for i, s := range all {
		var r changepoint.Result
		if i < len(results) {
			r = results[i]
		}
		charts = append(charts, trendSeries(s, r, reportDir, tonight))
	}
	return charts
}

// changeSeries is a history series as the change-point search reads it:
// each point the median of its runs.
func changeSeries(s history.Series) changepoint.Series {
	dir := changepoint.LowerIsBetter
	if !s.LowerIsBetter() {
		dir = changepoint.HigherIsBetter
	}
	// A figure is its name and unit: a Go benchmark line has one of each.
	cs := changepoint.Series{Name: fmt.Sprintf("%s %s (%s; %s, %s)", s.Benchmark, s.Figure, s.Unit, s.Workload, s.EnvKey), Direction: dir}
	for _, p := range s.Points {
		median := result.NewSample(p.Values).Median
		cs.Points = append(cs.Points, changepoint.Point{ID: p.Commit, Time: p.Started, Value: median})
	}
	return cs
}

// trendSeries is a history series and its change points as the report
// charts them. Each point links, relative to the report's page, to its
// night's profiles: the graphs of the night's archived report
// (NIGHT/report/stages/BENCHMARK/; tonight's is archived after the
// report is made), else the night's archived results.
func trendSeries(s history.Series, r changepoint.Result, reportDir, tonight string) trends.Series {
	t := trends.Series{Benchmark: s.Benchmark, Figure: s.Figure, Unit: s.Unit}
	for _, p := range s.Points {
		link := ""
		if filepath.IsAbs(p.Source) {
			target := filepath.Dir(p.Source)
			night := filepath.Dir(target)
			if graphs := filepath.Join(night, nightdir.Report, filepath.FromSlash(nightdir.Stage(s.Benchmark))); night == tonight || isDir(graphs) {
				target = graphs
			}
			if rel, err := filepath.Rel(reportDir, target); err == nil {
				link = filepath.ToSlash(rel) + "/"
			}
		}
		t.Points = append(t.Points, trends.Point{Commit: p.Commit, Time: p.Started, Values: p.Values, Profiles: link})
	}
	for _, cp := range r.ChangePoints {
		t.ChangePoints = append(t.ChangePoints, trends.Change{Index: cp.Index, From: cp.Before.ID, To: cp.After.ID,
			Change: cp.Change, Regression: cp.Regression})
	}
	return t
}

// bisectFindings runs the bisect on each change point new tonight (not
// known, not accepted) whose commit range holds more than one commit, and
// puts the first bad commit in its finding, or in its evidence why there
// is none.
func (n *night) bisectFindings(findings []alert.Finding) {
	started := false
	for i := range findings {
		f := &findings[i]
		if f.Kind != alert.ChangePoint || f.Known || f.Accepted != "" {
			continue
		}
		if !started {
			fmt.Fprintln(n.stdout, "--- :mag: Bisecting the new regressions")
			started = true
		}
		good, bad := f.Range.From, f.Range.To
		count, err := commitsBetween(n.history.checkout, good, bad)
		switch {
		case !n.history.bisect:
			f.Evidence += "; not bisected (no --bisect)"
			continue
		case err != nil:
			f.Evidence += "; not bisected: " + err.Error()
			continue
		case count <= 1:
			f.Evidence += "; the range is one commit"
			continue
		}
		out := filepath.Join(n.artifacts, "bisect-"+f.Benchmark+".json")
		fmt.Fprintf(n.stdout, "%s: bisecting %d commits %s..%s\n", cli.Field(f.Benchmark), count, gitwork.Short(good), gitwork.Short(bad))
		b, err := firstbad.Find(firstbad.Options{Good: good, Bad: bad, Benchmark: f.Benchmark, Builder: "bazel", Repo: n.history.checkout}, n.stderr)
		if err != nil {
			f.Evidence += fmt.Sprintf("; the bisect failed (%v): see the log", err)
			continue
		}
		if err := answer.Write(out, b); err != nil {
			f.Evidence += "; " + err.Error()
		}
		f.FirstBad, f.FirstBadSubject = b.FirstBad.Commit, b.FirstBad.Subject
		f.Evidence += fmt.Sprintf("; bisected: %s %s → %s (%+.2f%%) at the first bad commit", b.Figure,
			numfmt.Number(b.Parent.Median), numfmt.Number(b.FirstBad.Median), 100*b.Change) + commitLines(n.history.checkout, b)
	}
}

// commitsBetween counts the commits in good..bad of the git checkout.
func commitsBetween(checkout, good, bad string) (int, error) {
	out, err := exec.Command("git", "-C", checkout, "rev-list", "--count", good+".."+bad).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return 0, fmt.Errorf("git rev-list %s..%s in %s: %s", good, bad, checkout, strings.TrimSpace(string(exit.Stderr)))
		}
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// copyCapped copies the file at from to to (atomicfile.CopyFile: whole
// or not at all, a piece at a time), mode 0644, refusing a file over a
// result's bound, result.MaxResultBytes: a night copies results, their
// build's event file and the counts of the layout variants, none larger.
func copyCapped(from, to string) error {
	return atomicfile.CopyFile(from, to, 0o644, result.MaxResultBytes)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
