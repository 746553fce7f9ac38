// Command nightly is the Go half of the nightly perf job
// (tools/ci/nightly.sh, docs/nightly.md):
//
//	nightly collect --testlogs DIR [--bazel-bin DIR] EVENTS DEST
//	nightly counts [MAP K]
//	nightly gate [--baseline DIR] [--lock-wait DURATION] [--tests-failed] [--collect-failed] [--dashboard URL] [--history-dir DIR] [--history DSN] [--otava CMD] [--stale-after NIGHTS] ARTIFACTS
//	nightly shardmap --manifest FILE --shards N [--history DSN] [--tolerance F] [--default-seconds S] [--since DAYS] [--quick] --out MAP
//	nightly shard MAP K
//	nightly steps [--upload] MAP
//	nightly merge [gate's flags] MAP SHARDS ARTIFACTS
//	nightly run [gate's flags] [--manifest-target LABEL] ARTIFACTS [BAZEL ARGS...]
//
// collect copies the outputs.zip of every test named in a build event JSON
// file (--build_event_json_file) to DEST/<test name>/outputs.zip and prints
// the directories, one a line. It takes zips only from --testlogs, the
// build's test logs (bazel-testlogs, resolved before bazel run moves it),
// and refuses, before writing anything, a DEST that is neither new, empty
// nor a night, or that is, holds or is inside the baseline or the
// history's directory. With --bazel-bin and --manifest it also copies the
// collected benchmarks' counts of their programs and layout variants
// (DEST/layout-variants/<benchmark>/N.zip), those the event file says
// were built; counts prints those count targets, of the whole suite or
// of shard K of MAP, one a line, for the night's bazel test to build.
//
// gate makes the report (tools/reporting) of ARTIFACTS, a night
// (tools/result.Night: ARTIFACTS/<test>/outputs.zip, nothing else but the
// job's own files; anything else is refused, named, before anything is
// written), comparing it with the baseline, the last good night's
// artifacts, which must be neither ARTIFACTS, nor inside it, nor hold it,
// and new, empty, or a directory the lab wrote (its marker, internal/labdir;
// an unmarked one holding a night's results only is adopted, and the log
// says so); anything else, a file included, is refused before anything
// is written; and judges every Go benchmark (go_benchmark) by the same
// comparison. It prints a Markdown
// summary (the report's table and the verdict) and posts it as a Buildkite
// annotation when run by an agent; its rows link to the dashboard's compare
// page of the baseline's commit and tonight's when --dashboard (by default
// $HAVLAK_LAB_DASHBOARD) names the dashboard. It also writes the night's results in
// the formats of tools/exports (benchstat's, Bencher's,
// github-action-benchmark's, OpenMetrics) into ARTIFACTS/exports/. A night without regressions, failures,
// or failed tests (--tests-failed) becomes the baseline, replacing it whole
// (a night whose collect failed, --collect-failed, fails as incomplete);
// so does a night whose environment changed (its benchmarks could not be
// compared with a baseline of another machine or toolchain). The baseline
// is --baseline, by default $HAVLAK_LAB_BASELINE, else nightly-baseline in
// the lab's cache directory (internal/labcache: $HAVLAK_LAB_CACHE, else
// ${XDG_CACHE_HOME:-~/.cache}/havlak-lab); the history's directory,
// --history-dir, is $HAVLAK_LAB_HISTORY_DIR, else history there. One gate
// at a time judges and writes a baseline: the gate holds the baseline's
// lock (BASELINE.lock beside it, internal/labdir) from before it reads
// the baseline until its run is recorded; a second gate says whose it is
// and waits up to --lock-wait (default 30m), then is refused.
//
// The night also enters the results history (tools/history,
// docs/history.md), --history, by default the SQLite file of
// --history-dir: its results are archived under DIR/nights and ingested,
// if they are trusted (a scheduled build of main) or the database is
// personal, and each benchmark's figures over the history are charted in
// the report. With --otava (Apache Otava's command), each series is also
// searched for change points, and a new regression among them is bisected
// (--bisect); without it change points are off, which the log and the
// run's record say. What the gates and the history find (regressions,
// change points, missing results, and series silent for --stale-after of
// the history's nights) becomes alerts in the history (tools/alert,
// docs/triage.md), matched to those of earlier nights: the night fails on
// a new regression or change point or a missing result, not on one
// acknowledged, accepted or ignored, and the summary shows the new
// alerts first. The summary also carries the report's profile diffs of
// regressed benchmarks. Outside a git checkout no commit's Perf-Accepted:
// trailer can be read: the log says so, and no regression is accepted.
//
// However it ends, the gate records the run (tools/runrecord:
// ARTIFACTS/run.json, and in the night's directory of DIR/nights, made
// for it when the night archived no result): when it ran, its commit, its
// shards (merge's), its results, its verdict and what each benchmark
// failed on (missing, regressed, inconsistent) or why it was not
// compared, whether change points were searched, its exit status, and
// whether it became the baseline. A run refused before the night was read
// (its options, the night, the baseline, the history's directory, a
// merge's shards) is recorded, failed and why, in DIR/nights alone:
// nothing is written into what was offered as the night.
//
// shardmap writes the shard map (tools/nightly/shard, docs/nightly.md#shards)
// of the manifest's full-size benchmarks across N perf agents, balanced by
// their durations in the history, each kept on the shard the map at MAP
// gave it when that stays within the tolerance; shard prints shard K's
// test labels, one a line (tools/ci/nightly.sh --shard K tests those);
// steps prints the nightly job's Buildkite steps for the map, a job per
// shard and the merge, as JSON, or uploads them with buildkite-agent
// (--upload); merge merges the shards' nights (SHARDS/shard-K/<test>/
// outputs.zip and SHARDS/shard-K/bazel-events.json, downloaded from the
// build first when run by a Buildkite agent) into one night at ARTIFACTS
// and gates it as gate does: a shard that failed or never reported, and
// every benchmark without a result, named with its shard, fail the night.
//
// run is a night of the workspace where bazel run was typed, whole, as a
// workspace that loads the lab runs it on its schedule (docs/adopting.md's
// pipeline): the workspace's manifest (asked of Bazel; --manifest-target
// names one of several), a bazel test of its full-size benchmarks and of
// their layout variants' counts, collect into ARTIFACTS (a new or empty
// directory), and gate, with gate's flags. The night's Bazel commands
// carry the flags its results depend on (night.Run): Bazel's arguments
// after ARTIFACTS come after them.
//
// --bisect, before the subcommand, bisects each new regression of the
// history (tools/firstbad); `bazel run //tools/nightly` gives it. Paths are relative to where bazel
// run was typed. Exit status: 1 for a regression or a failed step, 2 for
// bad usage.
//
// The work is package havlak-lab/tools/nightly/night's; this command reads
// the flags, picks the subcommand and reports the error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"havlak-lab/internal/buildkite"
	"havlak-lab/internal/cli"
	"havlak-lab/tools/nightly/night"
)

func main() {
	os.Exit(cli.Report(os.Stderr, "nightly", run(os.Args[1:], os.Stdout, os.Stderr)))
}

const usage = "usage: nightly [--bisect] [--manifest FILE] collect --testlogs DIR [--bazel-bin DIR] EVENTS DEST | counts [MAP K] | gate [--baseline DIR] [--lock-wait DURATION] [--tests-failed] [--collect-failed] [--dashboard URL] [--history-dir DIR] [--history DSN] [--otava CMD] [--stale-after NIGHTS] ARTIFACTS" +
	" | run [gate's flags] [--manifest-target LABEL] ARTIFACTS [BAZEL ARGS...] | shardmap --manifest FILE --shards N [--history DSN] [--tolerance F] [--default-seconds S] [--since DAYS] [--quick] --out MAP | shard MAP K | steps [--upload] MAP | merge [gate's flags] MAP SHARDS ARTIFACTS"

func run(args []string, stdout, stderr io.Writer) error {
	// The night's log shows names, reasons and paths from results and
	// commits, and the output of the report and bisect: never a
	// terminal's escape sequence (cli.Terminal). Buildkite's log renders
	// them as a terminal does.
	stdout, stderr = cli.Terminal(stdout), cli.Terminal(stderr)
	fs := flag.NewFlagSet("nightly", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	bisect := fs.Bool("bisect", false, "bisect each new regression of the history (tools/firstbad) for its first bad commit")
	manifest := fs.String("manifest", "", "the benchmarks' manifest `FILE`, a benchmark_manifest's JSON under bazel-bin: shard, steps and merge place the benchmarks the map does not know (tools/ci/nightly.sh gives this repository's)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	switch fs.Arg(0) {
	case "collect":
		cfs := flag.NewFlagSet("nightly collect", flag.ContinueOnError)
		cfs.SetOutput(stderr)
		testlogs := cfs.String("testlogs", "", "the build's test logs, `DIR` (bazel-testlogs, resolved): zips elsewhere are refused")
		bazelBin := cfs.String("bazel-bin", "", "the build's bazel-bin, `DIR` (resolved): with --manifest, the collected benchmarks' layout variants' counts are copied from it")
		if help, err := cli.ParseFlags(cfs, fs.Args()[1:]); help || err != nil {
			return err
		}
		if cfs.NArg() != 2 {
			return cli.Usagef("collect wants --testlogs DIR, EVENTS and DEST\n%s", usage)
		}
		if *bazelBin != "" && *manifest == "" {
			return cli.Usagef("collect --bazel-bin wants --manifest, which names the counts to collect")
		}
		dirs, err := night.Collect(cfs.Arg(0), *testlogs, cfs.Arg(1))
		for _, dir := range dirs {
			fmt.Fprintln(stdout, cli.Field(dir))
		}
		if err != nil || *bazelBin == "" {
			return err
		}
		counted, err := night.CollectLayoutVariants(*manifest, cfs.Arg(0), *bazelBin, cfs.Arg(1))
		fmt.Fprintf(stdout, "layout variants' counts of %d benchmarks\n", len(counted))
		return err
	case "counts":
		var tests []string
		if fs.NArg() == 3 {
			k, err := strconv.Atoi(fs.Arg(2))
			if err != nil || k < 0 {
				return cli.Usagef("counts %q: want a shard's number", fs.Arg(2))
			}
			var labels strings.Builder
			if err := night.ShardTests(fs.Arg(1), *manifest, k, &labels, stderr); err != nil {
				return err
			}
			tests = strings.Fields(labels.String())
		} else if fs.NArg() != 1 {
			return cli.Usagef("counts wants nothing, or MAP and K\n%s", usage)
		}
		if *manifest == "" {
			return cli.Usagef("counts wants --manifest")
		}
		return night.LayoutTargets(*manifest, tests, stdout)
	case "gate", "merge", "run":
		return runGate(fs.Arg(0), fs.Args()[1:], *manifest, night.GateOptions{Bisect: *bisect,
			Annotate: buildkite.Annotator("nightly-perf", stdout, stderr), Stdout: stdout, Stderr: stderr})
	case "shardmap":
		return runShardMap(fs.Args()[1:], stdout, stderr)
	case "shard":
		if fs.NArg() != 3 {
			return cli.Usagef("shard wants MAP and K\n%s", usage)
		}
		k, err := strconv.Atoi(fs.Arg(2))
		if err != nil || k < 0 {
			return cli.Usagef("shard %q: want a shard's number", fs.Arg(2))
		}
		return night.ShardTests(fs.Arg(1), *manifest, k, stdout, stderr)
	case "steps":
		upload := fs.NArg() == 3 && fs.Arg(1) == "--upload"
		if fs.NArg() != 2 && !upload {
			return cli.Usagef("steps wants [--upload] MAP\n%s", usage)
		}
		return night.Steps(fs.Arg(fs.NArg()-1), *manifest, upload, stdout, stderr)
	case "":
		return cli.Usagef("no subcommand\n%s", usage)
	}
	return cli.Usagef("unknown subcommand %q\n%s", fs.Arg(0), usage)
}
