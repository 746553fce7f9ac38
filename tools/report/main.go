// Command report turns benchmark results into the article's table, charts
// and flame graphs, and gates regressions against a baseline.
//
//	bazel run //benchmarks:report -- [--from DIR | --night DIR | --testlogs] [--out DIR]
//	    [--workload standard|quick] [--baseline DIR [--allow-env-change]]
//	    [--threshold F] [--rss-threshold F] [--trends FILE] [--history DSN]
//
// It reads what each perf_benchmark test leaves in its outputs.zip (xtime's
// JSON, the CPU and heap profiles, pprof's call graphs): from the latest
// bazel-testlogs/benchmarks (--testlogs, the default) or from a directory
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
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/reporting"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/trends"
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
	outDir := f.outDir()
	sources, night, err := f.sourcesApartFrom(outDir)
	if err != nil {
		return err
	}
	if err := claimOut(outDir, stderr); err != nil {
		return err
	}

	var series []trends.Series
	if f.trendsFile != "" {
		var err error
		if series, err = trends.Read(cli.UserPath(f.trendsFile)); err != nil {
			return cli.Usagef("--trends: %v", err)
		}
	}
	set, err := load(f.workload, sources, night != nil)
	if err != nil {
		return err
	}
	gate := model.Gate{Threshold: f.threshold, RSSThreshold: f.rssThreshold, AllowEnvChange: f.allowEnvChange, Accepted: f.accepted}
	if f.historyDSN != "" {
		ctx := context.Background()
		db, err := history.Open(ctx, f.historyDSN)
		if err != nil {
			return fmt.Errorf("--history: %w", err)
		}
		defer db.Close()
		gate.Recent = reporting.Recent(ctx, db)
	}
	o := reporting.Options{Set: set, Sources: sources, Gate: gate, Retire: f.retire, Trends: series, Out: outDir, Log: stderr}
	if f.baseline != "" {
		o.BaselineDir = cli.UserPath(f.baseline)
		if o.Baseline, err = load(set.Workload, []string{o.BaselineDir}, night != nil); err != nil {
			return err
		}
	}
	written, err := reporting.Write(o)
	if err != nil {
		return err
	}
	// The exit status is the summary's.
	if status := written.Status(); status != verdict.StatusOK {
		return cli.ExitError{Status: status}
	}
	return nil
}

// reportFlags are the report's command line.
type reportFlags struct {
	// What is read, and where the report goes.
	from, nightDir, out string
	testlogs            bool
	workload            string
	trendsFile          string
	// What it is compared with, and how.
	baseline, historyDSN    string
	threshold, rssThreshold float64
	allowEnvChange          bool
	accepted                []verdict.Acceptance
	retire                  summary.Retire
}

// parseFlags reads the command line and checks that its flags go
// together; help says it asked for the usage, which was printed.
func parseFlags(args []string, stderr io.Writer) (f reportFlags, help bool, err error) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.from, "from", "", "read results from `DIR` (downloaded CI artifacts)")
	fs.StringVar(&f.nightDir, "night", "", "read the night in `DIR` (a nightly job's artifacts: DIR/<test>/outputs.zip); --baseline is a night too")
	fs.BoolVar(&f.testlogs, "testlogs", false, "read results from the workspace's bazel-testlogs/benchmarks (the default)")
	fs.StringVar(&f.out, "out", "", "write the report to `DIR` (default: report/ in the workspace)")
	fs.StringVar(&f.workload, "workload", "", "report the results of the `workload` standard or quick (default: standard when there are any)")
	fs.StringVar(&f.baseline, "baseline", "", "compare with the results in `DIR` and fail on regressions")
	fs.Float64Var(&f.threshold, "threshold", model.DefaultThreshold, "the worsening of real time, as a `fraction`, past which a significant change fails")
	fs.Float64Var(&f.rssThreshold, "rss-threshold", model.DefaultRSSThreshold, "the same for max RSS, as a `fraction`")
	fs.BoolVar(&f.allowEnvChange, "allow-env-change", false, "compare with a baseline from another machine or toolchain")
	fs.StringVar(&f.trendsFile, "trends", "", "chart the history in `FILE` (JSON: benchmarks' series over commits, with change points)")
	fs.StringVar(&f.historyDSN, "history", "", "calibrate the baseline's thresholds with its recent results of the same binary in the history `DSN` (tools/history)")
	fs.Func("accept", "a regression the commits since the baseline declare intended, `BENCHMARK:FIGURE:REASON` (a Perf-Accepted: trailer; repeat for more)", func(v string) error {
		a, err := verdict.ParseAcceptance(v)
		f.accepted = append(f.accepted, a)
		return err
	})
	fs.Var(&f.retire, "retire", "the baseline's benchmark `NAME` is gone on purpose: not missing (repeat for more)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return f, help, err
	}
	if fs.NArg() > 0 {
		return f, false, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	return f, false, f.check()
}

// check refuses flags that do not go together.
func (f reportFlags) check() error {
	switch {
	case len(slices.DeleteFunc([]bool{f.from != "", f.nightDir != "", f.testlogs}, func(b bool) bool { return !b })) > 1:
		return cli.Usagef("--from, --night and --testlogs are alternatives")
	case f.workload != "" && f.workload != result.WorkloadStandard && f.workload != result.WorkloadQuick:
		return cli.Usagef("--workload=%s: want %s or %s", f.workload, result.WorkloadStandard, result.WorkloadQuick)
	case f.threshold <= 0 || f.rssThreshold <= 0:
		return cli.Usagef("--threshold=%v --rss-threshold=%v: must be positive", f.threshold, f.rssThreshold)
	case f.allowEnvChange && f.baseline == "":
		return cli.Usagef("--allow-env-change needs --baseline")
	case len(f.retire) > 0 && f.baseline == "":
		return cli.Usagef("--retire needs --baseline")
	case f.historyDSN != "" && f.baseline == "":
		return cli.Usagef("--history needs --baseline")
	}
	return nil
}

// outDir is where the report goes.
func (f reportFlags) outDir() string {
	if f.out != "" {
		return cli.UserPath(f.out)
	}
	return filepath.Join(cli.WorkspaceRoot(), "report")
}

// sourcesApartFrom is the directories the results are read from, and the
// night they are with --night, each refused when the report written to
// outDir would replace it, as is a baseline that would be.
func (f reportFlags) sourcesApartFrom(outDir string) ([]string, *result.Night, error) {
	// The testlogs of every configuration: bazel-testlogs points at the
	// last one built, and bazel run itself, in the default configuration,
	// moves it away from the -c opt results of --config=perf.
	sources, _ := filepath.Glob(filepath.Join(cli.WorkspaceRoot(), "bazel-out", "*", "testlogs", "benchmarks"))
	if len(sources) == 0 {
		sources = []string{filepath.Join(cli.WorkspaceRoot(), "bazel-testlogs", "benchmarks")}
	}
	if f.from != "" {
		sources = []string{cli.UserPath(f.from)}
	}
	// What is read is never what is written: the report replaces --out
	// whole.
	var night *result.Night
	if f.nightDir != "" {
		var err error
		if night, err = result.OpenNight(cli.UserPath(f.nightDir), nightdir.Layout()); err != nil {
			return nil, nil, cli.UsageError{Err: err}
		}
		if err := night.CheckOutput(outDir); err != nil {
			return nil, nil, cli.Usagef("--out: %v", err)
		}
		sources = []string{night.Dir}
	} else {
		for _, dir := range sources {
			if err := result.Apart("--from", dir, "--out", outDir); err != nil {
				return nil, nil, cli.Usagef("%v: the report would replace what it reads", err)
			}
		}
	}
	if f.baseline != "" {
		if err := result.Apart("--baseline", cli.UserPath(f.baseline), "--out", outDir); err != nil {
			return nil, nil, cli.Usagef("%v: the report would replace what it reads", err)
		}
	}
	return sources, night, nil
}

// claimOut refuses an outDir the report did not make and that has
// something to lose: the report replaces it whole.
func claimOut(outDir string, stderr io.Writer) error {
	outState, err := labdir.Check("--out", outDir, labdir.Report, adoptReport)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	if outState == labdir.Adoptable {
		fmt.Fprintf(stderr, "report: --out %s has no %s: adopted, as it holds a report and nothing else\n", cli.Field(outDir), labdir.Marker)
	}
	return nil
}

// adoptReport accepts as --out a directory without the lab's marker that
// holds a report and nothing else: one the report wrote before it marked
// its directories, or one whose marking a kill interrupted. That is its
// summary.json, which reads as one, and the report's kinds of files
// beside it (Markdown, the page, JSON, the stages' directory); a home
// directory, or anyone's directory of other things, is none.
func adoptReport(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		switch ext := filepath.Ext(name); {
		case e.IsDir() && name == "stages":
		case e.Type().IsRegular() && (ext == ".md" || ext == ".html" || ext == ".json"):
		default:
			return fmt.Errorf("%s is not among a report's files", filepath.Join(dir, name))
		}
	}
	_, err = summary.Read(filepath.Join(dir, summary.FileName))
	return err
}

// load reads the results of a workload under dirs ("": the default one,
// see model.Load), or of the night in dirs[0] (result.Night). It fails
// when they hold none.
func load(workload string, dirs []string, isNight bool) (*model.Set, error) {
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			return nil, cli.Usagef("no results: %v", err)
		}
	}
	var set *model.Set
	var err error
	if isNight {
		var night *result.Night
		if night, err = result.OpenNight(dirs[0], nightdir.Layout()); err != nil {
			return nil, cli.UsageError{Err: err}
		}
		set, err = model.LoadNight(workload, night)
	} else {
		set, err = model.Load(workload, dirs...)
	}
	switch {
	case err != nil:
		return nil, err
	case !set.Empty():
		return set, nil
	case len(set.LeftOut) > 0:
		return nil, cli.Usagef("no results of the %s workload in %s: %s", set.Workload, strings.Join(dirs, ", "), strings.Join(set.LeftOutText(), " "))
	case len(set.Problems) > 0:
		return nil, cli.Usagef("no readable benchmark results in %s: %s", strings.Join(dirs, ", "), strings.Join(set.Problems, "; "))
	}
	return nil, cli.UsageError{Err: fmt.Errorf("no benchmark results in %s (no outputs.zip, no xtime.json): "+
		"run tools/bazel test //benchmarks:all --config=perf first", strings.Join(dirs, ", "))}
}
