// Command bisect finds the commit that changed a benchmark's low-noise
// figure: the first bad commit between a good and a bad one.
//
// Usage:
//
//	tools/bazel run //tools/bisect -- GOOD BAD --benchmark NAME
//		[--figure F] [--repetitions N] [--json FILE]
//		[--build bazel|go] [--target LABEL] [--spec FILE --go-package PKG]
//		[--manifest FILE | --manifest-target LABEL]
//
// It adds a git worktree of the repository (the workspace bazel run was
// started in, or --repo) under the lab's cache directory and works only
// there: the user's checkout, its index and its files are never touched.
// In the worktree it measures GOOD and BAD, then lets git bisect pick the
// commits between them, and removes the worktree at the end. Each commit is
// built and its program run under Cachegrind (package
// havlak-lab/tools/perf/cachegrind, as the benchmarks' tests count) on the
// workload the benchmark's spec declares for its counted runs, the
// repetitions its spec asks (at least 3) or --repetitions.
//
// What the benchmark is comes from its declaration, never from its name:
// the spec perf_spec writes (package havlak-lab/tools/perf/perfspec).
// Builders:
//
//   - bazel (the default): each commit is built with the worktree's own
//     tools/bazel (the user's user.bazelrc copied in, so its disk or remote
//     cache serves every commit), target --target (default: the
//     benchmark's quick test, as the benchmarks' manifest lists it, whose
//     runfiles hold its spec, its program and its data); the spec is read
//     from the runfiles of that commit's build, and the program runs in
//     them. Go and C++ benchmarks.
//   - go: each commit's Go main package --go-package (e.g. ./go/havlak6)
//     is built with the go command ($GO, else the workspace's Go SDK under
//     bazel run, else go on PATH) and runs in the worktree's root; the
//     spec is the benchmark's quick test's, as the current checkout's
//     manifest lists it, or --spec FILE. Cheaper, no nested Bazel; for Go
//     benchmarks whose program is one main package.
//
// The benchmarks' manifest (a benchmark_manifest's file, package
// havlak-lab/tools/perf/perfspec) is --manifest FILE, by default the
// workspace's: Bazel is asked which benchmark_manifest it declares (one;
// --manifest-target LABEL names one of several), whose file is under the
// checkout's bazel-bin once built (`tools/bazel build LABEL` writes it and
// the specs it names). Never built, the bazel builder takes the quick
// test's label from the manifest rule's declaration, as the query gives it.
//
// The figure is the one the gate judges (own_instructions for a Go
// program, instructions for C and C++), or --figure. GOOD and BAD must
// differ as the gate judges counts (tools/verdict: by more than their
// runs' noise and than its threshold, calibrated from GOOD's runs as the
// gate's is from its base's: 0.25% for an exact count that does not move,
// 0.5% for a Go program's own count), else there is nothing to bisect. How a
// commit is judged good or bad (verdict.Boundary) is printed before the
// bisection starts. --json FILE writes the answer and every measurement
// (package tools/firstbad/answer).
//
// Exit status: 0 with the first bad commit found; 1 when it cannot be
// found (GOOD and BAD the same to the gate, a build failing, only skipped
// commits left); 2 for a usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/firstbad"
	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/result"
)

func main() {
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	os.Exit(cli.Report(terminal, "bisect", run(os.Args[1:])))
}

// terminal is the standard error, where the builds of each commit write
// too.
var terminal = cli.Terminal(os.Stderr)

const usage = "usage: bisect GOOD BAD --benchmark NAME [--figure F] [--repetitions N] [--json FILE] [--build bazel|go] [--target LABEL] [--go-package PKG [--spec FILE]] [--manifest FILE | --manifest-target LABEL] [--repo DIR]"

func run(args []string) error {
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	var o firstbad.Options
	var jsonOut string
	fs.StringVar(&o.Benchmark, "benchmark", "", "the benchmark's `name`, as its manifest lists it")
	fs.StringVar(&o.Figure, "figure", "", "the count to bisect on: "+result.MetricOwnInstructions+" or "+result.MetricInstructions+" (default: the one the gate judges)")
	fs.StringVar(&o.Figure, "metric", "", "deprecated: --figure")
	fs.IntVar(&o.Repetitions, "repetitions", 0, "runs under Cachegrind per commit (default: the spec's counted repetitions, at least 3)")
	fs.StringVar(&jsonOut, "json", "", "also write the answer and the measurements as JSON to `file`")
	fs.StringVar(&o.Builder, "build", "bazel", "how each commit is built: bazel (tools/bazel in the worktree) or go (the go command)")
	fs.StringVar(&o.Target, "target", "", "bazel: the benchmark's test `label` whose runfiles hold its spec (default: its quick test, from the manifest)")
	fs.StringVar(&o.SpecFile, "spec", "", "go: the benchmark's spec `file` (perf_spec's JSON; default: its quick test's, from the manifest)")
	fs.StringVar(&o.Manifest, "manifest", "", "the benchmarks' manifest `file` (default: the manifest --manifest-target labels, under bazel-bin in the repository)")
	fs.StringVar(&o.ManifestTarget, "manifest-target", "", "the benchmarks' manifest, a benchmark_manifest's `LABEL` (default: the one the workspace declares, asked of Bazel)")
	fs.StringVar(&o.GoPackage, "go-package", "", "go: the benchmark's main `package`, relative to the repository's root (./go/havlak6)")
	fs.StringVar(&o.Repo, "repo", "", "the git repository (default: the workspace bazel run started in, else the current directory)")
	fs.StringVar(&o.Cache, "cache", "", "where the worktree goes (default: bisect in the lab's cache directory, internal/labcache)")
	// GOOD and BAD may come before or after the flags.
	var positional []string
	for {
		if help, err := cli.ParseFlags(fs, args); help || err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 2 {
		return cli.Usagef("want GOOD and BAD, got %d commits\n%s", len(positional), usage)
	}
	o.Good, o.Bad = positional[0], positional[1]
	if err := check(o); err != nil {
		return err
	}
	if o.Repo == "" {
		o.Repo = cli.WorkspaceRoot()
	} else {
		o.Repo = cli.UserPath(o.Repo)
	}
	for _, path := range []*string{&o.SpecFile, &o.Manifest, &jsonOut, &o.Cache} {
		if *path != "" {
			*path = cli.UserPath(*path)
		}
	}
	a, err := firstbad.Find(o, terminal)
	if err != nil {
		return err
	}
	printAnswer(cli.Terminal(os.Stdout), a)
	if jsonOut != "" {
		return answer.Write(jsonOut, a)
	}
	return nil
}

// check refuses flags that do not go together.
func check(o firstbad.Options) error {
	switch {
	case o.Benchmark == "":
		return cli.Usagef("--benchmark: which benchmark?\n%s", usage)
	case o.Repetitions < 0:
		return cli.Usagef("--repetitions %d: want 1 or more", o.Repetitions)
	case o.Manifest != "" && o.ManifestTarget != "":
		return cli.Usagef("--manifest FILE or --manifest-target LABEL: the manifest, once")
	case o.Builder == "bazel":
		if o.SpecFile != "" || o.GoPackage != "" {
			return cli.Usagef("--spec and --go-package are for --build=go")
		}
	case o.Builder == "go":
		if o.GoPackage == "" {
			return cli.Usagef("--build=go needs --go-package PKG")
		}
		if o.Target != "" {
			return cli.Usagef("--target is for --build=bazel")
		}
	default:
		return cli.Usagef("--build %q: want bazel or go", o.Builder)
	}
	return nil
}

func printAnswer(w io.Writer, r *answer.Answer) {
	fmt.Fprintf(w, "first bad commit: %s %s\n", r.FirstBad.Commit, r.FirstBad.Subject)
	fmt.Fprintf(w, "  %s %s: %s (%+.2f%% against its parent)\n", r.Benchmark, r.Figure, firstbad.Describe(r.FirstBad.Values), 100*r.Change)
	fmt.Fprintf(w, "  its parent %s %s: %s\n", gitwork.Short(r.Parent.Commit), r.Parent.Subject, firstbad.Describe(r.Parent.Values))
	fmt.Fprintf(w, "  GOOD %s: %s; BAD %s: %s; %d commits measured besides\n",
		gitwork.Short(r.Good.Commit), firstbad.Describe(r.Good.Values), gitwork.Short(r.Bad.Commit), firstbad.Describe(r.Bad.Values), len(r.Steps))
}
