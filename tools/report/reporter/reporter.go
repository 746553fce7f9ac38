// Package reporter is the report command's work: it reads and checks the
// results it is asked to report (a directory of results, a night, the
// latest testlogs), the baseline, the trends and the history's recent
// results, refuses an output directory that would replace what it reads or
// is not the lab's, and has tools/reporting write the report. The command
// (tools/report; its package doc is the manual) parses the flags into
// Options and calls Run.
package reporter

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/internal/bazelcmd"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/reporting"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/trends"
	"havlak-lab/tools/verdict"
)

// Options are the report's command line, its flags as the user typed them
// (a path relative to where bazel run was typed), checked by the command.
type Options struct {
	// What is read, and where the report goes.
	From, NightDir, Out string
	Testlogs            bool
	// ManifestTarget is the label of the benchmarks' manifest, whose
	// tests' packages the test logs are read from ("": the one the
	// workspace declares, perfspec.QueryManifest).
	ManifestTarget string
	Workload       string
	TrendsFile     string
	// What it is compared with, and how.
	Baseline, HistoryDSN    string
	Threshold, RSSThreshold float64
	AllowEnvChange          bool
	Accepted                []verdict.Acceptance
	Retire                  summary.Retire
}

// Run makes the report f asks for, saying on log what it found and left
// out. Its error is a cli error of the report's exit status: 2 for bad
// usage or no results, the summary's status (tools/verdict) otherwise.
func Run(f Options, log io.Writer) error {
	outDir := f.outDir()
	sources, night, err := f.sourcesApartFrom(outDir, log)
	if err != nil {
		return err
	}
	if err := claimOut(outDir, log); err != nil {
		return err
	}

	var series []trends.Series
	if f.TrendsFile != "" {
		var err error
		if series, err = trends.Read(cli.UserPath(f.TrendsFile)); err != nil {
			return cli.Usagef("--trends: %v", err)
		}
	}
	set, err := Load(f.Workload, sources, night != nil)
	if err != nil {
		return err
	}
	gate := model.Gate{Threshold: f.Threshold, RSSThreshold: f.RSSThreshold, AllowEnvChange: f.AllowEnvChange, Accepted: f.Accepted}
	if f.HistoryDSN != "" {
		ctx := context.Background()
		db, err := history.Open(ctx, f.HistoryDSN)
		if err != nil {
			return fmt.Errorf("--history: %w", err)
		}
		defer db.Close()
		gate.Recent = reporting.Recent(ctx, db)
	}
	o := reporting.Options{Set: set, Sources: sources, Gate: gate, Retire: f.Retire, Trends: series, Out: outDir, Log: log}
	if f.Baseline != "" {
		o.BaselineDir = cli.UserPath(f.Baseline)
		if o.Baseline, err = Load(set.Workload, []string{o.BaselineDir}, night != nil); err != nil {
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

// outDir is where the report goes.
func (f Options) outDir() string {
	if f.Out != "" {
		return cli.UserPath(f.Out)
	}
	return filepath.Join(cli.WorkspaceRoot(), "report")
}

// sourcesApartFrom is the directories the results are read from, and the
// night they are with --night, each refused when the report written to
// outDir would replace it, as is a baseline that would be. Bazel's
// standard error, when it is asked for the manifest, goes to log.
func (f Options) sourcesApartFrom(outDir string, log io.Writer) ([]string, *result.Night, error) {
	var sources []string
	switch {
	case f.From != "":
		sources = []string{cli.UserPath(f.From)}
	case f.NightDir == "":
		var err error
		if sources, err = f.testlogs(log); err != nil {
			return nil, nil, err
		}
	}
	// What is read is never what is written: the report replaces --out
	// whole.
	var night *result.Night
	if f.NightDir != "" {
		var err error
		if night, err = result.OpenNight(cli.UserPath(f.NightDir), nightdir.Layout()); err != nil {
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
	if f.Baseline != "" {
		if err := result.Apart("--baseline", cli.UserPath(f.Baseline), "--out", outDir); err != nil {
			return nil, nil, cli.Usagef("%v: the report would replace what it reads", err)
		}
	}
	return sources, night, nil
}

// testlogs are the workspace's test logs of its benchmarks' tests: those
// of the packages of the tests its manifest declares (asked of Bazel), in
// every configuration, for bazel-testlogs points at the last one built,
// and bazel run itself, in the default configuration, moves it away from
// the -c opt results of --config=perf.
func (f Options) testlogs(log io.Writer) ([]string, error) {
	root := cli.WorkspaceRoot()
	label, g, err := perfspec.QueryManifest(bazelcmd.Runner(root, log), f.ManifestTarget)
	if err != nil {
		return nil, cli.Usagef("the benchmarks' test logs: %v (or --from DIR, --night DIR)", err)
	}
	pkgs, err := perfspec.TestPackages(g, label, result.ConfigPerf, result.ConfigQuick)
	if err != nil || len(pkgs) == 0 {
		return nil, cli.Usagef("the benchmarks' test logs: the tests of %s: %v", label, err)
	}
	var sources []string
	for _, pkg := range pkgs {
		dirs, _ := filepath.Glob(filepath.Join(root, "bazel-out", "*", "testlogs", filepath.FromSlash(pkg)))
		sources = append(sources, dirs...)
	}
	if len(sources) == 0 {
		// None yet: Load names the place.
		sources = []string{filepath.Join(root, result.Testlogs, filepath.FromSlash(pkgs[0]))}
	}
	return sources, nil
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
		case e.IsDir() && name == nightdir.Stages:
		case e.Type().IsRegular() && (ext == ".md" || ext == ".html" || ext == ".json"):
		default:
			return fmt.Errorf("%s is not among a report's files", filepath.Join(dir, name))
		}
	}
	_, err = summary.Read(filepath.Join(dir, summary.FileName))
	return err
}

// Load reads the results of a workload under dirs ("": the default one,
// see model.Load), or of the night in dirs[0] (result.Night). It fails
// when they hold none.
func Load(workload string, dirs []string, isNight bool) (*model.Set, error) {
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
	return nil, cli.UsageError{Err: fmt.Errorf("no benchmark results in %s (no %s, no %s): "+
		"run the benchmarks' tests first (tools/bazel test --config=perf PACKAGE:all)", strings.Join(dirs, ", "), result.ZipName, result.XTimeName)}
}
