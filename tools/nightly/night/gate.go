package night

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labdir"
	"havlak-lab/internal/markdown"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/reporting"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/trends"
	verdictlib "havlak-lab/tools/verdict"
)

// A night is the gate step of one nightly job.
type night struct {
	artifacts   string // one directory per test, each with its outputs.zip
	baseline    string // the last good night's artifacts
	testsFailed bool   // the night's bazel test failed
	// incomplete names what the night lacks that the gate cannot see
	// (GateOptions.Incomplete).
	incomplete []string
	// retire names the baseline's benchmarks that left the suite on
	// purpose (the report's --retire).
	retire []string
	// checkout is the git checkout of tonight's commit, whose history
	// says which regressions were accepted (Perf-Accepted: trailers).
	checkout string
	// manifest is the suite's benchmarks' manifest, or "" (GateOptions'
	// Manifest).
	manifest string
	stdout   io.Writer
	stderr   io.Writer
	// annotate posts the summary (Buildkite's annotation), or is nil.
	annotate func(style, markdown string) error
	// history is the results history the night enters, or nil;
	// archivedNight is where tonight's results were archived, or "".
	history       *historyConfig
	archivedNight string
	// staleNights is how many of the history's nights a series may go
	// without a point before its alert says it is stale.
	staleNights int
	// lock is the baseline's lock while the gate holds it (lockBaseline),
	// which it waits for up to lockWait; beforeSwap is
	// GateOptions.beforeSwap.
	lock       *labdir.Lock
	lockWait   time.Duration
	beforeSwap func()
	// dashboard is the dashboard's address, or nil: the summary's rows
	// link to its compare page of the baseline and tonight.
	dashboard *url.URL
	// run is what the run's record (runs.go) says of it, filled in as
	// the gate learns it.
	run runState
}

// verdict is what the gates found.
type verdict struct {
	regressed, failed, environmentChanged bool
	// unreadable: a result could not be read (fails the night, as what a
	// gate cannot see).
	unreadable bool
	// alerts: the night entered its findings as alerts, which decided
	// regressed.
	alerts bool
	// layoutUnreadable: the baseline's layout variants, or tonight's, keep
	// what could not be read (readLayoutVariants).
	layoutUnreadable bool
}

// judged is the night's one comparison with its baseline (summary.Join):
// the report's of its programs and servers with the Go benchmarks'
// (compareGoTests) among them, as the night's one summary.json (in its
// report) holds it; nil when neither could be made. reported: the report
// was made.
type judged struct {
	all      *summary.Summary
	reported bool
}

// gate runs the report against the baseline, judges the Go benchmarks
// against theirs (compareGoTests), posts the summary, and makes a good night
// the next baseline. It fails when a benchmark regressed or a step could
// not be made.
func (n *night) gate() error {
	v := &n.run.verdict
	// The night is exactly its results (result.Night): what the gate
	// judges is what the baseline becomes.
	night, err := result.OpenNight(n.artifacts, nightdir.Layout())
	if err != nil {
		return refused("the gate refused the night: its directory is not a night's results alone", err)
	}
	n.run.opened = true
	if err := n.lockBaseline(); err != nil {
		return err
	}
	if err := n.recoverBaseline(); err != nil {
		return err
	}
	found, err := readNight(night)
	n.run.found = found
	if err != nil {
		return err
	}
	n.readNotMeasured(v)
	if err := n.writeExports(found); err != nil {
		fmt.Fprintf(n.stderr, "nightly: the exports: %v\n", err)
		v.failed = true
	}
	// The baseline's results, read once: its commit (for the accepted
	// regressions since) and its Go benchmarks (for the missing ones).
	before := n.readBaseline(v)
	layouts := n.readLayoutVariants(v)
	accepted, err := n.acceptances(before, found)
	if err != nil {
		fmt.Fprintf(n.stderr, "nightly: %s\n", cli.Field(err.Error()))
		v.failed = true
	}
	ctx := context.Background()
	var db *history.DB
	var changes []alert.Finding
	var charts []trends.Series
	if n.history != nil {
		trendsFile := filepath.Join(n.artifacts, nightdir.Trends)
		if db, err = n.history.open(ctx); err == nil {
			defer db.Close()
			changes, charts, err = n.historyStep(ctx, db, found, trendsFile, accepted)
		}
		if err != nil {
			fmt.Fprintf(n.stderr, "nightly: the history: %v\n", err)
			v.failed = true
		}
	}
	// A report that fails must not leave an older night's summary behind.
	if err := os.RemoveAll(n.reportDir()); err != nil {
		return err
	}
	j := n.judge(ctx, db, found, before, layouts, accepted, charts)
	if err := n.archiveReport(); err != nil {
		fmt.Fprintf(n.stderr, "nightly: archiving the report: %v\n", err)
		v.failed = true
	}
	if db != nil {
		n.bisectFindings(changes)
	}
	// The run's record names what the comparison found (judgedBenchmarks).
	n.run.judged = j

	// With a history, what fails the night is its alerts' say: a new
	// regression or change point, or a missing result (tools/alert).
	var tonight []alert.Alert
	if db != nil {
		tonight, v.alerts = n.enterAlerts(ctx, db, changes, found, before, j, v)
		n.run.tonight = tonight
	}
	pair := comparePair(n.dashboard, before, found)
	text := n.summary(found, *v, j, tonight, pair)
	if n.annotate != nil {
		if err := n.annotate(n.annotationStyle(*v, tonight), text); err != nil {
			fmt.Fprintf(n.stderr, "nightly: the annotation failed: %v\n", err)
		}
	}
	fmt.Fprintln(n.stdout, text)

	if n.fails(*v) {
		n.run.baseline = "the night failed: the baseline stays"
		return cli.ExitError{Status: verdictlib.StatusRegressed}
	}
	return n.keepOrPromote(found, tonight)
}

// judge compares the night with its baseline: the report of its programs
// and servers (reportStep), the Go benchmarks (compareGoTests), joined in
// one comparison (judged) that the report's summary.json holds; what
// fails a step fails the night (n.run.verdict).
func (n *night) judge(ctx context.Context, db *history.DB, found, before []result.Found, layouts layoutSet,
	accepted []verdictlib.Acceptance, charts []trends.Series) judged {
	v := &n.run.verdict
	var j judged
	report, err := n.reportStep(ctx, db, found, before, layouts, accepted, charts)
	if err != nil {
		fmt.Fprintf(n.stderr, "nightly: the report: %s\n", cli.Field(err.Error()))
		v.failed = true
	}
	j.reported = err == nil
	fmt.Fprintln(n.stdout, "--- :scales: Go benchmarks against the baseline")
	goTests, err := n.compareGoTests(before, found, accepted)
	if err != nil {
		fmt.Fprintf(n.stderr, "nightly: the Go benchmarks: %s\n", cli.Field(err.Error()))
		v.failed = true
	}
	if j.all = summary.Join(report, goTests); j.all == nil {
		return j
	}
	v.add(j.all)
	// The night's one summary is the report's: without a report, the log
	// and the run's record say what the Go benchmarks' comparison found.
	if j.reported {
		if err := summary.Write(filepath.Join(n.reportDir(), summary.FileName), j.all); err != nil {
			fmt.Fprintf(n.stderr, "nightly: the summary: %v\n", err)
			v.failed = true
		}
	}
	return j
}

// readBaseline reads the baseline's results, if there is a baseline; one
// that cannot be read fails the night (v) and reads as none.
func (n *night) readBaseline(v *verdict) []result.Found {
	if !n.hasBaseline() {
		return nil
	}
	old, err := result.OpenNight(n.baseline, nightdir.Layout())
	var before []result.Found
	if err == nil {
		before, err = readNight(old)
	}
	if err != nil {
		fmt.Fprintf(n.stderr, "nightly: reading the baseline: %v\n", err)
		v.failed = true
	}
	return before
}

// fails says the night fails: a regression, a step not made, a result
// unreadable or missing.
func (n *night) fails(v verdict) bool {
	return v.regressed || v.failed || v.unreadable || v.layoutUnreadable || len(n.incomplete) > 0
}

// annotationStyle is the summary's annotation's style (Buildkite's) for
// the verdict and tonight's alerts.
func (n *night) annotationStyle(v verdict, tonight []alert.Alert) string {
	switch {
	case n.fails(v):
		return "error"
	case v.environmentChanged || len(tonight) > 0:
		return "warning"
	}
	return "success"
}

// readNight reads the night's results, one at a time.
func readNight(night *result.Night) ([]result.Found, error) {
	var found []result.Found
	err := night.Walk(func(f result.Found) error {
		found = append(found, f)
		return nil
	})
	return found, err
}

// enterAlerts enters the night's findings into the history's alerts and
// says whether the night fails on them (v.regressed); it reports whether
// it could. A night none of whose results a shared history takes enters
// no alerts (a pull request must not open or close the lab's alerts): its
// gates' verdicts decide, as without a history.
func (n *night) enterAlerts(ctx context.Context, db *history.DB, changes []alert.Finding, found, before []result.Found, j judged, v *verdict) ([]alert.Alert, bool) {
	fmt.Fprintln(n.stdout, "--- :rotating_light: Alerts")
	if err := trustedOrigins(found); err != nil && db.Access() == history.Shared {
		fmt.Fprintf(n.stdout, "Alerts: none entered into the shared history %s: the night is not a scheduled build of %s.\n", db.Name(), result.TrustedBranch)
		return nil, false
	}
	tonight, err := n.alertStep(ctx, db, changes, found, before, j)
	if err != nil {
		fmt.Fprintf(n.stderr, "nightly: the alerts: %v\n", err)
		v.failed = true
		return nil, false
	}
	for _, a := range tonight {
		fmt.Fprintf(n.stdout, "alert %d: %s %s %s: %s\n", a.ID, a.State(), a.Kind, cli.Field(a.Series.String()), cli.Field(a.ChangeText()))
	}
	v.regressed = alert.Fails(tonight)
	return tonight, true
}

// holding names tonight's alerts that keep the baseline where it is.
func holding(tonight []alert.Alert) []string {
	var ids []string
	for _, a := range tonight {
		if a.HoldsBaseline() {
			ids = append(ids, fmt.Sprint(a.ID))
		}
	}
	return ids
}

// trustedOrigins refuses a night any of whose results comes from another
// origin than a scheduled build of main (result.Origin.Trusted): a pull
// request's numbers, or a workstation's, must never become what later
// nights are judged against (docs/security.md).
func trustedOrigins(found []result.Found) error {
	var untrusted []string
	for _, f := range found {
		if f.Err != nil {
			continue
		}
		if ok, why := f.Result.Environment.Origin.Trusted(); !ok {
			untrusted = append(untrusted, fmt.Sprintf("%s: %s", f.Path, why))
		}
	}
	if len(untrusted) == 0 {
		return nil
	}
	return fmt.Errorf("this night is not promoted to baseline: only a scheduled build of %s may move it (docs/security.md), and %d of its %d results come from elsewhere:\n  %s",
		result.TrustedBranch, len(untrusted), len(found), strings.Join(untrusted, "\n  "))
}

// acceptances are the regressions the commits since the baseline's (its
// results, before) declare intended (Perf-Accepted: trailers,
// verdict.ParseTrailers): what the perf check of their change let pass,
// the night does not call a regression. Commits it cannot read accept
// nothing, and the log says why in one line: outside a git checkout (a
// team trying the lab on a copy of it), that no trailer can be read
// there. A trailer it cannot parse is an error naming the line, as in
// the perf check: a typo must not turn an intended change into a red
// night, nor pass unnoticed.
func (n *night) acceptances(before, found []result.Found) ([]verdictlib.Acceptance, error) {
	from, to := commitOf(before), commitOf(found)
	if from == "" || to == "" || from == to || n.checkout == "" {
		return nil, nil
	}
	switch ok, err := gitwork.Repo(n.checkout).IsCheckout(); {
	case err != nil:
		fmt.Fprintf(n.stdout, "Accepted regressions: none read (%v)\n", err)
		return nil, nil
	case !ok:
		dir, _ := filepath.Abs(n.checkout)
		fmt.Fprintf(n.stdout, "Accepted regressions: none: the commits' trailers (%s) cannot be read, as %s is not a git checkout; "+
			"no regression is accepted by a commit tonight.\n", verdictlib.TrailerKey, cli.Field(dir))
		return nil, nil
	}
	messages, err := gitwork.Repo(n.checkout).Output("log", "--format=%B", from+".."+to)
	if err != nil {
		fmt.Fprintf(n.stdout, "Accepted regressions: none read (%v)\n", err)
		return nil, nil
	}
	accepted, err := verdictlib.ParseTrailers(messages)
	if err != nil {
		return nil, fmt.Errorf("a trailer of the commits since the baseline, %s..%s: %w", gitwork.Short(from), gitwork.Short(to), err)
	}
	for _, a := range accepted {
		fmt.Fprintf(n.stdout, "Accepted by a commit since the baseline: %s %s: %s\n", cli.Field(a.Benchmark), cli.Field(a.Figure), cli.Field(a.Reason))
	}
	return accepted, nil
}

// commitOf is the commit the first readable result of all was built at,
// or "".
// comparePair is the dashboard's compare page of the baseline's results
// and tonight's: by their commits, or, when both nights measured the same
// commit (no commit since the baseline), by their nights' dates, which
// the compare page takes too (a commit names its newest results only, so
// that a=C&b=C would compare tonight with itself).
func comparePair(dashboard *url.URL, before, found []result.Found) summary.Pair {
	pair := summary.Pair{Dashboard: dashboard, Base: commitOf(before), Change: commitOf(found)}
	if pair.Base != "" && pair.Base == pair.Change {
		if a, b := dayOf(before), dayOf(found); a != "" && b != "" && a != b {
			pair.Base, pair.Change = a, b
		}
	}
	return pair
}

// dayOf is the UTC date the night's first result started, 2026-11-20:
// the night as the dashboard's compare page names it.
func dayOf(all []result.Found) string {
	first := firstStarted(all)
	if first.IsZero() {
		return ""
	}
	return first.Format(time.DateOnly)
}

func commitOf(all []result.Found) string {
	for _, f := range all {
		if f.Err == nil && f.Result.Environment.Source.Commit != "" {
			return f.Result.Environment.Source.Commit
		}
	}
	return ""
}

// compareGoTests judges the night's Go benchmarks (go_test results, whose
// figures are their benchmark lines, result.Figures) against the
// baseline's by the lab's one comparison (summary.Compare), in this
// process: the report judges the programs and servers, and the gate
// joins the two (judge). It writes its failing figures into the log.
func (n *night) compareGoTests(before, found []result.Found, accepted []verdictlib.Acceptance) (*summary.Summary, error) {
	base, err := goTestSides(before)
	if err != nil {
		return nil, err
	}
	tonight, err := goTestSides(found)
	if err != nil {
		return nil, err
	}
	// The report checks --retire against the programs and servers.
	var retire []string
	for _, name := range n.retire {
		if slices.ContainsFunc(base, func(s summary.Side) bool { return s.Benchmark.Name == name }) {
			retire = append(retire, name)
		}
	}
	s, err := summary.Compare("nightly", n.baseline, base, tonight, summary.Options{Policy: verdictlib.Lab,
		Accepted: accepted, Retire: retire, Lacking: "tonight has no result of it"})
	if err != nil {
		return nil, err
	}
	for _, b := range s.Benchmarks {
		switch {
		case b.Gone() && !b.Retired:
			fmt.Fprintf(n.stdout, "%s MISSING: %s\n", cli.Field(b.Name), cli.Field(b.Note))
		case b.Fails():
			// Each figure by what it failed on: regressed, a gated
			// figure missing, or inconsistent.
			for _, f := range b.Failing() {
				fmt.Fprintf(n.stdout, "%s %s: %s\n", cli.Field(b.Name), f.Outcome, cli.Field(f.String()))
			}
		default:
			fmt.Fprintf(n.stdout, "%s: %s\n", cli.Field(b.Name), cli.Field(b.Label()))
		}
	}
	return s, nil
}

// goTestSides are the Go benchmarks among results, as sides of the
// comparison.
func goTestSides(results []result.Found) ([]summary.Side, error) {
	var sides []summary.Side
	for _, f := range results {
		if f.Err != nil || f.Result.Benchmark.Kind != result.KindGoTest {
			continue // the report names the unreadable ones
		}
		side, err := summary.NewSide(f.Result, f.Outputs, f.Path)
		if err != nil {
			return nil, err
		}
		sides = append(sides, side)
	}
	return sides, nil
}

// reportStep makes the report of the night's programs and servers against
// the baseline's (tools/reporting, in this process), both read
// once by the gate (found, before); the history, when there is one,
// calibrates the thresholds with the baseline's recent nights of the same
// binaries (docs/noise.md), and the baseline's layout variants (layouts)
// those of the figures layout moves, tonight's binaries being others
// (calibrateLayout); its charts are the report's trends.
func (n *night) reportStep(ctx context.Context, db *history.DB, found, before []result.Found, layouts layoutSet, accepted []verdictlib.Acceptance, charts []trends.Series) (*summary.Summary, error) {
	fmt.Fprintln(n.stdout, "--- :bar_chart: Report")
	set, err := model.Of("", found)
	if err != nil {
		return nil, err
	}
	if set.Empty() {
		return nil, fmt.Errorf("%s holds no result of a program or a server to report", n.artifacts)
	}
	o := reporting.Options{Set: set, Sources: []string{n.artifacts}, Trends: charts, Out: n.reportDir(), Log: n.stdout,
		Gate: model.Gate{Threshold: model.DefaultThreshold, RSSThreshold: model.DefaultRSSThreshold, Accepted: accepted}}
	if !n.hasBaseline() {
		fmt.Fprintf(n.stdout, "No baseline yet (%s): nothing to compare with.\n", cli.Field(n.baseline))
		return reporting.Write(o)
	}
	fmt.Fprintf(n.stdout, "Baseline: %s\n", cli.Field(n.baseline))
	if o.Baseline, err = model.Of(set.Workload, before); err != nil {
		return nil, err
	}
	o.BaselineDir, o.Retire = n.baseline, n.retire
	n.run.layoutUnknown = calibrateLayout(reportSides(o.Baseline), layouts, identities(set))
	for _, line := range n.run.layoutUnknown {
		fmt.Fprintf(n.stdout, "Layout noise unknown, its figures that layout moves judged without it: %s\n", cli.Field(line))
	}
	if db != nil {
		o.Gate.Recent = reporting.Recent(ctx, db)
	}
	return reporting.Write(o)
}

// writeMoved says what moved since the baseline for the benchmarks not
// compared, as the night's comparison (all, nil when none was made)
// tallies them (summary.NotCompared): another version of the lab, by name,
// whose every figure restarts, apart from another environment, whose
// timings restart; both when both.
func writeMoved(s *strings.Builder, all *summary.Summary, alerts bool) {
	moved := summary.NotComparedTally{Environment: 1}
	if all != nil {
		moved = summary.NotCompared(all.Benchmarks)
	}
	if moved.Lab > 0 {
		benchmarks := "benchmarks"
		if moved.Lab == 1 {
			benchmarks = "benchmark"
		}
		fmt.Fprintf(s, "\n\n**%d %s %s** (the lab's versions named above): none of their figures was compared, "+
			"every one restarts tonight, and a good night becomes the new baseline.", moved.Lab, benchmarks, markdown.Escape(result.AnotherLab))
	}
	if moved.Environment > 0 || moved.LabAndEnvironment > 0 {
		s.WriteString("\n\n**Environment changed** since the baseline (machine or toolchains, named above): " +
			"those benchmarks were not compared, their timings restart tonight, and a good night becomes the new baseline.")
	}
	if alerts {
		s.WriteString(" The change is an alert for triage (environment change): it does not fail the night, and stays open until someone closes it.")
	}
}

// add adds what a comparison found to v.
func (v *verdict) add(s *summary.Summary) {
	v.regressed = v.regressed || len(s.Regressed()) > 0
	v.unreadable = v.unreadable || len(s.Unreadable) > 0
	v.environmentChanged = v.environmentChanged || len(s.EnvironmentChanged()) > 0
}

// summary is the night's Markdown summary: the commit and machine, the
// report's table, and what the gates found; the tables' rows link to the
// dashboard's compare page of pair.
func (n *night) summary(found []result.Found, v verdict, j judged, tonight []alert.Alert, pair summary.Pair) string {
	commit, hosts := "unknown", []string{}
	for _, f := range found {
		if f.Err != nil {
			continue
		}
		env := f.Result.Environment
		if c := env.Source.Commit; c != "" && commit == "unknown" {
			commit = gitwork.Short(c)
			if env.Source.Dirty {
				commit += ", with uncommitted changes"
			}
		}
		// A sharded night (nightly merge) ran on several machines.
		if !slices.Contains(hosts, env.Machine.Hostname) {
			hosts = append(hosts, env.Machine.Hostname)
		}
	}
	host := "unknown"
	if len(hosts) > 0 {
		slices.Sort(hosts)
		host = strings.Join(hosts, ", ")
	}
	var s strings.Builder
	fmt.Fprintf(&s, "**Nightly benchmarks** (commit %s, %s)\n\n", markdown.Escape(commit), markdown.Escape(host))
	if !j.reported {
		s.WriteString("(no report: see the log)\n")
	}
	// Without a report, the Go benchmarks' table when it says more than
	// that they passed.
	if a := j.all; a != nil && (j.reported || len(a.Regressed()) > 0 || len(a.EnvironmentChanged()) > 0) {
		a.WriteMarkdown(&s, pair)
	}
	if len(n.incomplete) > 0 {
		s.WriteString("\n\n**The night is incomplete**: it fails, and never becomes the baseline.\n")
		for _, line := range n.incomplete {
			fmt.Fprintf(&s, "\n- %s", markdown.Escape(line))
		}
		s.WriteString("\n")
	}
	if v.regressed {
		s.WriteString("\n**Regressions**: see the log and report/report.md among the artifacts.")
	}
	if v.alerts {
		n.writeAlerts(&s, tonight, n.history.name)
	}
	if v.environmentChanged {
		writeMoved(&s, j.all, v.alerts)
	}
	if len(n.run.layoutUnknown) > 0 {
		s.WriteString("\n\n**Layout noise unknown**: these programs' cache misses were judged by their thresholds " +
			"without the baseline's layout noise, so a move that layout alone makes can fail them:\n")
		for _, line := range n.run.layoutUnknown {
			fmt.Fprintf(&s, "\n- %s", markdown.Escape(line))
		}
	}
	if v.layoutUnreadable {
		s.WriteString("\n\n**Layout variants could not be read**: " + markdown.Escape(strings.Join(n.run.layoutRefused, ", ")) +
			" (see the log).")
	}
	writeNotMeasured(&s, n.run.notMeasured)
	if v.failed {
		s.WriteString("\n\n**A gate could not run**: see the log.")
	}
	return s.String()
}

// readNotMeasured reads which of the suite's benchmarks nothing counts,
// and why, from its manifest (perfspec.Manifest.NotMeasured), when the
// gate has one: what no gate judges is named, never left out. A manifest
// it cannot read fails the night (v.failed).
func (n *night) readNotMeasured(v *verdict) {
	if n.manifest == "" {
		return
	}
	m, err := perfspec.ReadManifest(n.manifest)
	if err != nil {
		fmt.Fprintf(n.stderr, "nightly: the benchmarks' manifest, which names those not measured: %s\n", cli.Field(err.Error()))
		v.failed = true
		return
	}
	n.run.notMeasured = m.NotMeasured()
}

// writeNotMeasured writes the summary's part on the benchmarks nothing
// counts: "NAME: not measured: WHY" a line.
func writeNotMeasured(s *strings.Builder, not []perfspec.NotMeasured) {
	if len(not) == 0 {
		return
	}
	s.WriteString("\n\n**Not counted**: no gate judges these benchmarks' counts (the night times them " +
		"at full size, no more); their declarations say why:\n")
	for _, b := range not {
		fmt.Fprintf(s, "\n- %s", markdown.Escape(b.String()))
	}
}
