package night

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labdir"
	"havlak-lab/internal/markdown"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
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

// judged is the comparisons of the night: the report's of its programs
// and servers, and the Go benchmarks' (compareGoTests); each nil when it
// could not be made.
type judged struct {
	report, goTests *summary.Summary
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
	var j judged
	// A report that fails must not leave an older night's summary behind.
	if err := os.RemoveAll(n.reportDir()); err != nil {
		return err
	}
	if j.report, err = n.reportStep(ctx, db, found, before, layouts, accepted, charts); err != nil {
		fmt.Fprintf(n.stderr, "nightly: the report: %s\n", cli.Field(err.Error()))
		v.failed = true
	} else {
		v.add(j.report)
	}
	if err := n.archiveReport(); err != nil {
		fmt.Fprintf(n.stderr, "nightly: archiving the report: %v\n", err)
		v.failed = true
	}
	if db != nil {
		n.bisectFindings(changes)
	}

	fmt.Fprintln(n.stdout, "--- :scales: Go benchmarks against the baseline")
	if j.goTests, err = n.compareGoTests(before, found, accepted); err != nil {
		fmt.Fprintf(n.stderr, "nightly: the Go benchmarks: %s\n", cli.Field(err.Error()))
		v.failed = true
	} else {
		v.add(j.goTests)
	}
	// The run's record names what the comparisons found (judgedBenchmarks).
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

// keepOrPromote makes the night that did not fail the next baseline,
// unless its tests failed, a result is not trusted, or an alert tonight
// holds the baseline.
func (n *night) keepOrPromote(found []result.Found, tonight []alert.Alert) error {
	if n.testsFailed {
		fmt.Fprintln(n.stdout, "Tests failed tonight: the baseline stays.")
		n.run.baseline = "tests failed tonight: the baseline stays"
		return nil
	}
	// Refused, not failed: the night's figures were judged all the same.
	if err := trustedOrigins(found); err != nil {
		fmt.Fprintf(n.stdout, "The baseline stays: %v\n", err)
		n.run.baseline = "the night is not a scheduled build of " + result.TrustedBranch + ": the baseline stays"
		return nil
	}
	if held := holding(tonight); len(held) > 0 {
		n.run.baseline = "alerts " + strings.Join(held, ", ") + " hold the baseline"
		fmt.Fprintf(n.stdout, "The baseline stays: alerts %s are regressions against it, neither fixed nor accepted; "+
			"it moves when they are (an accepted one's new level becomes the baseline).\n", strings.Join(held, ", "))
		return nil
	}
	fmt.Fprintln(n.stdout, "--- :floppy_disk: This night becomes the baseline")
	if err := n.promote(found); err != nil {
		n.run.baseline = "the promotion failed: the baseline stays"
		return err
	}
	n.run.promoted, n.run.baseline = true, "this night became the baseline"
	return nil
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
// process: the report judges the programs and servers. It writes the
// comparison into the night (nightdir.Benchgate) and its failing
// figures into the log.
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
	file := filepath.Join(n.artifacts, nightdir.Benchgate, summary.FileName)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	return s, summary.Write(file, s)
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
	if j.report != nil {
		j.report.WriteMarkdown(&s, pair)
	} else {
		s.WriteString("(no report: see the log)\n")
	}
	if g := j.goTests; g != nil && (len(g.Regressed()) > 0 || len(g.EnvironmentChanged()) > 0) {
		s.WriteString("\n**Go benchmarks**\n\n")
		g.WriteMarkdown(&s, pair)
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
		s.WriteString("\n\n**Environment changed** since the baseline (machine or toolchains, named above): " +
			"those benchmarks were not compared, their timings restart tonight, and a good night becomes the new baseline.")
		if v.alerts {
			s.WriteString(" The change is an alert for triage (environment change): it does not fail the night, and stays open until someone closes it.")
		}
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
	if v.failed {
		s.WriteString("\n\n**A gate could not run**: see the log.")
	}
	return s.String()
}

// promote makes the night's results, found (exactly those judged), the
// baseline: it copies each into a new directory beside the baseline,
// synced to disk (copyBaseline), reads every copy back through
// tools/result and checks that it is the result judged, and only then
// swaps it in: the old baseline is renamed aside, the new one renamed
// in, the swap synced and read back there, the old one removed. A failure at any step leaves the old baseline where it was
// (recoverBaseline finishes a swap a crash interrupted). The gate holds
// the baseline's lock: no other gate writes beside it meanwhile.
func (n *night) promote(found []result.Found) error {
	var take []result.Found
	for _, f := range found {
		if f.Err == nil {
			take = append(take, f)
		}
	}
	if len(take) == 0 {
		return fmt.Errorf("%s: no results to make the baseline of; the baseline stays", n.artifacts)
	}
	parent := filepath.Dir(n.baseline)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := n.recoverBaseline(); err != nil {
		return err
	}
	// The name is labdir.Leftover's: what a promotion killed here leaves,
	// the next gate removes (recoverBaseline).
	fresh, err := os.MkdirTemp(parent, "."+filepath.Base(n.baseline)+".new-")
	if err != nil {
		return fmt.Errorf("%w; the baseline stays", err)
	}
	defer os.RemoveAll(fresh) // gone already once swapped in
	if err := copyBaseline(fresh, n.artifacts, take); err != nil {
		return fmt.Errorf("the new baseline %s: %w; the baseline stays", fresh, err)
	}
	if err := checkLayoutCopy(n.artifacts, fresh); err != nil {
		return fmt.Errorf("the new baseline %s: %w; the baseline stays", fresh, err)
	}
	if n.beforeSwap != nil {
		n.beforeSwap()
	}
	// The renames go through atomicfile, whose fault points the tests
	// fail and stop at (docs/records/faults.md).
	old := n.baseline + ".old"
	had := exists(n.baseline)
	if had {
		if err := atomicfile.Rename(n.baseline, old); err != nil {
			return fmt.Errorf("%w; the baseline stays", err)
		}
	}
	if err := atomicfile.Rename(fresh, n.baseline); err != nil {
		if had {
			if back := atomicfile.Rename(old, n.baseline); back != nil {
				return fmt.Errorf("%w; putting the baseline back from %s: %v (the next gate tries again)", err, old, back)
			}
		}
		return fmt.Errorf("%w; the baseline stays", err)
	}
	// The record says promoted only once the swap is on disk: a crash
	// after it must not bring the old baseline back under a record that
	// says the night is the baseline.
	if err := atomicfile.SyncDir(parent); err != nil {
		return n.unswap(fresh, old, had, fmt.Errorf("the baseline %s after the swap: %w", n.baseline, err))
	}
	// What the night's record says promoted is what the baseline holds:
	// read back where the next gate reads it.
	if err := errors.Join(verifyCopy(n.baseline, take), checkLayoutCopy(n.artifacts, n.baseline)); err != nil {
		return n.unswap(fresh, old, had, fmt.Errorf("the baseline %s after the swap: %w", n.baseline, err))
	}
	if err := os.RemoveAll(old); err != nil {
		fmt.Fprintf(n.stderr, "nightly: the old baseline %s stays behind (the next gate removes it): %v\n", old, err)
	}
	return nil
}

// copyBaseline copies the results, take, and the layout variants of the
// night in artifacts (they calibrate the next night, layout.go) into
// fresh, marked as a baseline, syncs them to disk with the directories
// that name them, and reads every result back through tools/result,
// checking that it is the result judged.
func copyBaseline(fresh, artifacts string, take []result.Found) error {
	if err := os.Chmod(fresh, 0o755); err != nil {
		return err
	}
	if err := labdir.Mark(fresh, labdir.Baseline); err != nil {
		return err
	}
	var dirs []string
	for _, f := range take {
		dir := filepath.Join(fresh, result.Test(f))
		if err := copyCapped(f.Path, result.NightZip(fresh, result.Test(f))); err != nil {
			return err
		}
		dirs = append(dirs, dir)
	}
	variants, err := copyLayoutVariants(artifacts, fresh)
	if err != nil {
		return err
	}
	for _, dir := range append(append(dirs, variants...), fresh) {
		if err := atomicfile.SyncDir(dir); err != nil {
			return err
		}
	}
	return verifyCopy(fresh, take)
}

// verifyCopy reads the copies in dir back as a night and checks that they
// are the results judged, want, and no others.
func verifyCopy(dir string, want []result.Found) error {
	copied, err := result.OpenNight(dir, nightdir.Layout())
	if err != nil {
		return err
	}
	judged := map[string]*result.Result{}
	for _, f := range want {
		judged[result.Test(f)] = f.Result
	}
	seen := 0
	err = copied.Walk(func(f result.Found) error {
		switch r, ok := judged[result.Test(f)]; {
		case f.Err != nil:
			return f.Err
		case !ok:
			return fmt.Errorf("%s: a result that was not judged", f.Path)
		case !reflect.DeepEqual(f.Result, r):
			return fmt.Errorf("%s: not the result judged (its outputs.zip changed since)", f.Path)
		}
		seen++
		return nil
	})
	if err == nil && seen != len(want) {
		err = fmt.Errorf("%d of the %d results judged read back", seen, len(want))
	}
	return err
}

// unswap puts the old baseline back after a swap whose new baseline did
// not read back (the next gate removes the new one, at its leftover's
// name again, fresh, if this fails), and returns err.
func (n *night) unswap(fresh, old string, had bool, err error) error {
	if back := atomicfile.Rename(n.baseline, fresh); back != nil {
		return fmt.Errorf("%w; moving it aside: %v (the next gate tries again)", err, back)
	}
	if had {
		if back := atomicfile.Rename(old, n.baseline); back != nil {
			return fmt.Errorf("%w; putting the baseline back from %s: %v (the next gate tries again)", err, old, back)
		}
	}
	if back := atomicfile.SyncDir(filepath.Dir(n.baseline)); back != nil {
		return fmt.Errorf("%w; the baseline is back, but %v", err, back)
	}
	return fmt.Errorf("%w; the baseline stays", err)
}

// lockBaseline takes the baseline's lock (labdir.TakeLock) for the rest
// of the gate, before it reads the baseline: from reading it to the
// promotion and the history's writes, one gate at a time judges and
// moves a baseline. While another gate holds it, the log says whose the
// lock is, and the gate waits up to lockWait; then it is refused, named.
func (n *night) lockBaseline() error {
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on %s, gating %s since %s", os.Getpid(), host, n.artifacts, n.run.started.UTC().Format(time.RFC3339))
	path := labdir.LockPath(n.baseline)
	var waitedFrom time.Time
	lock, err := labdir.TakeLock(n.baseline, labdir.Baseline, holder, n.lockWait, func(other string) {
		waitedFrom = time.Now()
		fmt.Fprintf(n.stdout, "The baseline %s is another gate's (%s): this gate waits up to %s (--lock-wait) for its lock %s.\n",
			cli.Field(n.baseline), cli.Field(lockHolder(other)), n.lockWait, cli.Field(path))
	})
	var held *labdir.HeldError
	if errors.As(err, &held) {
		return refused(refusedLocked, fmt.Errorf("the baseline %s: another gate (%s) held its lock %s for all of --lock-wait %s: refused, the night not judged and the baseline left to that gate",
			n.baseline, lockHolder(held.Holder), path, n.lockWait))
	}
	if err != nil {
		return refused(refusedBaseline, err)
	}
	n.lock = lock
	if !waitedFrom.IsZero() {
		fmt.Fprintf(n.stdout, "The baseline's lock is this gate's, after waiting %s.\n", time.Since(waitedFrom).Round(time.Millisecond))
	}
	return nil
}

// lockHolder is what the log says of the gate that holds the baseline's
// lock, whose lock file says holder.
func lockHolder(holder string) string {
	if holder == "" {
		return "its lock file does not say which"
	}
	return holder
}

// recoverBaseline removes what a promotion killed before its renames
// left beside the baseline (its new copy, a zip half-written) and
// finishes one that stopped between its renames: with the baseline gone
// and the old one aside, the old one goes back; with both, the new one
// was whole and the old one goes. Gate has refused an old one that is not
// the lab's (stateDirs). It runs holding the baseline's lock, which
// proves their writer gone: without it, it refuses.
func (n *night) recoverBaseline() error {
	if !n.lock.Held() {
		return fmt.Errorf("recovering the baseline %s without its lock: refused, as its writer may be alive", n.baseline)
	}
	removed, err := n.lock.RemoveLeftovers()
	for _, path := range removed {
		fmt.Fprintf(n.stdout, "Removed %s, which an interrupted promotion left behind.\n", cli.Field(path))
	}
	if err != nil {
		return err
	}
	old := n.baseline + ".old"
	switch {
	case !exists(old):
		return nil
	case !exists(n.baseline):
		fmt.Fprintf(n.stdout, "The baseline is back from %s, where an interrupted promotion left it.\n", old)
		if err := atomicfile.Rename(old, n.baseline); err != nil {
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(n.baseline))
	}
	return os.RemoveAll(old)
}

// hasBaseline tells whether there is a baseline to compare with: a
// directory holding anything but the lab's marker. An empty one is none.
func (n *night) hasBaseline() bool {
	entries, err := os.ReadDir(n.baseline)
	return err == nil && slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() != labdir.Marker })
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
