package main

import (
	"flag"
	"os"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/nightly/night"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/summary"
)

// runGate reads the flags and arguments of gate, of merge (the gate's
// flags, then MAP SHARDS before the night) or of run (the gate's flags and
// --manifest-target, then the night and Bazel's arguments after it) into
// o, which has the commands and the writers, and runs it.
func runGate(sub string, args []string, manifest string, o night.GateOptions) error {
	fs := flag.NewFlagSet("nightly "+sub, flag.ContinueOnError)
	fs.SetOutput(o.Stderr)
	fs.StringVar(&o.Baseline, "baseline", "", "the last good night's artifacts, `DIR` (default $HAVLAK_LAB_BASELINE, else the lab's cache's nightly-baseline)")
	fs.BoolVar(&o.TestsFailed, "tests-failed", false, "the night's tests failed: never make it the baseline")
	fs.BoolVar(&o.CollectFailed, "collect-failed", false, "nightly collect failed: the night may lack results; it fails, and never becomes the baseline")
	fs.StringVar(&o.HistoryDir, "history-dir", "", "where the history keeps its nights (`DIR`/nights) and, by default, its SQLite database (default $HAVLAK_LAB_HISTORY_DIR, else the lab's cache's history)")
	fs.StringVar(&o.History, "history", os.Getenv("HAVLAK_LAB_HISTORY"), "the history database's `DSN` (default: sqlite:DIR/history.sqlite of --history-dir)")
	fs.StringVar(&o.Otava, "otava", "", "Apache Otava's `command` (tools/ci/tools.sh otava), which searches the history for change points; without it change points are off, and the night enters the history all the same")
	fs.StringVar(&o.Dashboard, "dashboard", os.Getenv(summary.DashboardEnv), "the dashboard's `URL` (//tools/dashboard): the summary's rows link to its compare page of the baseline and tonight (default $"+summary.DashboardEnv+"; none: no links)")
	fs.IntVar(&o.StaleAfter, "stale-after", alert.DefaultStaleNights, "a series of the history with no point for this many of its `nights` is a stale alert")
	fs.DurationVar(&o.LockWait, "lock-wait", night.DefaultLockWait, "how long to wait for the baseline's lock while another gate holds it (a `duration`; 0: refuse at once)")
	var manifestTarget string
	if sub == "run" {
		fs.StringVar(&manifestTarget, strings.TrimPrefix(perfspec.ManifestFlag, "--"), "", "the benchmarks' manifest, a benchmark_manifest's `LABEL` (default: the one the workspace declares)")
	}
	var retire summary.Retire
	fs.Var(&retire, "retire", "the baseline's benchmark `NAME` left the suite on purpose: not missing, and not in the next baseline (repeat for more)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	o.Retire = retire
	o.Manifest = manifest
	if sub == "merge" {
		if fs.NArg() != 3 {
			return cli.Usagef("merge wants MAP, SHARDS and ARTIFACTS\n%s", usage)
		}
		o.Artifacts = fs.Arg(2)
		return night.MergeNight(night.MergeOptions{Map: fs.Arg(0), Manifest: manifest, Shards: fs.Arg(1), Gate: o})
	}
	if sub == "run" {
		if fs.NArg() < 1 {
			return cli.Usagef("run wants an ARTIFACTS directory, then Bazel's arguments if any\n%s", usage)
		}
		o.Artifacts = fs.Arg(0)
		return night.Run(night.RunOptions{Workspace: cli.WorkspaceRoot(), ManifestTarget: manifestTarget,
			BazelArgs: fs.Args()[1:], Gate: o})
	}
	if fs.NArg() != 1 {
		return cli.Usagef("gate wants one ARTIFACTS directory\n%s", usage)
	}
	o.Artifacts = fs.Arg(0)
	return night.Gate(o)
}
