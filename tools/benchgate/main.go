// Command benchgate compares two sets of Go benchmark results, as benchstat
// does, and fails when a benchmark got significantly slower or allocates
// more: the lab's gate against regressions of Go benchmarks.
//
//	benchgate [-threshold F] [-units U,...] [-old-bench NAME -new-bench NAME] [-allow-env-change]
//	    [-summary FILE] OLD NEW
//
// OLD and NEW are files in Go benchmark format (go test -bench output), or
// go_benchmark results (tools/result: an outputs.zip or its unpacked
// directory), whose Go benchmark file is read. Results of different
// machines or toolchains do not compare: benchgate names the fields that
// differ and exits with status 3, unless -allow-env-change. Each benchmark of NEW is compared with its
// namesake in OLD, unit by unit, with benchstat's Mann-Whitney U test: at
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
// -units names the units the gate judges (all are shown): by default the
// exact ones, B/op and allocs/op. Time on the lab's shared runners is not a
// gate by default: 6 runs of explodePath's benchmarks of unchanged code,
// measured twice in a row, differed by +129% (Naive/path=one, p < 0.05)
// while another job ran (docs/noise.md); -units=all, or a list with
// sec/op, gates it too, at -threshold and the noise.
//
// Each measure is judged by tools/verdict, the lab's one owner of that
// decision. benchgate prints a table of every comparison, writes it with
// -summary as summary.json (tools/summary, for the nightly job), and exits
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
	"sort"
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

// An input is the Go benchmark lines of OLD or NEW.
type input struct {
	data []byte
	name string              // for errors: the file, or the file in a result
	env  *result.Environment // nil for a plain file
	// benchmark and study name the result; "" for a plain file.
	benchmark, study string
}

// readInput reads a file in Go benchmark format, or the one a go_benchmark
// result (a directory or an outputs.zip) holds.
func readInput(path string) (input, error) {
	info, err := os.Stat(path)
	if err != nil {
		return input{}, cli.UsageError{Err: err}
	}
	if !info.IsDir() && filepath.Base(path) != result.ZipName {
		data, err := os.ReadFile(path)
		if err != nil {
			return input{}, cli.UsageError{Err: err}
		}
		return input{data: data, name: path}, nil
	}
	r, out, err := result.Read(path)
	if err != nil {
		return input{}, cli.UsageError{Err: err}
	}
	if r.Benchmark.Kind != result.KindGoTest {
		return input{}, cli.Usagef("%s: benchmark %s is a %s, not a Go benchmark (go_benchmark)", path, r.Benchmark.Name, r.Benchmark.Kind)
	}
	data, err := out.ReadFile(r.GoBench)
	if err != nil {
		return input{}, cli.UsageError{Err: err}
	}
	return input{data: data, name: out.Path(r.GoBench), env: &r.Environment, benchmark: r.Benchmark.Name, study: r.Benchmark.Study}, nil
}

// key names one measure of one benchmark: its name, without the
// -GOMAXPROCS suffix when comparing across benchmarks, and its unit.
type key struct{ name, unit string }

// samples reads in's results: the values of each measure, the keys in the
// order they first appear. With bench set, only results of benchmark bench
// are kept, their base name replaced by "*".
func samples(in input, bench string) (map[key][]float64, []key, error) {
	lines, _, err := result.ReadGoBench(in.data, in.name)
	if err != nil {
		return nil, nil, cli.UsageError{Err: err}
	}
	values := map[key][]float64{}
	var order []key
	for _, rec := range lines {
		name := string(rec.Name.Full())
		if bench != "" {
			base, _ := rec.Name.Parts()
			if string(base) != bench {
				continue
			}
			name = "*" + strings.TrimPrefix(name, bench)
		}
		for _, v := range rec.Values {
			k := key{name, v.Unit}
			if _, ok := values[k]; !ok {
				order = append(order, k)
			}
			values[k] = append(values[k], v.Value)
		}
	}
	if len(order) == 0 {
		return nil, nil, cli.Usagef("%s: no results of benchmark %s", in.name, bench)
	}
	return values, order, nil
}

func run(args []string, stdout, stderr io.Writer) (*summary.Summary, error) {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.Float64("threshold", verdict.Lab.Timing, "the worsening, as a `fraction`, past which a significant change of time fails (if it is past the noise too)")
	units := fs.String("units", "B/op,allocs/op", "gate these comma-separated `units`, or all")
	oldBench := fs.String("old-bench", "", "compare benchmark `NAME` of OLD ...")
	newBench := fs.String("new-bench", "", "... with benchmark `NAME` of NEW")
	allowEnvChange := fs.Bool("allow-env-change", false, "compare results of different machines or toolchains")
	summaryFile := fs.String("summary", "", "also write the comparison to `FILE` (summary.json: tools/summary)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return nil, err
	}
	if fs.NArg() != 2 {
		return nil, cli.Usagef("want two files, OLD and NEW")
	}
	if (*oldBench == "") != (*newBench == "") {
		return nil, cli.Usagef("-old-bench and -new-bench go together")
	}
	if *threshold <= 0 {
		return nil, cli.Usagef("-threshold=%v: must be positive", *threshold)
	}
	policy := verdict.Lab
	policy.Timing = *threshold
	gated := func(unit string) bool {
		return *units == "all" || strings.Contains(","+*units+",", ","+unit+",")
	}

	oldInput, err := readInput(cli.UserPath(fs.Arg(0)))
	if err != nil {
		return nil, err
	}
	newInput, err := readInput(cli.UserPath(fs.Arg(1)))
	if err != nil {
		return nil, err
	}
	if oldInput.env != nil && newInput.env != nil {
		if diffs := result.Differences(*oldInput.env, *newInput.env); len(diffs) > 0 {
			for _, d := range diffs {
				fmt.Fprintf(stderr, "benchgate: environment changed: %s\n", d)
			}
			if !*allowEnvChange {
				fmt.Fprintln(stderr, "benchgate: the results ran in different environments: not compared (-allow-env-change compares them)")
				var changes []string
				for _, d := range diffs {
					changes = append(changes, d.String())
				}
				sum := &summary.Summary{Tool: "benchgate", Baseline: oldInput.name, Benchmarks: []summary.Benchmark{{
					Name: newInput.benchmark, Study: newInput.study, Outcome: verdict.NotComparable, EnvironmentChanges: changes,
				}}}
				return sum, writeSummary(*summaryFile, sum)
			}
		}
	}
	old, _, err := samples(oldInput, strings.TrimPrefix(*oldBench, "Benchmark"))
	if err != nil {
		return nil, err
	}
	cur, order, err := samples(newInput, strings.TrimPrefix(*newBench, "Benchmark"))
	if err != nil {
		return nil, err
	}

	// A benchmark line's units are its figures, as tools/result declares
	// them; the lab's one comparison judges them, the -units flag gating.
	side := func(values map[key][]float64, order []key, name string) verdict.Side {
		var figs []result.Figure
		for _, k := range order {
			if k.name == name {
				figs = append(figs, result.Figure{Name: k.unit, Unit: k.unit, Source: "go test", Gated: gated(k.unit),
					Better: result.LowerIsBetter, Class: result.GoBenchClass(k.unit), Values: values[k]})
			}
		}
		return verdict.Side{Figures: figs}
	}
	var oldOrder []key
	for k := range old {
		oldOrder = append(oldOrder, k)
	}
	slices.SortFunc(oldOrder, func(a, b key) int { return cmp.Compare(a.name+" "+a.unit, b.name+" "+b.unit) })

	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "benchmark\tunit\told\tnew\tdelta\tp\tverdict\t")
	sum := &summary.Summary{Tool: "benchgate", Baseline: oldInput.name}
	benchmarks := map[string]int{} // name -> index in sum.Benchmarks
	judged := map[string][]verdict.Verdict{}
	var worse []string
	for _, k := range order {
		i, ok := benchmarks[k.name]
		if !ok {
			i = len(sum.Benchmarks)
			benchmarks[k.name] = i
			sum.Benchmarks = append(sum.Benchmarks, summary.Benchmark{Name: k.name, Study: newInput.study})
			judged[k.name] = policy.Compare(side(old, oldOrder, k.name), side(cur, order, k.name))
		}
		b := &sum.Benchmarks[i]
		b.Values = append(b.Values, summary.Value{Figure: k.unit, Unit: k.unit, Sample: result.NewSample(cur[k])})
		j := slices.IndexFunc(judged[k.name], func(v verdict.Verdict) bool { return v.Figure == k.unit })
		if j < 0 {
			fmt.Fprintf(w, "%s\t%s\t\t\t\t\tnew\t\n", k.name, k.unit)
			b.Note = "not in the baseline"
			continue
		}
		v := judged[k.name][j]
		b.Figures = append(b.Figures, v)
		label := v.Label()
		if why := cmp.Or(v.Reason, v.Warning); why != "" {
			label += " (" + why + ")"
		}
		if v.Fails() {
			worse = append(worse, fmt.Sprintf("%s %s %s", k.name, k.unit, v.ChangeText(1)))
		}
		fmt.Fprintf(w, "%s\t%s\t%.4g\t%.4g\t%s\t%.3f\t%s\t\n", k.name, k.unit, v.Old.Median, v.New.Median, v.ChangeText(1), v.P, label)
	}
	for i := range sum.Benchmarks {
		b := &sum.Benchmarks[i]
		// A gated unit of the baseline that tonight's lines lack: missing.
		for _, v := range judged[b.Name] {
			if v.Outcome == verdict.Missing {
				b.Figures = append(b.Figures, v)
				worse = append(worse, fmt.Sprintf("%s %s MISSING", b.Name, v.Figure))
			}
		}
		b.Outcome = verdict.Worst(b.Figures)
	}
	var gone []string
	for k := range old {
		if _, ok := cur[k]; !ok {
			gone = append(gone, k.name+" "+k.unit)
		}
	}
	sort.Strings(gone)
	for _, g := range gone {
		fmt.Fprintf(w, "%s\t\t\t\t\t\tgone\t\n", g)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	for _, r := range worse {
		fmt.Fprintf(stderr, "benchgate: regressed: %s\n", r)
	}
	return sum, writeSummary(*summaryFile, sum)
}

// writeSummary writes sum to file, unless file is "".
func writeSummary(file string, sum *summary.Summary) error {
	if file == "" {
		return nil
	}
	return summary.Write(file, sum)
}
