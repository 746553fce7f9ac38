// Package night is the nightly perf job's Go half (docs/nightly.md), the
// work of the command tools/nightly: Collect gathers a night's results
// from Bazel's build event file, Gate judges the night against the last
// good one, enters it into the results history (searched for change
// points when Apache Otava is given) and promotes it.
//
// Paths in the arguments and options are as a user types them: under
// `bazel run`, relative to where it was typed (cli.UserPath), else to the
// working directory. Otava's command is a name looked up in PATH or a path
// relative to the working directory.
package night

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/labcache"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
	"havlak-lab/tools/summary"
)

// GateOptions are what Gate runs on: `nightly gate`'s flags and argument,
// and the commands given before the subcommand.
type GateOptions struct {
	// Artifacts is the night: one directory per test, each with its
	// outputs.zip (result.Night).
	Artifacts string
	// Baseline is the last good night's artifacts; "" is
	// $HAVLAK_LAB_BASELINE, else nightly-baseline in the lab's cache
	// directory (internal/labcache).
	Baseline string
	// TestsFailed: the night's tests failed, so it never becomes the
	// baseline.
	TestsFailed bool
	// Retire names the baseline's benchmarks that left the suite on
	// purpose (the report's --retire).
	Retire []string
	// Incomplete names what the night lacks that the gate cannot see (a
	// sharded night's shards that failed or never reported and their
	// benchmarks: MergeNight), one a line: the summary lists them, and
	// the night fails.
	Incomplete []string
	// CollectFailed: nightly collect failed (tools/ci/nightly.sh): the
	// night may lack results it made, which no one can name, so it fails
	// as an incomplete one does.
	CollectFailed bool
	// Sharded: the night was merged from the map's shards (MergeNight),
	// Shards each as the merge found it; the run's record names them.
	Sharded bool
	Shards  []runrecord.Shard
	// Bisect: each new regression of the history is bisected
	// (tools/firstbad), its first bad commit put in its alert.
	Bisect bool
	// Otava is Apache Otava's command (tools/ci/tools.sh otava), which
	// searches the history for change points; "" searches none: the night
	// still enters the history, whose alerts are then the gates' findings
	// alone (regressions, missing results, stale series, environment
	// changes), and the run's record says change points are off.
	Otava string
	// HistoryDir is where the history keeps its nights (HistoryDir/nights)
	// and, by default, its SQLite database; "" is $HAVLAK_LAB_HISTORY_DIR,
	// else history in the lab's cache directory.
	HistoryDir string
	// History is the history database's DSN; "" is
	// sqlite:HistoryDir/history.sqlite, and one without "://" an SQLite
	// file's path.
	History string
	// StaleAfter is how many of the history's nights a series may go
	// without a point before its alert says it is stale: at least 1
	// (alert.DefaultStaleNights is the command's default).
	StaleAfter int
	// LockWait is how long the gate waits for the baseline's lock while
	// another gate holds it (labdir.TakeLock, docs/nightly.md#the-baseline):
	// 0 refuses at once; DefaultLockWait is the command's default.
	LockWait time.Duration
	// Manifest is the suite's benchmarks' manifest (perfspec.Manifest,
	// //benchmarks:manifest's file), "" for none: the night names the
	// benchmarks it lists that nothing counts (Manifest.NotMeasured), in
	// its summary and its run's record. One it cannot read fails the
	// night: which benchmarks no gate judged would go unsaid.
	Manifest string
	// Dashboard is the dashboard's address (tools/dashboard,
	// summary.ParseDashboard), "" for none: the summary's rows then link to
	// its compare page of the baseline's commit and tonight's.
	Dashboard string
	// Annotate posts the summary (internal/buildkite.Annotator), or is nil.
	Annotate func(style, markdown string) error
	// Stdout and Stderr receive the night's log, written through
	// cli.Terminal: names and reasons from results and commits, and the
	// output of the report and bisect, never carry a
	// terminal's escape sequence.
	Stdout, Stderr io.Writer
	// beforeSwap, when not nil, is called by the promotion once the new
	// baseline is copied and read back, before the renames that swap it
	// in: a test pauses a gate there to start another.
	beforeSwap func()
}

// DefaultLockWait is how long `nightly gate` waits for the baseline's
// lock by default: half the merge step's timeout of an hour, so that a
// gate that waited all of it still has the other half for its own work,
// and its refusal, named, ends the step instead of the timeout.
const DefaultLockWait = 30 * time.Minute

// Gate runs the report on the night against the baseline, judges its Go
// benchmarks by the same comparison, and enters the night into the
// history (with Otava, searched for change points); it prints the summary,
// posts it with Annotate, and makes a good night the next baseline:
// `nightly gate`. It holds the baseline's lock (lockBaseline) from before
// it reads the baseline until its run is recorded: a second gate of the
// same baseline waits for it, up to LockWait, and is refused after. Bad
// options are a
// cli.UsageError, refused before anything is written but the run's
// record in the history's archive (writeRun); a regression or a failed
// step is an error too.
func Gate(o GateOptions) error {
	n, err := o.newNight(time.Now())
	if err == nil {
		err = n.gate()
	}
	// The run's record is written however the gate ends (runs.go), a
	// refusal included; under the baseline's lock, taken by the gate, as
	// is everything it writes.
	n.writeRun(err)
	if rerr := n.lock.Release(); rerr != nil {
		fmt.Fprintf(n.stderr, "nightly: releasing the baseline's lock: %v\n", rerr)
	}
	return err
}

// newNight is the night the options gate, started then; or, with the
// refusal of the options, the night, the baseline or the history's
// directory, one that holds no more than the refusal's record needs
// (refusedNight).
func (o GateOptions) newNight(started time.Time) (*night, error) {
	if err := o.check(); err != nil {
		return o.refusedNight(started), refused("the gate refused its options", err)
	}
	if !isDir(cli.UserPath(o.Artifacts)) {
		return o.refusedNight(started), refused("the gate refused the night: no directory of its results",
			cli.Usagef("%s: not a directory", cli.UserPath(o.Artifacts)))
	}
	stdout, stderr := cli.Terminal(o.Stdout), cli.Terminal(o.Stderr)
	dashboard, _ := summary.ParseDashboard(o.Dashboard)
	state, err := o.stateDirs()
	if err != nil {
		return o.refusedNight(started), err
	}
	artifacts := cli.UserPath(o.Artifacts)
	if state == labdir.Adoptable {
		// A baseline from before the lab marked its directories: it holds
		// a night's results and nothing else (adoptBaseline). Its next
		// promotion writes it marked; until then it is adopted each night.
		fmt.Fprintf(stdout, "The baseline %s has no %s: adopted, as it holds a night's results and nothing else; the next promotion marks it.\n",
			cli.Field(cli.UserPath(o.Baseline)), labdir.Marker)
	}
	n := &night{
		artifacts:   absolute(artifacts),
		baseline:    absolute(cli.UserPath(o.Baseline)),
		testsFailed: o.TestsFailed,
		incomplete:  o.Incomplete,
		retire:      o.Retire,
		staleNights: o.StaleAfter,
		lockWait:    o.LockWait,
		beforeSwap:  o.beforeSwap,
		checkout:    cli.UserPath("."),
		stdout:      stdout,
		stderr:      stderr,
		annotate:    o.Annotate,
		dashboard:   dashboard,
		run:         runState{started: started, sharded: o.Sharded, shards: o.Shards, collectFailed: o.CollectFailed},
	}
	if o.Manifest != "" {
		n.manifest = absolute(cli.UserPath(o.Manifest))
	}
	if o.CollectFailed {
		n.incomplete = append(slices.Clone(n.incomplete), collectFailedLine)
	}
	n.history = o.historyConfig(cli.UserPath(o.HistoryDir))
	if o.Otava == "" {
		fmt.Fprintln(stdout, "No --otava: change points are off. The night enters the history all the same, "+
			"and the gates' regressions and missing results are its alerts; no change point is searched.")
	}
	return n, nil
}

// historyConfig is the history of the options, kept in dir.
func (o GateOptions) historyConfig(dir string) *historyConfig {
	h := &historyConfig{dir: absolute(dir), dsn: o.History, otava: absolute(o.Otava),
		bisect: o.Bisect, checkout: cli.UserPath(".")}
	switch {
	case h.dsn == "":
		h.dsn = history.DirDSN(h.dir)
	case !strings.Contains(h.dsn, "://"):
		// An SQLite file, named from where bazel run was typed.
		h.dsn = "sqlite:" + absolute(cli.UserPath(strings.TrimPrefix(h.dsn, "sqlite:")))
	}
	return h
}

// check refuses options the gate cannot run with, whatever the night.
func (o GateOptions) check() error {
	if o.LockWait < 0 {
		return cli.Usagef("--lock-wait %s: want a duration, 0 or more", o.LockWait)
	}
	if o.StaleAfter < 1 {
		return cli.Usagef("--stale-after %d: want a number of nights, at least 1", o.StaleAfter)
	}
	if _, err := summary.ParseDashboard(o.Dashboard); err != nil {
		return cli.Usagef("--dashboard: %v", err)
	}
	return nil
}

// stateDirs fills in the baseline's and the history's directories the
// options leave to their defaults, and refuses, before anything is
// written but the run's record in the history's archive (writeRun), a
// baseline or history that is, holds or is inside the night, a baseline
// the lab may not replace (labdir.Check: a file, a
// directory without the lab's marker that is not a night's results), one
// whose promotion's ".old" beside it is not the lab's either, or whose
// lock file (labdir.CheckLock) is not the lab's lock, and a history
// directory that is not a directory. It returns what Check found
// at the baseline: Gate says when it adopts one.
func (o *GateOptions) stateDirs() (labdir.State, error) {
	name := "--baseline"
	if o.Baseline == "" {
		name = "$HAVLAK_LAB_BASELINE"
		if os.Getenv("HAVLAK_LAB_BASELINE") == "" {
			name = "the lab's cache's nightly baseline"
		}
		var err error
		if o.Baseline, err = stateDir("HAVLAK_LAB_BASELINE", "nightly-baseline"); err != nil {
			return 0, refused(refusedBaseline, err)
		}
	}
	if o.HistoryDir == "" {
		var err error
		if o.HistoryDir, err = history.LocalDir(); err != nil {
			return 0, refused(refusedHistory, err)
		}
	}
	// The gate reads the night and writes the baseline and the history:
	// none may be, hold or be inside another, or promoting the night would
	// copy it over itself and delete what it judged.
	artifacts, baseline := cli.UserPath(o.Artifacts), cli.UserPath(o.Baseline)
	if err := result.Apart("the night", artifacts, "--baseline", baseline); err != nil {
		return 0, refused(refusedBaseline, cli.Usagef("%v: refused", err))
	}
	if err := checkHistoryDir(artifacts, cli.UserPath(o.HistoryDir)); err != nil {
		return 0, refused(refusedHistory, err)
	}
	state, err := labdir.Check(name, baseline, labdir.Baseline, adoptBaseline)
	if err != nil {
		return 0, refused(refusedBaseline, cli.UsageError{Err: err})
	}
	if _, err := labdir.Check(name+"'s promotion's", baseline+".old", labdir.Baseline, adoptBaseline); err != nil {
		return 0, refused(refusedBaseline, cli.UsageError{Err: err})
	}
	if err := labdir.CheckLock(name, baseline, labdir.Baseline); err != nil {
		return 0, refused(refusedBaseline, cli.UsageError{Err: err})
	}
	return state, nil
}

// checkHistoryDir refuses dir, the history's directory the gate writes,
// when it is not a directory, or is, holds or is inside the night
// (artifacts), which promoting the night would copy over itself.
func checkHistoryDir(artifacts, dir string) error {
	if err := result.Apart("the night", artifacts, "--history-dir", dir); err != nil {
		return cli.Usagef("%v: refused", err)
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return cli.Usagef("--history-dir %s: not a directory: refused, nothing written", dir)
	}
	return nil
}

// adoptBaseline accepts as the baseline a directory without the lab's
// marker that holds a night's results (result.OpenNight) and nothing else:
// a baseline promoted before the lab marked its directories. Anything
// else, the report's directory or a stray file beside the results, the
// promotion would delete.
func adoptBaseline(dir string) error {
	night, err := result.OpenNight(dir, nightdir.Layout())
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	tests := night.Tests()
	for _, e := range entries {
		if !slices.Contains(tests, e.Name()) {
			return fmt.Errorf("%s is not a test's results", filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

// stateDir is where the perf agent keeps one kind of state between
// nights: $VARIABLE, else sub in the lab's cache directory.
func stateDir(variable, sub string) (string, error) {
	if dir := os.Getenv(variable); dir != "" {
		return dir, nil
	}
	return labcache.Dir(sub)
}

// absolute makes a path absolute, so that it survives a change of
// directory; a bare command name stays as it is.
func absolute(path string) string {
	if path == "" || !strings.Contains(path, "/") {
		return path
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
