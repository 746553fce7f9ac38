// Command benchgate compares two sets of Go benchmark results, as benchstat
// does, and fails when a benchmark got significantly slower or allocates
// more: the lab's gate against regressions of Go benchmarks.
//
//	benchgate [-threshold F] [-units U,...] [-old-bench NAME -new-bench NAME] [-allow-env-change]
//	    [-summary FILE] OLD NEW
//
// OLD and NEW are files in Go benchmark format (go test -bench output), or
// go_benchmark results (tools/result: an outputs.zip or its unpacked
// directory) of one benchmark, whose Go benchmark file is read. Both are
// judged by the lab's one comparison (summary.Compare), as the nightly
// gate judges its Go benchmarks: each line's measures are figures, named by
// the line and their unit (tools/result). Timings of different machines
// or toolchains do not compare: benchgate names the fields that differ and
// exits with status 3, unless -allow-env-change. Each line of NEW is
// compared with its namesake in OLD, unit by unit, with benchstat's
// Mann-Whitney U test: at
// least 6 runs of each are needed to tell a change from noise at p < 0.05.
// A benchmark regresses when the test finds the difference significant and
//
//   - its time (sec/op), or any other measure, is worse by more than both
//     -threshold (default 0.15, 15%) and the noise of the runs (the larger
//     range over median of the two samples): on the lab's shared 2-core
//     runners a benchmark of unchanged code moved by up to 9.4% between two
//     nights with p = 0.002 (docs/noise.md), so the U test alone calls
//     drift a change; small changes of time are the low-noise figures' job;
//   - or it allocates more, by any amount (B/op, allocs/op): allocation is
//     deterministic, so any increase is a change of the code.
//
// -old-bench and -new-bench compare two different benchmarks instead, sub-
// benchmarks matched by name: -old-bench Naive -new-bench FieldsFunc
// compares BenchmarkNaive/path=root with BenchmarkFieldsFunc/path=root.
// -units names units the gate judges besides the allocations, B/op and
// allocs/op, which tools/result declares gated (all are shown). Time on the
// lab's shared runners is not a gate by default: 6 runs of explodePath's benchmarks of unchanged code,
// measured twice in a row, differed by +129% (Naive/path=one, p < 0.05)
// while another job ran (docs/noise.md); -units=all, or a list with
// sec/op, gates it too, at -threshold and the noise.
//
// Each measure is judged by tools/verdict, the lab's one owner of that
// decision. benchgate prints a table of every comparison, writes it with
// -summary as summary.json (tools/summary), and exits
// with verdict's statuses: 1 when one regressed, 2 for bad usage or
// unreadable input, 3 for results of different environments.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

func main() {
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	stderr := cli.Terminal(os.Stderr)
	sum, err := run(os.Args[1:], cli.Terminal(os.Stdout), stderr)
	if err == nil && sum.Status() != verdict.StatusOK {
		// The comparison's status, as summary.json says it.
		err = cli.ExitError{Status: sum.Status()}
	}
	os.Exit(cli.Report(stderr, "benchgate", err))
}

// filesBenchmark names the benchmark of a plain file of Go benchmark
// lines, which says none: both sides of a comparison of files are it.
const filesBenchmark = "go-bench-lines"

// readSide reads OLD or NEW as a side of the lab's comparison: a
// go_benchmark result (a directory or an outputs.zip) as it is, or a file
// in Go benchmark format as a result of that file alone.
func readSide(path string) (summary.Side, error) {
	info, err := os.Stat(path)
	if err != nil {
		return summary.Side{}, cli.UsageError{Err: err}
	}
	var r *result.Result
	var out result.Outputs
	if !info.IsDir() && filepath.Base(path) != result.ZipName {
		r = &result.Result{Benchmark: result.Benchmark{Name: filesBenchmark, Kind: result.KindGoTest}, GoBench: filepath.Base(path)}
		out, err = result.Open(filepath.Dir(path))
	} else {
		r, out, err = result.Read(path)
	}
	if err != nil {
		return summary.Side{}, cli.UsageError{Err: err}
	}
	defer out.Close()
	if r.Benchmark.Kind != result.KindGoTest {
		return summary.Side{}, cli.Usagef("%s: benchmark %s is a %s, not a Go benchmark (go_benchmark)", path, r.Benchmark.Name, r.Benchmark.Kind)
	}
	// A plain file records no environment: its side's is empty, and two
	// empty ones do not differ.
	side, err := summary.NewSide(r, out, path)
	if err != nil {
		return summary.Side{}, cli.UsageError{Err: err}
	}
	return side, nil
}

// only keeps the lines of benchmark bench among side's figures, each
// named with "*" for bench ("Naive/path=root-2" of Naive is
// "*/path=root-2"), so that two benchmarks' sub-benchmarks pair by name.
func only(side summary.Side, bench, which string) (summary.Side, error) {
	var kept []result.Figure
	for _, f := range side.Figures {
		if base, rest, _ := strings.Cut(f.Name, "/"); base == bench || strings.HasPrefix(f.Name, bench+"-") {
			if rest == "" {
				rest = strings.TrimPrefix(f.Name, bench)
			} else {
				rest = "/" + rest
			}
			f.Name = "*" + rest
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return side, cli.Usagef("%s: no results of benchmark %s (%s)", side.Source, bench, which)
	}
	side.Figures = kept
	return side, nil
}

func run(args []string, stdout, stderr io.Writer) (*summary.Summary, error) {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.Float64("threshold", verdict.Lab.Timing, "the worsening, as a `fraction`, past which a significant change of time fails (if it is past the noise too)")
	units := fs.String("units", "", "gate these comma-separated `units` too, or all (B/op and allocs/op always are)")
	oldBench := fs.String("old-bench", "", "compare benchmark `NAME` of OLD ...")
	newBench := fs.String("new-bench", "", "... with benchmark `NAME` of NEW")
	allowEnvChange := fs.Bool("allow-env-change", false, "compare results of different machines or toolchains")
	summaryFile := fs.String("summary", "", "also write the comparison to `FILE` (summary.json: tools/summary)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() != 2:
		return nil, cli.Usagef("want two files, OLD and NEW")
	case (*oldBench == "") != (*newBench == ""):
		return nil, cli.Usagef("-old-bench and -new-bench go together")
	case *threshold <= 0:
		return nil, cli.Usagef("-threshold=%v: must be positive", *threshold)
	}
	var sides [2]summary.Side
	for i, bench := range []string{*oldBench, *newBench} {
		var err error
		if sides[i], err = readSide(cli.UserPath(fs.Arg(i))); err != nil {
			return nil, err
		}
		if bench != "" {
			if sides[i], err = only(sides[i], strings.TrimPrefix(bench, "Benchmark"), fs.Arg(i)); err != nil {
				return nil, err
			}
		}
	}
	if o, n := sides[0].Benchmark.Name, sides[1].Benchmark.Name; o != n {
		return nil, cli.Usagef("OLD is a result of benchmark %s, NEW of %s: benchgate compares results of one benchmark", o, n)
	}
	opts := summary.Options{Policy: verdict.Lab}
	opts.Policy.Timing, opts.Policy.AllowEnvironmentChange = *threshold, *allowEnvChange
	opts.Policy.GatedUnits = gatedUnits(*units, sides[0].Figures)
	sum, err := summary.Compare("benchgate", sides[0].Source, sides[:1], sides[1:], opts)
	if err != nil {
		return nil, err
	}
	if err := writeTable(stdout, sides, sum.Benchmarks[0]); err != nil {
		return nil, err
	}
	for _, b := range sum.Benchmarks {
		for _, d := range b.EnvironmentChanges {
			fmt.Fprintf(stderr, "benchgate: environment changed: %s\n", d)
		}
		if b.EnvironmentChanged() {
			fmt.Fprintln(stderr, "benchgate: the results ran in different environments: their timings were not compared (-allow-env-change compares them)")
		}
		for _, v := range b.Failing() {
			change := v.ChangeText(1)
			if v.Outcome == verdict.Missing {
				change = "MISSING"
			}
			fmt.Fprintf(stderr, "benchgate: regressed: %s %s %s\n", v.Figure, v.Unit, change)
		}
	}
	if *summaryFile == "" {
		return sum, nil
	}
	return sum, summary.Write(*summaryFile, sum)
}

// gatedUnits are the units -units names: all of figures' when it says
// all.
func gatedUnits(units string, figures []result.Figure) []string {
	if units != "all" {
		return slices.DeleteFunc(strings.Split(units, ","), func(u string) bool { return u == "" })
	}
	var all []string
	for _, f := range figures {
		if !slices.Contains(all, f.Unit) {
			all = append(all, f.Unit)
		}
	}
	return all
}

// writeTable prints every measure of the two sides: each judged one with
// its verdict, those only NEW has as new, those only OLD has as gone.
func writeTable(stdout io.Writer, sides [2]summary.Side, b summary.Benchmark) error {
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "benchmark\tunit\told\tnew\tdelta\tp\tverdict\t")
	judged := map[result.FigureKey]verdict.Verdict{}
	for _, v := range b.Figures {
		judged[result.FigureKey{Name: v.Figure, Unit: v.Unit}] = v
	}
	listed := map[result.FigureKey]bool{}
	for _, f := range sides[1].Figures {
		k := result.FigureKey{Name: f.Name, Unit: f.Unit}
		listed[k] = true
		v, ok := judged[k]
		if !ok {
			fmt.Fprintf(w, "%s\t%s\t\t\t\t\tnew\t\n", f.Name, f.Unit)
			continue
		}
		label := v.Label()
		if why := cmp.Or(v.Reason, v.Warning); why != "" {
			label += " (" + why + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%.4g\t%.4g\t%s\t%.3f\t%s\t\n", f.Name, f.Unit, v.Old.Median, v.New.Median, v.ChangeText(1), v.P, label)
	}
	for _, f := range sides[0].Figures {
		if k := (result.FigureKey{Name: f.Name, Unit: f.Unit}); !listed[k] {
			label := "gone"
			if v, ok := judged[k]; ok {
				label = v.Label()
			}
			fmt.Fprintf(w, "%s\t%s\t\t\t\t\t%s\t\n", f.Name, f.Unit, label)
		}
	}
	return w.Flush()
}
