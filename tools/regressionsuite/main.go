// Command regressionsuite measures the gate's power: in a scratch copy of
// the checkout, it measures each benchmark of the regression suite's cases
// again and again unchanged (the false alarms), then applies each patch
// (tools/regressionsuite/patches: one kind of regression each, in Go or
// C++, at about 0.5%, 1%, 2% or 5%), builds and measures the benchmark's
// quick test, judges it against the unchanged one by the perf check's
// rule, and writes the detection matrix; the neutral patches (changes that
// compute the same with the same work) are judged the same way in every
// benchmark they reach, for the false alarms of the second matrix.
//
//	tools/bazel run //tools/regressionsuite -- [--cases REGEXP] [--reruns N] [--out FILE] [--doc FILE] [--detection FILE]
//	    [--manifest-target LABEL]
//
// Each benchmark's quick test is the one the benchmarks' manifest names:
// the benchmark_manifest the checkout declares, asked of Bazel in the
// copy, or --manifest-target's.
//
// It takes long (about a minute per case): progress goes to stderr. --out writes
// the matrix as Markdown (default: regression-suite.md in the checkout);
// --doc also replaces the matrix between the markers of a document
// (docs/records/regression-suite.md keeps the latest); --detection writes
// the regression cases' outcomes as the detection record
// (tools/detection/detection.json keeps the latest, which
// the perf check's comment reads). Exit status 1 when a case could not be
// run or unchanged code or a neutral change raised an alarm; a missed case
// is a finding, not a failure.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/detection"
	"havlak-lab/tools/regressionsuite/suite"
)

func main() {
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	stderr := cli.Terminal(os.Stderr)
	os.Exit(cli.Report(stderr, "regressionsuite", run(os.Args[1:], stderr)))
}

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("regressionsuite", flag.ContinueOnError)
	fs.SetOutput(log)
	patches := fs.String("patches", "", "the `directory` of the patches (default: tools/regressionsuite/patches in the checkout)")
	casesFlag := fs.String("cases", "", "run only the cases whose name matches `REGEXP`")
	reruns := fs.Int("reruns", 8, "measure each benchmark of the cases `N` more times unchanged, for false alarms")
	repoFlag := fs.String("repo", "", "the checkout to copy (default: where bazel run was typed)")
	manifestTarget := fs.String("manifest-target", "", "the benchmarks' manifest, a benchmark_manifest's `LABEL`, which names the quick tests (default: the one the checkout declares, asked of Bazel)")
	out := fs.String("out", "", "write the matrix to `FILE` (default: regression-suite.md in the checkout)")
	doc := fs.String("doc", "", "also put the matrix between the markers of `FILE` (docs/records/regression-suite.md)")
	detectionFile := fs.String("detection", "", "also write the regression cases' outcomes to `FILE` (tools/detection/detection.json)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *reruns < 0 {
		return cli.Usagef("--reruns %d: want 0 or more", *reruns)
	}
	filter, err := regexp.Compile(*casesFlag)
	if err != nil {
		return cli.Usagef("--cases: %v", err)
	}
	checkout := cli.WorkspaceRoot()
	if *repoFlag != "" {
		checkout = cli.UserPath(*repoFlag)
	}
	dir := filepath.Join(checkout, "tools", "regressionsuite", "patches")
	if *patches != "" {
		dir = cli.UserPath(*patches)
	}
	all, err := suite.LoadCases(dir)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	var cases []suite.Case
	for _, c := range all {
		if filter.MatchString(c.Name) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return cli.Usagef("--cases %q matches none of the %d cases", *casesFlag, len(all))
	}
	outFile := filepath.Join(checkout, "regression-suite.md")
	if *out != "" {
		outFile = cli.UserPath(*out)
	}
	cache, err := labcache.Dir("regressionsuite")
	if err != nil {
		return err
	}
	r := &suite.Runner{Scratch: filepath.Join(cache, "checkout"), Log: log, ManifestTarget: *manifestTarget}
	m, err := measure(r, cases, checkout, *reruns)
	if err != nil {
		return err
	}
	var text bytes.Buffer
	m.WriteMarkdown(&text)
	if err := atomicfile.WriteFile(outFile, text.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "regressionsuite: wrote %s\n", outFile)
	if *doc != "" {
		if err := suite.UpdateDoc(cli.UserPath(*doc), text.Bytes()); err != nil {
			return err
		}
	}
	if *detectionFile != "" {
		if err := detection.Write(cli.UserPath(*detectionFile), m.Detection()); err != nil {
			return err
		}
		fmt.Fprintf(log, "regressionsuite: wrote %s\n", cli.UserPath(*detectionFile))
	}
	return m.Failure()
}

// measure runs the baseline and the cases in r's scratch copy of the
// checkout.
func measure(r *suite.Runner, cases []suite.Case, checkout string, reruns int) (*suite.Matrix, error) {
	log := r.Log
	m := &suite.Matrix{Started: time.Now()}
	fmt.Fprintf(log, "regressionsuite: copying %s to %s\n", checkout, r.Scratch)
	base, err := r.Prepare(checkout)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m.Base = base
	m.Checkout = checkoutCommit(checkout)
	var benchmarks []string
	for _, c := range cases {
		for _, b := range c.Benchmarks {
			if !contains(benchmarks, b) {
				benchmarks = append(benchmarks, b)
			}
		}
	}
	m.Reruns = r.Baseline(benchmarks, reruns)
	for i, c := range cases {
		what := c.Kind + ", " + c.Language
		if c.Size != "" {
			what += ", " + c.Size
		}
		fmt.Fprintf(log, "regressionsuite: [%d/%d] %s (%s in %s), %s since the start\n",
			i+1, len(cases), c.Name, what, strings.Join(c.Benchmarks, ", "), time.Since(m.Started).Round(time.Second))
		o := r.Run(c)
		fmt.Fprintf(log, "regressionsuite: %s: %s\n", c.Name, o.Summary())
		m.Outcomes = append(m.Outcomes, o)
	}
	m.Took = time.Since(m.Started)
	return m, nil
}

// checkoutCommit is the checkout's HEAD, "+" added when it has changes
// not committed (which the copy took along).
func checkoutCommit(dir string) string {
	repo := gitwork.Repo(dir)
	head, err := repo.Output("rev-parse", "--short=12", "HEAD")
	if err != nil {
		return "unknown"
	}
	if status, _ := repo.Output("status", "--porcelain"); status != "" {
		head += "+"
	}
	return head
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
