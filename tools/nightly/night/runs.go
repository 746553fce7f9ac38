package night

// The run's record (tools/runrecord, docs/nightly.md#the-runs-record):
// what the gate learns of the run as it goes (runState), written when it
// ends, whatever the ending, into the night's artifacts and into the
// night's directory of the history's archive, where the dashboard's
// landing page reads it. A night that archived nothing (every shard
// failed, the history refused or could not be opened) gets its directory
// there all the same, holding its record alone: a run that failed is
// shown, never hidden. So does a run refused before its night was read
// (a refusal): its options, its night's directory, its baseline or its
// merge's shards; its record goes into the archive alone, since what was
// offered as the night may be no directory the lab made. A night refused
// the baseline's lock (lockBaseline) was opened as a night's results
// first: its record goes into its artifacts too.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
	"havlak-lab/tools/summary"
	verdictlib "havlak-lab/tools/verdict"
)

// runState is what the gate knows of the run so far.
type runState struct {
	// started is when the gate started.
	started time.Time
	// sharded: the night was merged from the map's shards, each as the
	// merge found it.
	sharded bool
	shards  []runrecord.Shard
	// opened: the gate read the night (result.OpenNight); a night it
	// refused is written nothing, and its record goes to the history's
	// archive alone.
	opened bool
	found  []result.Found
	// verdict is what the gates found; judged their comparisons with the
	// baseline, and tonight the alerts the night found, when it entered
	// them (verdict.alerts).
	verdict verdict
	judged  judged
	tonight []alert.Alert
	// promoted: the night became the baseline; baseline says what became
	// of the baseline.
	promoted bool
	baseline string
	// layoutUnknown names the benchmarks judged without the baseline's
	// layout noise, and why (calibrateLayout); layoutRefused the layout
	// variants that could not be read, whose (readLayoutVariants).
	layoutUnknown, layoutRefused []string
	// collectFailed: nightly collect failed (GateOptions.CollectFailed).
	collectFailed bool
	// notMeasured are the suite's benchmarks nothing counts, as its
	// manifest says (readNotMeasured).
	notMeasured []perfspec.NotMeasured
}

// collectFailedLine is what the summary says of a night whose collect
// failed.
const collectFailedLine = "nightly collect failed: the night may lack results its tests made (see the log)"

// What a refusal of the baseline or of the history's directory says in
// the run's record: in words, without the agent's paths, which the log
// has.
const (
	refusedBaseline = "the gate refused the baseline"
	refusedHistory  = "the gate refused the history's directory"
	refusedLocked   = "the gate refused the night: another gate held its baseline for all of --lock-wait"
)

// A refusal is an error that ended the run before the gate read the
// night, with what the run's record says of it (why, without the paths
// the error names: the dashboard shows the record to whoever reaches
// it). It is its error in every other way.
type refusal struct {
	why string
	err error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// refused is err, which ended the run before the night was read, with
// what the run's record says of it; nil for none.
func refused(why string, err error) error {
	if err == nil {
		return nil
	}
	return &refusal{why: why, err: err}
}

// refusedNight is what records a run refused, started then, before its
// night was read: its writers, its shards (a merge's) and the history
// whose archive takes its record (refusedHistory), and nothing else.
func (o GateOptions) refusedNight(started time.Time) *night {
	return &night{
		checkout: cli.UserPath("."),
		stdout:   cli.Terminal(o.Stdout),
		stderr:   cli.Terminal(o.Stderr),
		history:  o.refusedHistory(),
		run:      runState{started: started, sharded: o.Sharded, shards: o.Shards},
	}
}

// refusedHistory is the history whose archive records a run refused
// before its night was read, or nil: its directory cannot be found, is
// not a directory, or is, holds or is inside what was offered as the
// night, into which nothing is written.
func (o GateOptions) refusedHistory() *historyConfig {
	dir := o.HistoryDir
	if dir == "" {
		var err error
		if dir, err = history.LocalDir(); err != nil {
			return nil
		}
	}
	dir = cli.UserPath(dir)
	if checkHistoryDir(cli.UserPath(o.Artifacts), dir) != nil {
		return nil
	}
	return o.historyConfig(dir)
}

// runRecord is the run's record, the gate having ended with err.
func (n *night) runRecord(err error) *runrecord.Record {
	rs := &n.run
	r := &runrecord.Record{Finished: time.Now().UTC(), Commit: commitOf(rs.found), Sharded: rs.sharded, Shards: rs.shards,
		Results: len(rs.found), ExitStatus: cli.Status(err), Promoted: rs.promoted, Baseline: rs.baseline,
		ChangePoints: runrecord.ChangePointsOff, LayoutUnknown: rs.layoutUnknown}
	if n.history != nil && n.history.changePoints() {
		r.ChangePoints = runrecord.ChangePointsOn
	}
	r.Started = firstStarted(rs.found)
	if r.Started.IsZero() || r.Started.After(r.Finished) {
		r.Started = rs.started.UTC()
	}
	if r.Commit == "" {
		r.Commit = n.checkoutCommit()
	}
	for _, f := range rs.found {
		if f.Err != nil {
			r.Unreadable++
		}
	}
	// A refusal ends the run before the gate reads the night, opened or
	// not: the baseline's lock, taken once the night is opened, refuses
	// too (lockBaseline).
	if !rs.opened || errors.As(err, new(*refusal)) {
		return refusalRecord(r, err)
	}
	v := rs.verdict
	if r.Results == 0 {
		r.Reasons = append(r.Reasons, "the night holds no result")
	}
	if n.testsFailed {
		r.Reasons = append(r.Reasons, "the night's tests failed")
	}
	if n.run.collectFailed {
		r.Reasons = append(r.Reasons, collectFailedLine)
	}
	if rs.sharded && len(n.incomplete) > 0 {
		failed := 0
		for _, s := range rs.shards {
			if s.State != runrecord.Reported {
				failed++
			}
		}
		r.Reasons = append(r.Reasons, fmt.Sprintf("the night is incomplete: %d shards failed or never reported", failed))
	}
	for _, b := range rs.notMeasured {
		r.NotMeasured = append(r.NotMeasured, runrecord.NotMeasured{Name: b.Benchmark, Why: b.Why})
	}
	r.Benchmarks = judgedBenchmarks(rs.judged, v.alerts, rs.tonight)
	failedOn := failingReasons(r.Benchmarks)
	if v.alerts {
		failedOn = append(failedOn, alertReasons(rs.tonight, r.Benchmarks)...)
	}
	if v.regressed && len(failedOn) == 0 {
		// Fail closed: a verdict this record cannot name still fails it.
		failedOn = append(failedOn, "a gate failed the night on what this record cannot name (see the log)")
	}
	r.Reasons = append(r.Reasons, failedOn...)
	if v.unreadable || r.Unreadable > 0 {
		r.Reasons = append(r.Reasons, "a result could not be read")
	}
	if v.layoutUnreadable {
		r.Reasons = append(r.Reasons, "layout variants could not be read: "+strings.Join(rs.layoutRefused, ", "))
	}
	if v.failed {
		r.Reasons = append(r.Reasons, "a gate could not run (see the log)")
	}
	if err != nil && len(r.Reasons) == 0 {
		// Not the error itself: it names the agent's paths, and the
		// dashboard shows the record to whoever reaches it.
		r.Reasons = append(r.Reasons, "the gate stopped on an error (see the log)")
	}
	switch {
	case r.Results == 0:
		r.Status = runrecord.NoResults
	case len(r.Reasons) > 0:
		r.Status = runrecord.Failed
	default:
		r.Status = runrecord.Passed
	}
	if r.Baseline == "" && r.Status != runrecord.Passed {
		r.Baseline = "the baseline stays"
	}
	return r
}

// judgedBenchmarks are what the night's comparison with the baseline (j)
// found of each benchmark that fails them, a figure each, or the whole
// benchmark when it is gone, by verdict's outcomes (missing, regressed,
// inconsistent); and of each not compared for another version of the lab
// or another environment than the baseline's (not comparable, failing
// nothing); worst first, as the comparison's table orders them
// (summary.Table, summary.Worse). A failing one fails the night unless
// the night's alerts decided it (alertsDecide), and none of tonight's
// that fails is of it: its alert is known (acknowledged, say).
func judgedBenchmarks(j judged, alertsDecide bool, tonight []alert.Alert) []runrecord.Benchmark {
	var all []runrecord.Benchmark
	if j.all != nil {
		for _, b := range j.all.Table().Benchmarks {
			whole := runrecord.Benchmark{Name: b.Name, Workload: b.Workload}
			switch {
			case b.Retired:
				continue
			case b.Gone():
				whole.Outcome = verdictlib.Missing
				all = append(all, whole)
			case b.EnvironmentChanged():
				whole.Outcome = verdictlib.NotComparable
				all = append(all, whole)
			}
			failing := b.Failing()
			slices.SortStableFunc(failing, func(x, y verdictlib.Verdict) int {
				return summary.Worse(b.FigureSeverity(x), b.FigureSeverity(y))
			})
			for _, f := range failing {
				all = append(all, runrecord.Benchmark{Name: b.Name, Workload: b.Workload, Figure: f.Figure, Unit: f.Unit, Outcome: f.Outcome})
			}
		}
	}
	for i := range all {
		b := &all[i]
		b.Fails = b.Outcome != verdictlib.NotComparable &&
			(!alertsDecide || slices.ContainsFunc(tonight, func(a alert.Alert) bool { return a.Fails() && alertOf(a, *b) }))
	}
	return all
}

// alertOf tells whether a is the alert of b, a benchmark's figure as the
// gates judged it: a missing alert of what is missing, a regression of
// what regressed or is inconsistent. A missing alert names no unit; one
// of a benchmark gone names the baseline's workload, which the gone
// benchmark's comparison does not.
func alertOf(a alert.Alert, b runrecord.Benchmark) bool {
	if a.Benchmark != b.Name || a.Figure != b.Figure || b.Workload != "" && a.Workload != b.Workload {
		return false
	}
	switch a.Kind {
	case alert.Missing:
		return b.Outcome == verdictlib.Missing
	case alert.Regression:
		return (b.Outcome == verdictlib.Regressed || b.Outcome == verdictlib.Inconsistent) && a.Unit == b.Unit
	}
	return false
}

// failingReasons are the reasons, in words, of the benchmarks that fail
// the night: a line per outcome, the worst first (verdict.Outcomes),
// naming each benchmark and figure.
func failingReasons(benchmarks []runrecord.Benchmark) []string {
	var lines []string
	for _, o := range verdictlib.Outcomes() {
		var named []string
		for _, b := range benchmarks {
			switch {
			case !b.Fails || b.Outcome != o:
			case b.Figure == "":
				named = append(named, b.Name+" (no result tonight)")
			default:
				named = append(named, fmt.Sprintf("%s %s (%s)", b.Name, b.Figure, b.Unit))
			}
		}
		if len(named) > 0 {
			lines = append(lines, outcomeReason(o)+": "+strings.Join(named, ", "))
		}
	}
	return lines
}

// outcomeReason is what a night failed on, for an outcome that fails it.
func outcomeReason(o verdictlib.Outcome) string {
	if o == verdictlib.Inconsistent {
		return "inconsistent (the same binary and run measured apart beyond one measurement's noise)"
	}
	return string(o)
}

// alertReasons are tonight's alerts that fail the night and are of none
// of the failing benchmarks (a change point, say), one line each.
func alertReasons(tonight []alert.Alert, benchmarks []runrecord.Benchmark) []string {
	var lines []string
	for _, a := range tonight {
		if !a.Fails() || slices.ContainsFunc(benchmarks, func(b runrecord.Benchmark) bool { return b.Fails && alertOf(a, b) }) {
			continue
		}
		lines = append(lines, fmt.Sprintf("alert %d, %s %s: %s", a.ID, a.State(), kindText(a.Kind), a.Series.String()))
	}
	return lines
}

// refusalRecord is r, the record of a run whose night was never read,
// ended by err: it failed, for the refusal's reason. It counts no result:
// none was read, and it does not say the night had none (no results).
func refusalRecord(r *runrecord.Record, err error) *runrecord.Record {
	why := "the gate stopped before it read the night"
	var ref *refusal
	if errors.As(err, &ref) {
		why = ref.why
	}
	r.Reasons = append(r.Reasons, why+" (see the log)")
	r.Status, r.Baseline = runrecord.Failed, "the baseline stays"
	return r
}

// writeRun writes the run's record, the gate having ended with err, into
// the night's artifacts and, with a history, into its archive: the
// night's directory there, made for the record when the night archived
// no result, and never one the job did not write (checkArchive). A
// record not written is said, and does not change how the gate ended. A
// night the gate refused before reading it is recorded in the archive
// alone: what was offered as the night (a file, a directory of other
// things, one a refused merge was to write) is not a directory the lab
// made, and nothing is written into it; without a history such a run
// keeps no record. A shared history's archive takes
// only a scheduled build of main's run.
func (n *night) writeRun(err error) {
	r := n.runRecord(err)
	if n.run.opened {
		if werr := runrecord.Write(filepath.Join(n.artifacts, nightdir.Run), r); werr != nil {
			fmt.Fprintf(n.stderr, "nightly: the run's record: %v\n", werr)
		}
	}
	if n.history == nil {
		if !n.run.opened {
			fmt.Fprintln(n.stdout, "The run's record is not written: the night was refused, and no history's archive may take it (it needs a --history-dir apart from the night).")
		}
		return
	}
	dir := n.archivedNight
	if dir == "" {
		if ok, why := n.runTrusted(); !ok && n.historyAccess() != history.Personal {
			fmt.Fprintf(n.stdout, "The run's record is not archived: %s.\n", cli.Field(why))
			return
		}
		dir = n.nightDir(r.Started, hexCommit(r.Commit))
		// The record goes where the night's archive would: never into a
		// directory the job did not write.
		if _, err := checkArchive(dir); err != nil {
			fmt.Fprintf(n.stdout, "The run's record is not archived: %s.\n", cli.Field(err.Error()))
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(n.stderr, "nightly: the run's record: %v\n", err)
			return
		}
	}
	if werr := runrecord.Write(filepath.Join(dir, nightdir.Run), r); werr != nil {
		fmt.Fprintf(n.stderr, "nightly: the run's record: %v\n", werr)
		return
	}
	fmt.Fprintf(n.stdout, "The run's record: %s, %s\n", cli.Field(filepath.Join(dir, nightdir.Run)), r.Status)
}

// historyAccess is the history's access, as the gate found it when it
// opened the database, else as the database says now: a run refused
// before the gate opened it is archived in a personal history as the
// gate's would be. "" when it cannot be opened (nothing is created).
func (n *night) historyAccess() history.Access {
	if n.history.access != "" {
		return n.history.access
	}
	db, err := history.Open(context.Background(), n.history.dsn)
	if err != nil {
		return ""
	}
	defer db.Close()
	return db.Access()
}

// runTrusted tells whether the run is a scheduled build of main, as its
// results say (trustedOrigins) or, with none, as this process's
// environment does (result.CaptureOrigin): only such a run's record
// enters a shared history's archive, as only its results do.
func (n *night) runTrusted() (bool, string) {
	readable := 0
	for _, f := range n.run.found {
		if f.Err == nil {
			readable++
		}
	}
	if readable > 0 {
		if err := trustedOrigins(n.run.found); err != nil {
			return false, "its results are not all a scheduled build of " + result.TrustedBranch
		}
		return true, ""
	}
	return result.CaptureOrigin(os.Getenv).Trusted()
}

// checkoutCommit is the commit the job checked out, for a night with no
// result to say: $BUILDKITE_COMMIT, else the checkout's HEAD, else "".
func (n *night) checkoutCommit() string {
	if c := os.Getenv("BUILDKITE_COMMIT"); c != "" {
		return c
	}
	if n.checkout == "" {
		return ""
	}
	out, err := gitwork.Repo(n.checkout).Output("rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// firstStarted is when the night's first readable result started, zero
// for none.
func firstStarted(all []result.Found) time.Time {
	var first time.Time
	for _, f := range all {
		if f.Err != nil {
			continue
		}
		if t, err := time.Parse(time.RFC3339, f.Result.Environment.Started); err == nil && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first.UTC()
}

// hexCommit is commit when it is a commit's hash, hex digits, else "":
// a night's directory is named by it.
func hexCommit(commit string) string {
	if commit == "" || len(commit) > 64 || strings.Trim(commit, "0123456789abcdef") != "" {
		return ""
	}
	return commit
}
