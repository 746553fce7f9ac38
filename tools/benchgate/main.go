// Command benchgate compares two sets of Go benchmark results, as benchstat
// does, and fails when a benchmark got significantly slower or allocates
// more: the lab's gate against regressions of Go benchmarks.
//
//	benchgate [-threshold F] [-units U,...] [-old-bench NAME -new-bench NAME] OLD NEW
//
// OLD and NEW are files in Go benchmark format (go test -bench output, or
// go_benchmark's bench.txt). Each benchmark of NEW is compared with its
// namesake in OLD, unit by unit, with benchstat's Mann-Whitney U test: at
// least 6 runs of each are needed to tell a change from noise at p < 0.05.
// A benchmark regresses when the test finds the difference significant and
//
//   - its time (sec/op), or any other measure, is more than -threshold
//     (default 0.05, 5%) worse: on the lab's shared 2-core runners, changes
//     below that come and go from one night to the next even when the test
//     calls them significant;
//   - or it allocates more, by any amount (B/op, allocs/op): allocation is
//     deterministic, so any increase is a change of the code.
//
// -old-bench and -new-bench compare two different benchmarks instead, sub-
// benchmarks matched by name: -old-bench Naive -new-bench FieldsFunc
// compares BenchmarkNaive/path=root with BenchmarkFieldsFunc/path=root.
// -units restricts the gate to some units (all are still shown).
//
// It prints a table of every comparison and exits with status 1 when one
// regressed, 2 for bad usage or unreadable input.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

type usageError struct{ error }

func main() {
	regressed, err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "benchgate: %v\n", err)
		if errors.As(err, new(usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	case regressed:
		os.Exit(1)
	}
}

// formatChange describes the change from old to new in percent, or from
// zero.
func formatChange(old, new float64) string {
	switch {
	case old != 0:
		return fmt.Sprintf("%+.1f%%", 100*(new/old-1))
	case new == 0:
		return "+0.0%"
	}
	return fmt.Sprintf("from 0 to %.4g", new)
}

// userPath resolves a path the user typed: under bazel run, relative to
// where it was typed.
func userPath(path string) string {
	if dir := os.Getenv("BUILD_WORKING_DIRECTORY"); dir != "" && !filepath.IsAbs(path) {
		return filepath.Join(dir, path)
	}
	return path
}

// key names one measure of one benchmark: its name, without the
// -GOMAXPROCS suffix when comparing across benchmarks, and its unit.
type key struct{ name, unit string }

// samples reads path's results: the values of each measure, the keys in
// the order they first appear. With bench set, only results of benchmark
// bench are kept, their base name replaced by "*".
func samples(path, bench string) (map[key][]float64, []key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, usageError{err}
	}
	defer f.Close()
	values := map[key][]float64{}
	var order []key
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, nil, usageError{rec}
		case *benchfmt.Result:
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
	}
	if err := r.Err(); err != nil {
		return nil, nil, usageError{err}
	}
	if len(order) == 0 {
		what := "no benchmark results"
		if bench != "" {
			what = "no results of benchmark " + bench
		}
		return nil, nil, usageError{fmt.Errorf("%s: %s", path, what)}
	}
	return values, order, nil
}

func run(args []string, stdout, stderr io.Writer) (regressed bool, err error) {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.Float64("threshold", 0.05, "the worsening, as a `fraction`, past which a significant change of time fails")
	units := fs.String("units", "", "gate only these comma-separated `units` (all by default)")
	oldBench := fs.String("old-bench", "", "compare benchmark `NAME` of OLD ...")
	newBench := fs.String("new-bench", "", "... with benchmark `NAME` of NEW")
	if err := fs.Parse(args); err != nil {
		return false, usageError{err}
	}
	if fs.NArg() != 2 {
		return false, usageError{errors.New("want two files, OLD and NEW")}
	}
	if (*oldBench == "") != (*newBench == "") {
		return false, usageError{errors.New("-old-bench and -new-bench go together")}
	}
	if *threshold <= 0 {
		return false, usageError{fmt.Errorf("-threshold=%v: must be positive", *threshold)}
	}
	gated := func(unit string) bool {
		return *units == "" || strings.Contains(","+*units+",", ","+unit+",")
	}

	old, _, err := samples(userPath(fs.Arg(0)), strings.TrimPrefix(*oldBench, "Benchmark"))
	if err != nil {
		return false, err
	}
	cur, order, err := samples(userPath(fs.Arg(1)), strings.TrimPrefix(*newBench, "Benchmark"))
	if err != nil {
		return false, err
	}

	thresholds := &benchmath.DefaultThresholds
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "benchmark\tunit\told\tnew\tdelta\tp\tverdict\t")
	var worse []string
	for _, k := range order {
		o, ok := old[k]
		if !ok {
			fmt.Fprintf(w, "%s\t%s\t\t\t\t\tnew\t\n", k.name, k.unit)
			continue
		}
		oldSample := benchmath.NewSample(append([]float64(nil), o...), thresholds)
		newSample := benchmath.NewSample(append([]float64(nil), cur[k]...), thresholds)
		oldMedian := benchmath.AssumeNothing.Summary(oldSample, 0.95).Center
		newMedian := benchmath.AssumeNothing.Summary(newSample, 0.95).Center
		cmp := benchmath.AssumeNothing.Compare(oldSample, newSample)
		change := formatChange(oldMedian, newMedian)
		verdict := "~"
		if cmp.P < cmp.Alpha {
			verdict = "better"
			if newMedian > oldMedian {
				verdict = "worse"
				// Any more allocation is a change of the code; time must
				// worsen past the threshold.
				past := true
				if k.unit != "B/op" && k.unit != "allocs/op" {
					past = oldMedian > 0 && newMedian/oldMedian-1 > *threshold
				}
				if past && gated(k.unit) {
					verdict = "REGRESSED"
					worse = append(worse, fmt.Sprintf("%s %s %s", k.name, k.unit, change))
				}
			}
		}
		if len(cmp.Warnings) > 0 {
			verdict += " (" + cmp.Warnings[0].Error() + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%.4g\t%.4g\t%s\t%.3f\t%s\t\n", k.name, k.unit, oldMedian, newMedian, change, cmp.P, verdict)
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
		return false, err
	}
	for _, r := range worse {
		fmt.Fprintf(stderr, "benchgate: regressed: %s\n", r)
	}
	return len(worse) > 0, nil
}
