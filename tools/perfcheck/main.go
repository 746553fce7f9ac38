// Command perfcheck tells, before a change lands, what it does to the
// benchmarks: exactly those it can affect, measured against its base.
//
//	tools/bazel run //tools/perfcheck -- [--base REV] [--out DIR] [--repo DIR] [--dashboard URL] [--disk-cache DIR] [--counts-config NAME] [--change-cache-config NAME] [--manifest-target LABEL] [--shutdown]
//
// First it asks which benchmarks the change can reach at all: the files
// that differ from the base (REV, by default the merge base of HEAD with
// origin/main, else main, or on Buildkite with the pull request's base
// branch; uncommitted changes included), and a query of the target graph of
// the workspace's packages, which builds nothing. The benchmarks are those
// of the workspace's manifest, the one benchmark_manifest rule the query
// finds (--manifest-target LABEL names one of several), their quick tests
// as it declares them. A benchmark whose quick
// test depends on none of them is not built ("no benchmark can be
// affected", in seconds, for a change of docs or tools); a changed BUILD,
// .bzl or WORKSPACE input makes every benchmark reachable, and the
// manifest's package is built whole at both sides.
//
// The base's tools measure and judge, never the change's: a perf check
// built anywhere but in a clean checkout of the base (the change's, above
// all) checks the base out in a worktree of its own under the lab's cache
// directory (internal/labcache), never in the checkout, kept with its Bazel
// server for the next check, builds the base's perf check there and runs
// it on the change (--repo); tools/ci/perfcheck.sh does the same in CI
// without running the change's copy first. That one builds the reached
// benchmarks' quick tests at the change and at the base; both sides share
// one Bazel disk cache (--disk-cache), and the change's never writes a
// remote cache: a trusted job may let it read one
// (--change-cache-config=buildbarn-read: what main's post-merge step
// built), its actions still running here. Bazel's own output goes to a log, not to the terminal. It
// compares each benchmark's identity (tools/perf/perfspec: the sums of its
// binary and of its declared run) at both: a benchmark
// whose identity did not change is listed as "unchanged: same binary and
// run, not measured". The others are measured on both sides by the base's
// runner (check.Harness): a program at the base by its count action
// (perf_counts: its quick workload's exact counts, a Bazel action that
// --counts-config=buildbarn sends to the cluster's workers and any cache
// may serve, main's post-merge step first; with it, the count actions of
// the base's layout variants, whose spread calibrates the thresholds of
// the figures that layout moves), at the change by the base's
// runner counting the change's binary and declared run; a server's or a
// go_test's quick test, here, on both; their gated counted figures
// are judged by tools/verdict: the
// regressions get pprof's diff of the figures that failed, Cachegrind's
// events of each function (a cache regression's misses, a Go program's
// own figures without the runtime), else of their CPU profiles; and each
// gated Cachegrind figure that moved, when both sides kept line counts,
// is split between the lines the change's diff added or edited and the
// rest (check.Attribute), information beside the verdict. A commit
// of the change may accept a regression it intends, with a trailer:
//
//	Perf-Accepted: havlak6 own_instructions: trades 3% instructions for 40% less memory
//
// A change that edits the gate's own code (check.GateEdits) is named at
// the top of the comment, and what its own tools would say is shown
// beside, deciding nothing: the base's check builds the change's perf
// check in its checkout and runs it with --own-view DIR --base-checkout
// BASE (its own checkout, already built) and no cache; that check hands
// nothing over, measures both sides with the change's runner, judges with
// the change's policy, writes DIR/summary.json (and its Bazel log) but no
// comment, and exits 0 whatever it finds. The base's check reads that summary as untrusted (bounded,
// escaped); a failure to get it is one line of the comment, never the
// check's failure.
//
// It writes DIR/summary.json (tools/summary) and DIR/pr-comment.md (the
// comment for the pull request, under GitHub's 65,536 characters, posted
// as the build's annotation when a Buildkite agent runs the check, each
// figure with its own verdict, each row linking to the dashboard's compare
// page of the base and HEAD when --dashboard or $HAVLAK_LAB_DASHBOARD
// names the dashboard), and
// exits with tools/verdict's statuses: 1 when a gated figure regressed and
// was not accepted, or a benchmark went missing; 2 for bad usage.
package main

import (
	"flag"
	"io"
	"os"
	"regexp"

	"havlak-lab/internal/buildkite"
	"havlak-lab/internal/cli"
	"havlak-lab/tools/perfcheck/checker"
	"havlak-lab/tools/summary"
)

func main() {
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	stderr := cli.Terminal(os.Stderr)
	os.Exit(cli.Report(stderr, "perfcheck", run(os.Args[1:], stderr)))
}

func run(args []string, log io.Writer) error {
	o, help, err := parseFlags(args, log)
	if help || err != nil {
		return err
	}
	o.Annotate = buildkite.Annotator("perf-check", log, log)
	return checker.Run(o, log)
}

// parseFlags parses the command's flags: help is true when they asked for
// it, and were answered.
func parseFlags(args []string, log io.Writer) (o checker.Options, help bool, err error) {
	fs := flag.NewFlagSet("perfcheck", flag.ContinueOnError)
	fs.SetOutput(log)
	fs.StringVar(&o.Base, "base", "", "the `revision` to compare with (default: the merge base of HEAD with origin/main, else main; on Buildkite, with the pull request's base branch)")
	fs.StringVar(&o.Out, "out", "", "write summary.json and pr-comment.md into `DIR` (default: perf-check/ in the checkout)")
	fs.StringVar(&o.Repo, "repo", "", "the checkout of the change (default: where bazel run was typed)")
	fs.StringVar(&o.DiskCache, "disk-cache", "", "the Bazel disk cache both sides build with, `DIR` (default: disk-cache in the lab's cache directory; \"none\": none)")
	fs.StringVar(&o.CountsConfig, "counts-config", "", "build the count actions with --config=`NAME` too (buildbarn: on the Buildbarn cluster's workers, counts cached there for every check of the same base)")
	fs.StringVar(&o.ChangeCacheConfig, "change-cache-config", "", "build the change's side with --config=`NAME` too, a remote cache it reads and never writes, its actions running here (buildbarn-read: what main's post-merge step built; a trusted job's only)")
	fs.StringVar(&o.ManifestTarget, "manifest-target", "", "the benchmarks' manifest, a benchmark_manifest's `LABEL` (default: the one the workspace declares, found by the check's query)")
	fs.BoolVar(&o.Shutdown, "shutdown", false, "stop the base's Bazel server when done (by default it stays up for the next check, until Bazel's idle timeout)")
	fs.StringVar(&o.Dashboard, "dashboard", os.Getenv(summary.DashboardEnv), "the dashboard's `URL` (//tools/dashboard): the comment's rows link to its compare page of the base and the change (default $"+summary.DashboardEnv+"; none: no links)")
	fs.StringVar(&o.OwnView, "own-view", "", "this is the change's own perf check, run by the base's beside its verdict: measure and judge with this build's tools, write `DIR`/summary.json only, decide nothing (exit 0 whatever it finds)")
	fs.StringVar(&o.BaseCheckout, "base-checkout", "", "with --own-view: the base's clean checkout `DIR` (the base's perf check's own), where the base's side is built")
	if help, err = cli.ParseFlags(fs, args); help || err != nil {
		return o, help, err
	}
	if fs.NArg() > 0 {
		return o, false, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	for _, config := range []struct{ flag, name string }{{"counts-config", o.CountsConfig}, {"change-cache-config", o.ChangeCacheConfig}} {
		if config.name != "" && !validConfig.MatchString(config.name) {
			return o, false, cli.Usagef("--%s %q: want the name of a config of .bazelrc", config.flag, config.name)
		}
	}
	return o, false, checkOwnView(o)
}

// checkOwnView refuses --own-view with what it must not have, and
// --base-checkout without it. The change's own tools never reach a cache
// the base's checks read (no disk cache, no counts config), write no
// comment, and leave the base's Bazel server to the base's check.
func checkOwnView(o checker.Options) error {
	switch {
	case o.OwnView == "" && o.BaseCheckout != "":
		return cli.Usagef("--base-checkout is for --own-view only: a check builds the base where the base's perf check runs")
	case o.OwnView == "":
		return nil
	case o.BaseCheckout == "":
		return cli.Usagef("--own-view needs --base-checkout: the base's perf check names the checkout it runs in")
	case o.DiskCache != "" && o.DiskCache != "none":
		return cli.Usagef("--own-view builds with no disk cache: --disk-cache none, not %q", o.DiskCache)
	case o.CountsConfig != "" || o.ChangeCacheConfig != "":
		return cli.Usagef("--own-view never builds with a remote cache: no --counts-config, no --change-cache-config")
	case o.Out != "":
		return cli.Usagef("--own-view writes its summary into its DIR: no --out")
	case o.Shutdown:
		return cli.Usagef("--own-view leaves the base's Bazel server to the base's perf check: no --shutdown")
	}
	return nil
}

// validConfig is a Bazel config's name, as .bazelrc's are.
var validConfig = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
