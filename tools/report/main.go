// Command report turns benchmark results into the article's table, charts
// and flame graphs, and gates regressions against a baseline.
//
//	bazel run //tools/report -- [--from DIR | --night DIR | --testlogs [--manifest-target LABEL]]
//	    [--out DIR] [--workload standard|quick] [--baseline DIR [--allow-env-change]]
//	    [--threshold F] [--rss-threshold F] [--trends FILE] [--history DSN]
//
// (this repository names it //benchmarks:report too). It reads what each
// perf_benchmark test leaves in its outputs.zip (xtime's JSON, the CPU and
// heap profiles, pprof's call graphs): from the latest test logs of the
// benchmarks' tests (--testlogs, the default: bazel-testlogs, of every
// configuration, of the packages where the workspace's manifest declares
// its tests; Bazel is asked which benchmark_manifest the workspace
// declares, or --manifest-target names one) or from a directory
// of results downloaded from CI (--from; zips or unpacked directories,
// found at any depth), or from a nightly job's artifacts (--night: exactly
// the night's results, DIR/<test>/outputs.zip, as tools/result.Night
// defines them; a night holding anything else is refused, naming it; its
// --baseline is a night too). It reports the results of one workload, whose
// timings compare: --workload, by default the standard (full-size) one when
// there are results of it, else the quick one. It says what it left out
// (the other workload's results, and older results of a benchmark) and
// why, on standard error, in report.md and in the page.
//
// It writes, into --out (default: report/ in the workspace), replacing it
// whole only when everything is written, and marks it as the lab's
// (internal/labdir). Before anything is written it refuses an --out that
// is, holds or is inside a directory it reads (--from, --baseline), except
// a night's own report/ (--night), and one it did not make: a file, or a
// directory neither empty, nor marked as a report's, nor holding a
// report's files only (one from before reports were marked: adopted):
//
//	report.md   the tables, each with its workload, the machine, the top
//	            functions of each stage
//	table.md    the tables alone, for CI annotations
//	index.html  a self-contained page: the table, bar charts of real time
//	            and max RSS (linear or log scale), Go and C++ side by side,
//	            and links to each stage's graphs; with --trends, interactive
//	            charts of each benchmark's metrics over commits or nights
//	stages/NAME/flame.svg, cpu.svg, heap.svg
//	            a flame graph of the CPU profile, pprof's call graphs
//	stages/NAME/cpu.diff.svg, heap.diff.svg, profile-diffs.md
//	            of a regressed benchmark (--baseline): pprof's -diff_base
//	            graphs against the baseline's profiles, whose tables of the
//	            functions that changed most are in report.md and
//	            index.html, and a line per profile for annotations
//	summary.json
//	            the comparison, typed (tools/summary): each benchmark's
//	            verdict with its figures and evidence, the profile diffs,
//	            the problems; what the nightly job reads
//
// With --baseline DIR (results in the same forms; those of the same
// workload), each benchmark's figures are judged against the baseline's by
// tools/verdict, and report exits with status 1 when one regressed: its
// median real time more than --threshold (default 0.15) worse or its max
// RSS more than --rss-threshold (default 0.10), with benchstat's
// Mann-Whitney U test at p < 0.05 (docs/regressions.md says why), or a
// gated low-noise figure worse than its threshold and its runs' noise.
// Each threshold is calibrated from the baseline's own runs, and with
// --history DSN from the history's recent results of the baseline's
// binary and run too (tools/verdict's Calibrate; docs/noise.md): the
// declared one is its ceiling, and every verdict says which applied and
// where it came from. Results that
// cannot be read are named on standard error and in the report, which
// shows what it can; no results at all, or bad flags, exit with status 2.
//
// --trends FILE adds trend charts: the series of each benchmark and metric
// over commits or nights, with each point's spread and the change points
// marked, as FILE gives them (JSON: package tools/trends says its form).
// A file that does not have that form is refused (status 2), naming the
// file and the field.
//
// Timings of different machines or toolchains do not compare: a benchmark
// whose environment (tools/result: machine, toolchain versions,
// compilation mode) differs from its baseline's is not compared, the
// differing fields are named, and report exits with status 3 after writing
// the report (status 1 still wins when another benchmark regressed), unless
// --allow-env-change compares them anyway.
package main

import (
	"flag"
	"io"
	"os"
	"slices"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/report/reporter"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

func main() {
	os.Exit(cli.Report(os.Stderr, "report", run(os.Args[1:], os.Stderr)))
}

func run(args []string, stderr io.Writer) error {
	// Names, reasons and paths from results reach stderr: never a terminal's
	// escape sequence (cli.Terminal).
	stderr = cli.Terminal(stderr)
	f, help, err := parseFlags(args, stderr)
	if help || err != nil {
		return err
	}
	return reporter.Run(f, stderr)
}

// parseFlags reads the command line and checks that its flags go
// together; help says it asked for the usage, which was printed.
func parseFlags(args []string, stderr io.Writer) (f reporter.Options, help bool, err error) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.From, "from", "", "read results from `DIR` (downloaded CI artifacts)")
	fs.StringVar(&f.NightDir, "night", "", "read the night in `DIR` (a nightly job's artifacts: DIR/<test>/outputs.zip); --baseline is a night too")
	fs.BoolVar(&f.Testlogs, "testlogs", false, "read results from the workspace's test logs of its benchmarks' tests, the packages its manifest declares them in (the default)")
	fs.StringVar(&f.ManifestTarget, "manifest-target", "", "with --testlogs: the benchmarks' manifest, a benchmark_manifest's `LABEL` (default: the one the workspace declares, asked of Bazel)")
	fs.StringVar(&f.Out, "out", "", "write the report to `DIR` (default: report/ in the workspace)")
	fs.StringVar(&f.Workload, "workload", "", "report the results of the `workload` standard or quick (default: standard when there are any)")
	fs.StringVar(&f.Baseline, "baseline", "", "compare with the results in `DIR` and fail on regressions")
	fs.Float64Var(&f.Threshold, "threshold", model.DefaultThreshold, "the worsening of real time, as a `fraction`, past which a significant change fails")
	fs.Float64Var(&f.RSSThreshold, "rss-threshold", model.DefaultRSSThreshold, "the same for max RSS, as a `fraction`")
	fs.BoolVar(&f.AllowEnvChange, "allow-env-change", false, "compare with a baseline from another machine or toolchain")
	fs.StringVar(&f.TrendsFile, "trends", "", "chart the history in `FILE` (JSON: benchmarks' series over commits, with change points)")
	fs.StringVar(&f.HistoryDSN, "history", "", "calibrate the baseline's thresholds with its recent results of the same binary in the history `DSN` (tools/history)")
	fs.Func("accept", "a regression the commits since the baseline declare intended, `BENCHMARK:FIGURE:REASON` (a Perf-Accepted: trailer; repeat for more)", func(v string) error {
		a, err := verdict.ParseAcceptance(v)
		f.Accepted = append(f.Accepted, a)
		return err
	})
	fs.Var(&f.Retire, "retire", "the baseline's benchmark `NAME` is gone on purpose: not missing (repeat for more)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return f, help, err
	}
	if fs.NArg() > 0 {
		return f, false, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	return f, false, check(f)
}

// check refuses flags that do not go together.
func check(f reporter.Options) error {
	switch {
	case len(slices.DeleteFunc([]bool{f.From != "", f.NightDir != "", f.Testlogs}, func(b bool) bool { return !b })) > 1:
		return cli.Usagef("--from, --night and --testlogs are alternatives")
	case f.ManifestTarget != "" && (f.From != "" || f.NightDir != ""):
		return cli.Usagef("--manifest-target is for --testlogs: it says which tests' logs to read")
	case f.Workload != "" && f.Workload != result.WorkloadStandard && f.Workload != result.WorkloadQuick:
		return cli.Usagef("--workload=%s: want %s or %s", f.Workload, result.WorkloadStandard, result.WorkloadQuick)
	case f.Threshold <= 0 || f.RSSThreshold <= 0:
		return cli.Usagef("--threshold=%v --rss-threshold=%v: must be positive", f.Threshold, f.RSSThreshold)
	case f.AllowEnvChange && f.Baseline == "":
		return cli.Usagef("--allow-env-change needs --baseline")
	case len(f.Retire) > 0 && f.Baseline == "":
		return cli.Usagef("--retire needs --baseline")
	case f.HistoryDSN != "" && f.Baseline == "":
		return cli.Usagef("--history needs --baseline")
	}
	return nil
}
