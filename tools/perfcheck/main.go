// Command perfcheck tells, before a change lands, what it does to the
// benchmarks: exactly those it can affect, measured against its base.
//
//	tools/bazel run //tools/perfcheck -- [--base REV] [--out DIR] [--repo DIR] [--dashboard URL]
//
// It builds //benchmarks:all at the change (the checkout bazel run was
// typed in, uncommitted changes included) and at the base (REV, by default
// the merge base of HEAD with main), the base in a worktree of its own
// under the lab's cache directory (internal/labcache), never in the
// checkout. It compares each benchmark's identity (tools/perf/perfspec:
// the sums of its binary and of its declared run) at both: a benchmark
// whose identity did not change is listed as "unchanged: same binary and
// run, not measured". The others' quick tests run on both sides, in this
// job, and their gated counted figures are judged by tools/verdict: the
// regressions get pprof's diff of the figures that failed, Cachegrind's
// events of each function (a cache regression's misses, a Go program's
// own figures without the runtime), else of their CPU profiles. A commit
// of the change may accept a regression it intends, with a trailer:
//
//	Perf-Accepted: havlak6 own_instructions: trades 3% instructions for 40% less memory
//
// It writes DIR/summary.json (tools/summary) and DIR/pr-comment.md (the
// comment for the pull request, under GitHub's 65,536 characters, each
// figure with its own verdict, each row linking to the dashboard's compare
// page of the base and HEAD when --dashboard or $HAVLAK_LAB_DASHBOARD
// names the dashboard), and
// exits with tools/verdict's statuses: 1 when a gated figure regressed and
// was not accepted, or a benchmark went missing; 2 for bad usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

func main() {
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	stderr := cli.Terminal(os.Stderr)
	os.Exit(cli.Report(stderr, "perfcheck", run(os.Args[1:], stderr)))
}

// The benchmarks' package, which the check builds, and its manifest
// (//benchmarks:manifest), which lists the quick tests it runs.
const (
	pkg      = "benchmarks"
	manifest = pkg + "/manifest.json"
)

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("perfcheck", flag.ContinueOnError)
	fs.SetOutput(log)
	base := fs.String("base", "", "the `revision` to compare with (default: the merge base of HEAD with main)")
	out := fs.String("out", "", "write summary.json and pr-comment.md into `DIR` (default: perf-check/ in the checkout)")
	repoFlag := fs.String("repo", "", "the checkout of the change (default: where bazel run was typed)")
	dashboard := fs.String("dashboard", os.Getenv(summary.DashboardEnv), "the dashboard's `URL` (//tools/dashboard): the comment's rows link to its compare page of the base and the change (default $"+summary.DashboardEnv+"; none: no links)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	dashboardURL, err := summary.ParseDashboard(*dashboard)
	if err != nil {
		return cli.Usagef("--dashboard: %v", err)
	}
	workspace := cli.WorkspaceRoot()
	if *repoFlag != "" {
		workspace = cli.UserPath(*repoFlag)
	}
	repo := gitwork.Repo(workspace)
	top, err := repo.Output("rev-parse", "--show-toplevel")
	if err != nil {
		return cli.Usagef("%s: not a git checkout: %v", workspace, err)
	}
	repo = gitwork.Repo(top)
	rev := *base
	if rev == "" {
		if rev, err = repo.Output("merge-base", "HEAD", "main"); err != nil {
			return cli.Usagef("no merge base of HEAD with main (--base REV names one): %v", err)
		}
	}
	baseCommit, err := repo.Commit("--base", rev)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	outDir := filepath.Join(top, "perf-check")
	if *out != "" {
		outDir = cli.UserPath(*out)
	}
	head, err := repo.Commit("HEAD", "HEAD")
	if err != nil {
		return err
	}
	c := &checker{repo: repo, change: top, log: log}
	s, plan, err := c.check(baseCommit)
	if err != nil {
		return err
	}
	if err := write(outDir, s, plan, summary.Pair{Dashboard: dashboardURL, Base: baseCommit, Change: head}); err != nil {
		return err
	}
	fmt.Fprintf(log, "perfcheck: wrote %s and %s\n", filepath.Join(outDir, summary.FileName), filepath.Join(outDir, check.CommentFile))
	if status := s.Status(); status != verdict.StatusOK {
		return cli.ExitError{Status: status}
	}
	return nil
}

// A checker checks the change in a checkout against a base commit.
type checker struct {
	repo   gitwork.Repo
	change string // the change's checkout
	log    io.Writer
}

func (c *checker) check(baseCommit string) (*summary.Summary, check.Plan, error) {
	cache, err := labcache.Dir("perfcheck")
	if err != nil {
		return nil, check.Plan{}, err
	}
	fmt.Fprintf(c.log, "perfcheck: the base is %s; building it in a worktree under %s\n", gitwork.Short(baseCommit), cache)
	wt, err := c.repo.AddWorktree("perf check", cache, baseCommit)
	if err != nil {
		return nil, check.Plan{}, err
	}
	defer func() {
		// The worktree's Bazel server would linger for hours; its output
		// base stays for the next check.
		c.bazel(wt.Dir, "shutdown")
		wt.Close()
	}()
	// The user's cache settings serve the base's build too.
	if data, err := os.ReadFile(filepath.Join(c.change, "user.bazelrc")); err == nil {
		if err := os.WriteFile(filepath.Join(wt.Dir, "user.bazelrc"), data, 0o644); err != nil {
			return nil, check.Plan{}, err
		}
	}
	sides := []struct{ name, dir string }{{"the change", c.change}, {"the base", wt.Dir}}
	var targets [2][]check.Target
	for i, side := range sides {
		fmt.Fprintf(c.log, "perfcheck: [%d/4] building //%s:all at %s\n", i+1, pkg, side.name)
		if err := c.bazel(side.dir, "build", "//"+pkg+":all"); err != nil {
			return nil, check.Plan{}, fmt.Errorf("building %s: %w", side.name, err)
		}
		if targets[i], err = check.Targets(side.dir, manifest); err != nil {
			return nil, check.Plan{}, err
		}
	}
	plan := check.NewPlan(targets[1], targets[0])
	fmt.Fprintf(c.log, "perfcheck: %d benchmarks changed, %d unchanged (same binary and run: not measured), %d added, %d removed\n",
		len(plan.Changed), len(plan.Unchanged), len(plan.Added), len(plan.Removed))
	messages, err := c.repo.Output("log", "--format=%B", baseCommit+"..HEAD")
	if err != nil {
		return nil, check.Plan{}, err
	}
	accepted, err := verdict.ParseTrailers(messages)
	if err != nil {
		return nil, check.Plan{}, cli.UsageError{Err: fmt.Errorf("a commit's trailer: %w", err)}
	}
	s := &summary.Summary{Tool: "perfcheck", Baseline: baseCommit}
	for _, name := range plan.Removed {
		s.Benchmarks = append(s.Benchmarks, summary.Benchmark{Name: name, Outcome: verdict.Missing,
			Note: "the base has it, the change does not"})
	}
	if len(plan.Changed) == 0 {
		return s, plan, nil
	}
	var tests []string
	for _, t := range plan.Changed {
		tests = append(tests, t.Test)
	}
	var results [2]map[string]check.Measured
	for i, side := range sides {
		fmt.Fprintf(c.log, "perfcheck: [%d/4] measuring %d benchmarks at %s: %s\n", i+3, len(tests), side.name, strings.Join(tests, " "))
		// A failing test is measured all the same: its result says why.
		c.bazel(side.dir, append([]string{"test", "--nocache_test_results", "--test_output=errors"}, tests...)...)
		results[i] = map[string]check.Measured{}
		for _, t := range plan.Changed {
			dir, err := t.TestDir()
			if err != nil {
				return nil, check.Plan{}, err
			}
			zip := filepath.Join(side.dir, "bazel-testlogs", dir, "test.outputs", result.ZipName)
			r, out, err := result.Read(zip)
			if err != nil {
				s.Unreadable = append(s.Unreadable, fmt.Sprintf("%s, %s: %v", t.Benchmark, side.name, err))
				continue
			}
			results[i][t.Benchmark] = check.Measured{Result: r, Outputs: out}
		}
	}
	for _, t := range plan.Changed {
		change, ok := results[0][t.Benchmark]
		base, bothOK := results[1][t.Benchmark]
		if !ok || !bothOK {
			continue
		}
		b := check.Compare(base.Result, change.Result, accepted)
		s.Benchmarks = append(s.Benchmarks, b)
		if b.Fails() {
			diffs, err := check.ProfileDiffs(b, base, change)
			if err != nil {
				s.Problems = append(s.Problems, err.Error())
			}
			s.ProfileDiffs = append(s.ProfileDiffs, diffs...)
		}
	}
	return s, plan, nil
}

// bazel runs tools/bazel in a checkout, its output going to the log. A
// build or test never uploads to a remote cache, whatever the checkout's
// settings: the change's code, or the base's, is not to be trusted with it.
func (c *checker) bazel(dir string, args ...string) error {
	cmd := exec.Command(filepath.Join(dir, "tools", "bazel"), noUploads(args)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = c.log, c.log
	return cmd.Run()
}

// noUploads adds --noremote_upload_local_results to a build or a test.
func noUploads(args []string) []string {
	if len(args) > 0 && (args[0] == "build" || args[0] == "test") {
		return append([]string{args[0], "--noremote_upload_local_results"}, args[1:]...)
	}
	return args
}

// write writes the summary and the comment, whose rows link to pair's
// compare page, into dir.
func write(dir string, s *summary.Summary, plan check.Plan, pair summary.Pair) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := summary.Write(filepath.Join(dir, summary.FileName), s); err != nil {
		return err
	}
	var comment strings.Builder
	check.WriteComment(&comment, s, plan, pair, check.CommentLimit)
	return atomicfile.WriteFile(filepath.Join(dir, check.CommentFile), []byte(comment.String()), 0o644)
}
