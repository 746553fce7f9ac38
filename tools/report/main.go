// Command report turns benchmark results into the article's table, charts
// and flame graphs, and gates regressions against a baseline.
//
//	bazel run //benchmarks:report -- [--from DIR | --testlogs] [--out DIR]
//	    [--baseline DIR [--allow-env-change]] [--threshold F] [--rss-threshold F]
//	    [--trends FILE]
//
// It reads what each perf_benchmark test leaves in its outputs.zip (xtime's
// JSON, the CPU and heap profiles, pprof's call graphs): from the latest
// bazel-testlogs/benchmarks (--testlogs, the default) or from a directory
// of results downloaded from CI (--from; zips or unpacked directories,
// found at any depth). Results of full-size tests win over quick ones.
//
// It writes, into --out (default: report/ in the workspace), replacing it
// whole only when everything is written:
//
//	report.md   the table, the machine, the top functions of each stage
//	table.md    the table alone, for CI annotations
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
//
// With --baseline DIR (results in the same forms), each benchmark is
// compared with the baseline's using benchstat's Mann-Whitney U test, and
// report exits with status 1 when one's median real time is more than
// --threshold (default 0.15) worse or its max RSS more than --rss-threshold
// (default 0.10), with p < 0.05 (docs/regressions.md says why). Results that
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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/trends"
)

func main() {
	os.Exit(cli.Report(os.Stderr, "report", run(os.Args[1:], os.Stderr)))
}

// Exit statuses besides 0, 1 (a regression, or the report could not be
// made) and 2 (bad usage, no results).
const statusEnvironmentChanged = 3

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "read results from `DIR` (downloaded CI artifacts)")
	testlogs := fs.Bool("testlogs", false, "read results from the workspace's bazel-testlogs/benchmarks (the default)")
	out := fs.String("out", "", "write the report to `DIR` (default: report/ in the workspace)")
	baseline := fs.String("baseline", "", "compare with the results in `DIR` and fail on regressions")
	threshold := fs.Float64("threshold", DefaultThreshold, "the worsening of real time, as a `fraction`, past which a significant change fails")
	rssThreshold := fs.Float64("rss-threshold", DefaultRSSThreshold, "the same for max RSS, as a `fraction`")
	allowEnvChange := fs.Bool("allow-env-change", false, "compare with a baseline from another machine or toolchain")
	trendsFile := fs.String("trends", "", "chart the history in `FILE` (JSON: benchmarks' series over commits, with change points)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	case *from != "" && *testlogs:
		return cli.Usagef("--from and --testlogs are alternatives")
	case *threshold <= 0 || *rssThreshold <= 0:
		return cli.Usagef("--threshold=%v --rss-threshold=%v: must be positive", *threshold, *rssThreshold)
	case *allowEnvChange && *baseline == "":
		return cli.Usagef("--allow-env-change needs --baseline")
	}

	// The testlogs of every configuration: bazel-testlogs points at the
	// last one built, and bazel run itself, in the default configuration,
	// moves it away from the -c opt results of --config=perf.
	sources, _ := filepath.Glob(filepath.Join(cli.WorkspaceRoot(), "bazel-out", "*", "testlogs", "benchmarks"))
	if len(sources) == 0 {
		sources = []string{filepath.Join(cli.WorkspaceRoot(), "bazel-testlogs", "benchmarks")}
	}
	if *from != "" {
		sources = []string{cli.UserPath(*from)}
	}
	outDir := filepath.Join(cli.WorkspaceRoot(), "report")
	if *out != "" {
		outDir = cli.UserPath(*out)
	}

	report := &Report{Threshold: *threshold, RSSThreshold: *rssThreshold}
	if *trendsFile != "" {
		series, err := trends.Read(cli.UserPath(*trendsFile))
		if err != nil {
			return cli.Usagef("--trends: %v", err)
		}
		report.Trends = series
	}
	results, servers, err := load(sources, report)
	if err != nil {
		return err
	}
	report.Rows = Rows(results)
	report.Servers = servers
	var worse, moved []*Row
	if *baseline != "" {
		report.Baseline = cli.UserPath(*baseline)
		old, _, err := load([]string{report.Baseline}, report)
		if err != nil {
			return err
		}
		worse, moved = Compare(report.Rows, old, Gate{*threshold, *rssThreshold, *allowEnvChange})
		report.ProfileDiffs = diffRegressions(worse, report)
	}
	for _, p := range report.Problems {
		fmt.Fprintf(stderr, "report: %s\n", p)
	}
	if err := write(report, outDir); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %d benchmarks from %s: wrote %s and %s\n",
		len(report.Rows)+len(report.Servers), strings.Join(sources, ", "), filepath.Join(outDir, "index.html"), filepath.Join(outDir, "report.md"))
	for _, row := range moved {
		fmt.Fprintf(stderr, "report: %s: %s\n", row.Name, row.Compared.Note)
	}
	for _, row := range worse {
		fmt.Fprintf(stderr, "report: %s regressed: %s\n", row.Name, row.CompareText())
		for _, m := range row.Compared.Metrics {
			if m.Regressed {
				fmt.Fprintf(stderr, "report: %s: %s\n", row.Name, m)
			}
		}
	}
	if len(moved) > 0 && !*allowEnvChange {
		fmt.Fprintf(stderr, "report: %d benchmarks ran in another environment than their baseline's: not compared "+
			"(a new baseline is needed, or --allow-env-change)\n", len(moved))
	}
	switch {
	case len(worse) > 0:
		return cli.ExitError{Status: 1}
	case len(moved) > 0 && !*allowEnvChange:
		return cli.ExitError{Status: statusEnvironmentChanged}
	}
	return nil
}

// load reads the results under dirs, programs' and servers', recording
// their problems in report. It fails when they hold none.
func load(dirs []string, report *Report) ([]*Result, []*ServerRow, error) {
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			return nil, nil, cli.Usagef("no results: %v", err)
		}
	}
	results, problems, err := FindResults(dirs...)
	if err != nil {
		return nil, nil, err
	}
	servers, serverProblems, err := findServers(dirs...)
	if err != nil {
		return nil, nil, err
	}
	report.Problems = append(report.Problems, problems...)
	report.Problems = append(report.Problems, serverProblems...)
	if len(results) == 0 && len(servers) == 0 {
		if len(problems) > 0 {
			return nil, nil, cli.Usagef("no readable benchmark results in %s: %s", strings.Join(dirs, ", "), strings.Join(problems, "; "))
		}
		return nil, nil, cli.UsageError{Err: fmt.Errorf("no benchmark results in %s (no outputs.zip, no xtime.json): "+
			"run tools/bazel test //benchmarks:all --config=perf first", strings.Join(dirs, ", "))}
	}
	for _, r := range results {
		report.Problems = append(report.Problems, r.Problems...)
	}
	return results, servers, nil
}

// write writes the report into a new directory beside outDir, then puts
// it in outDir's place, so that a failure never leaves half a report.
func write(report *Report, outDir string) error {
	parent := filepath.Dir(outDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(outDir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var md, table, page, diffs strings.Builder
	report.WriteMarkdown(&md)
	report.WriteTable(&table)
	report.WriteDiffSummary(&diffs)
	if err := report.WriteHTML(&page); err != nil {
		return err
	}
	files := map[string][]byte{
		"report.md":  []byte(md.String()),
		"table.md":   []byte(table.String()),
		"index.html": []byte(page.String()),
	}
	if len(report.ProfileDiffs) > 0 {
		files[DiffsFile] = []byte(diffs.String())
	}
	for _, d := range report.ProfileDiffs {
		if d.Graph != "" {
			files[filepath.FromSlash(d.Graph)] = d.svg
		}
	}
	for _, row := range report.Rows {
		dir := filepath.Join("stages", row.Name)
		if row.CPU != nil {
			files[filepath.Join(dir, "flame.svg")] = FlameGraph(row.CPU, row.Name+": CPU time")
		}
		for name, data := range row.Graphs {
			files[filepath.Join(dir, name)] = data
		}
	}
	for _, row := range report.Servers {
		dir := filepath.Join("stages", row.Name)
		if row.CPU != nil {
			files[filepath.Join(dir, "flame.svg")] = FlameGraph(row.CPU, row.Name+": CPU time under load")
		}
		for name, data := range row.Graphs {
			files[filepath.Join(dir, name)] = data
		}
	}
	for name, data := range files {
		path := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}

	old := tmp + ".old"
	if err := os.Rename(outDir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, outDir); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
