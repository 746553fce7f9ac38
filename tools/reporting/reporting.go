// Package reporting makes the report of a set of results: compared with
// its baseline's by the lab's one comparison (model.Compare, which asks
// summary.Compare), the regressions' profiles diffed, every file written
// (tools/reporting/export) into a directory the lab marks as a report's, and
// what it found said in the log. The report command and the nightly gate
// call it; the comparison it returns is what summary.json says.
package reporting

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/history"
	"havlak-lab/tools/reporting/export"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/trends"
	"havlak-lab/tools/verdict"
)

// Options are a report's inputs, read and checked by its caller.
type Options struct {
	// Set is the results reported, read from Sources.
	Set     *model.Set
	Sources []string
	// Baseline is the baseline's results of the same workload, read from
	// BaselineDir; nil without a baseline.
	Baseline    *model.Set
	BaselineDir string
	// Gate is the comparison's settings; Retire, the baseline's
	// benchmarks gone on purpose.
	Gate   model.Gate
	Retire []string
	// Trends are the history's series to chart, or none.
	Trends []trends.Series
	// Out is the directory the report replaces whole: one the caller has
	// checked is the lab's to replace (labdir.Check).
	Out string
	// Log has what the report found, a line each, "report: " first.
	Log io.Writer
}

// Write makes the report of o.Set into o.Out and returns its comparison
// (summary.json's): its Status is the report's exit status. An error is
// a report that could not be made: a bad retirement, a file not written.
func Write(o Options) (*summary.Summary, error) {
	log := cli.Terminal(o.Log)
	report := model.New(o.Set)
	report.Trends = o.Trends
	report.Threshold, report.RSSThreshold = o.Gate.Threshold, o.Gate.RSSThreshold
	var worse, moved []*model.Row
	if o.Baseline != nil {
		report.Baseline = o.BaselineDir
		report.Problems = append(report.Problems, o.Baseline.Problems...)
		var err error
		if worse, moved, err = model.Compare(report, o.Baseline, o.Gate, o.Retire); err != nil {
			return nil, cli.UsageError{Err: err}
		}
		report.DiffRegressions(worse)
	}
	for _, p := range report.Problems {
		fmt.Fprintf(log, "report: %s\n", cli.Field(p))
	}
	written, err := export.Write(report, o.Out)
	if err != nil {
		return nil, err
	}
	// Marked once whole: a report killed before this is adopted next time.
	if err := labdir.Mark(o.Out, labdir.Report); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "report: %d benchmarks of the %s workload from %s: wrote %s and %s\n",
		len(report.Rows)+len(report.Servers), report.Workload, fields(o.Sources...), cli.Field(filepath.Join(o.Out, "index.html")), cli.Field(filepath.Join(o.Out, "report.md")))
	for _, left := range report.LeftOut {
		fmt.Fprintf(log, "report: %s%s\n", strings.ToLower(left[:1]), cli.Field(left[1:]))
	}
	logVerdicts(log, report, worse, moved, o.Gate.AllowEnvChange)
	return written, nil
}

// logVerdicts says, a line each, what the comparison found: the
// benchmarks in another environment, missing, retired, regressed.
func logVerdicts(log io.Writer, report *model.Report, worse, moved []*model.Row, allowEnvChange bool) {
	for _, row := range moved {
		fmt.Fprintf(log, "report: %s: %s\n", cli.Field(row.Name), cli.Field(row.Compared.Note))
	}
	for _, m := range report.Missing {
		what := "MISSING"
		if m.Retired {
			what = "retired (--retire)"
		}
		fmt.Fprintf(log, "report: %s %s: %s\n", cli.Field(m.Name), what, cli.Field(m.Why))
	}
	for _, row := range report.Servers {
		if row.Compared != nil && row.Compared.Regressed {
			fmt.Fprintf(log, "report: %s regressed: %s\n", cli.Field(row.Name), cli.Field(row.Compared.Text()))
		}
	}
	for _, row := range worse {
		fmt.Fprintf(log, "report: %s regressed: %s\n", cli.Field(row.Name), cli.Field(row.CompareText()))
		for _, f := range row.Compared.Figures() {
			if f.Fails() {
				fmt.Fprintf(log, "report: %s: %s\n", cli.Field(row.Name), cli.Field(f.String()))
			}
		}
	}
	if allowEnvChange {
		return
	}
	// Another version of the lab compares nothing; another machine still
	// compares what it cannot change.
	benchmarks := make([]summary.Benchmark, 0, len(moved))
	for _, row := range moved {
		if row.Compared != nil {
			benchmarks = append(benchmarks, row.Compared.Benchmark)
		}
	}
	n := summary.NotCompared(benchmarks)
	if n.Lab > 0 {
		also := ""
		if n.LabAndEnvironment > 0 {
			also = fmt.Sprintf(" (%d of them also in %s)", n.LabAndEnvironment, result.AnotherEnvironment)
		}
		fmt.Fprintf(log, "report: %d benchmarks measured by another version of the lab than their baseline's%s: re-baselined, "+
			"none of their figures compared (--allow-env-change compares them)\n", n.Lab, also)
	}
	if n.Environment > 0 {
		fmt.Fprintf(log, "report: %d benchmarks ran in another environment than their baseline's: only the figures it cannot change "+
			"(exact counts, where the toolchains are the same) were compared (a new baseline is needed for the others, or --allow-env-change)\n", n.Environment)
	}
}

// Recent calibrates a gate with the history in db (Gate.Recent): the
// newest results of a baseline's binary and run (verdict.Lab's
// HistoryResults of them), in its environment.
func Recent(ctx context.Context, db *history.DB) func(base summary.Side) (map[result.FigureKey][]float64, map[string][]result.Sweep, error) {
	return func(base summary.Side) (map[result.FigureKey][]float64, map[string][]result.Sweep, error) {
		recent, err := db.Recent(ctx, history.RecentQuery{Benchmark: base.Benchmark.Name, Workload: base.Benchmark.Workload.Name,
			EnvKey: result.EnvironmentKey(*base.Environment), Identity: *base.Identity, N: verdict.Lab.HistoryResults})
		return recent.Medians, recent.Sweeps, err
	}
}

// fields is paths as one field of a line each, joined with commas.
func fields(paths ...string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = cli.Field(p)
	}
	return strings.Join(quoted, ", ")
}
