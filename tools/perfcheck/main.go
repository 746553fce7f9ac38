// Command perfcheck tells, before a change lands, what it does to the
// benchmarks: exactly those it can affect, measured against its base.
//
//	tools/bazel run //tools/perfcheck -- [--base REV] [--out DIR] [--repo DIR] [--dashboard URL] [--disk-cache DIR] [--counts-config NAME] [--change-cache-config NAME] [--shutdown]
//
// First it asks which benchmarks the change can reach at all: the files
// that differ from the base (REV, by default the merge base of HEAD with
// main; uncommitted changes included), and a query of the target graph of
// the workspace's packages, which builds nothing. A benchmark whose quick
// test depends on none of them is not built ("no benchmark can be
// affected", in seconds, for a change of docs or tools); a changed BUILD,
// .bzl or WORKSPACE input makes every benchmark reachable.
//
// The base's tools measure and judge, never the change's: a perf check
// built anywhere but in a clean checkout of the base (the change's, above
// all) checks the base out in a worktree of its own under the lab's cache
// directory (internal/labcache), never in the checkout, kept with its Bazel
// server for the next check, builds the base's perf check there and runs
// it on the change (--repo); tools/ci/perfcheck.sh does the same in CI
// without running the change's copy first. That one builds the reached
// benchmarks' quick tests at the change and at the base; both sides share
// one Bazel disk cache (--disk-cache), and the change's never writes a
// remote cache: a trusted job may let it read one
// (--change-cache-config=buildbarn-read: what main's post-merge step
// built), its actions still running here. Bazel's own output goes to a log, not to the terminal. It
// compares each benchmark's identity (tools/perf/perfspec: the sums of its
// binary and of its declared run) at both: a benchmark
// whose identity did not change is listed as "unchanged: same binary and
// run, not measured". The others are measured on both sides by the base's
// runner (check.Harness): a program at the base by its count action
// (perf_counts: its quick workload's exact counts, a Bazel action that
// --counts-config=buildbarn sends to the cluster's workers and any cache
// may serve, main's post-merge step first; with it, the count actions of
// the base's layout variants, whose spread calibrates the thresholds of
// the figures that layout moves), at the change by the base's
// runner counting the change's binary and declared run; a server's or a
// go_test's quick test, here, on both; their gated counted figures
// are judged by tools/verdict: the
// regressions get pprof's diff of the figures that failed, Cachegrind's
// events of each function (a cache regression's misses, a Go program's
// own figures without the runtime), else of their CPU profiles; and each
// gated Cachegrind figure that moved, when both sides kept line counts,
// is split between the lines the change's diff added or edited and the
// rest (check.Attribute), information beside the verdict. A commit
// of the change may accept a regression it intends, with a trailer:
//
//	Perf-Accepted: havlak6 own_instructions: trades 3% instructions for 40% less memory
//
// A change that edits the gate's own code (check.GateEdits) is named at
// the top of the comment, and what its own tools would say is shown
// beside, deciding nothing: the base's check builds the change's perf
// check in its checkout and runs it with --own-view DIR --base-checkout
// BASE (its own checkout, already built) and no cache; that check hands
// nothing over, measures both sides with the change's runner, judges with
// the change's policy, writes DIR/summary.json (and its Bazel log) but no
// comment, and exits 0 whatever it finds. The base's check reads that summary as untrusted (bounded,
// escaped); a failure to get it is one line of the comment, never the
// check's failure.
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
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/bazelquery"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/perfspec"
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
	manifest = perfspec.DefaultManifest
)

// options are the command's flags.
type options struct {
	base, out, repo, diskCache, countsConfig, changeCacheConfig, dashboard string
	// ownView and baseCheckout: this perf check is the change's own, run
	// by the base's to show what the change's tools would say.
	ownView, baseCheckout string
	shutdown              bool
}

// parseFlags parses the command's flags: help is true when they asked for
// it, and were answered.
func parseFlags(args []string, log io.Writer) (o options, help bool, err error) {
	fs := flag.NewFlagSet("perfcheck", flag.ContinueOnError)
	fs.SetOutput(log)
	fs.StringVar(&o.base, "base", "", "the `revision` to compare with (default: the merge base of HEAD with main)")
	fs.StringVar(&o.out, "out", "", "write summary.json and pr-comment.md into `DIR` (default: perf-check/ in the checkout)")
	fs.StringVar(&o.repo, "repo", "", "the checkout of the change (default: where bazel run was typed)")
	fs.StringVar(&o.diskCache, "disk-cache", "", "the Bazel disk cache both sides build with, `DIR` (default: disk-cache in the lab's cache directory; \"none\": none)")
	fs.StringVar(&o.countsConfig, "counts-config", "", "build the count actions with --config=`NAME` too (buildbarn: on the Buildbarn cluster's workers, counts cached there for every check of the same base)")
	fs.StringVar(&o.changeCacheConfig, "change-cache-config", "", "build the change's side with --config=`NAME` too, a remote cache it reads and never writes, its actions running here (buildbarn-read: what main's post-merge step built; a trusted job's only)")
	fs.BoolVar(&o.shutdown, "shutdown", false, "stop the base's Bazel server when done (by default it stays up for the next check, until Bazel's idle timeout)")
	fs.StringVar(&o.dashboard, "dashboard", os.Getenv(summary.DashboardEnv), "the dashboard's `URL` (//tools/dashboard): the comment's rows link to its compare page of the base and the change (default $"+summary.DashboardEnv+"; none: no links)")
	fs.StringVar(&o.ownView, "own-view", "", "this is the change's own perf check, run by the base's beside its verdict: measure and judge with this build's tools, write `DIR`/summary.json only, decide nothing (exit 0 whatever it finds)")
	fs.StringVar(&o.baseCheckout, "base-checkout", "", "with --own-view: the base's clean checkout `DIR` (the base's perf check's own), where the base's side is built")
	if help, err = cli.ParseFlags(fs, args); help || err != nil {
		return o, help, err
	}
	if fs.NArg() > 0 {
		return o, false, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	for _, config := range []struct{ flag, name string }{{"counts-config", o.countsConfig}, {"change-cache-config", o.changeCacheConfig}} {
		if config.name != "" && !validConfig.MatchString(config.name) {
			return o, false, cli.Usagef("--%s %q: want the name of a config of .bazelrc", config.flag, config.name)
		}
	}
	return o, false, checkOwnView(o)
}

// checkOwnView refuses --own-view with what it must not have, and
// --base-checkout without it. The change's own tools never reach a cache
// the base's checks read (no disk cache, no counts config), write no
// comment, and leave the base's Bazel server to the base's check.
func checkOwnView(o options) error {
	switch {
	case o.ownView == "" && o.baseCheckout != "":
		return cli.Usagef("--base-checkout is for --own-view only: a check builds the base where the base's perf check runs")
	case o.ownView == "":
		return nil
	case o.baseCheckout == "":
		return cli.Usagef("--own-view needs --base-checkout: the base's perf check names the checkout it runs in")
	case o.diskCache != "" && o.diskCache != "none":
		return cli.Usagef("--own-view builds with no disk cache: --disk-cache none, not %q", o.diskCache)
	case o.countsConfig != "" || o.changeCacheConfig != "":
		return cli.Usagef("--own-view never builds with a remote cache: no --counts-config, no --change-cache-config")
	case o.out != "":
		return cli.Usagef("--own-view writes its summary into its DIR: no --out")
	case o.shutdown:
		return cli.Usagef("--own-view leaves the base's Bazel server to the base's perf check: no --shutdown")
	}
	return nil
}

func run(args []string, log io.Writer) error {
	o, help, err := parseFlags(args, log)
	if help || err != nil {
		return err
	}
	dashboardURL, err := summary.ParseDashboard(o.dashboard)
	if err != nil {
		return cli.Usagef("--dashboard: %v", err)
	}
	workspace := cli.WorkspaceRoot()
	if o.repo != "" {
		workspace = cli.UserPath(o.repo)
	}
	repo := gitwork.Repo(workspace)
	top, err := repo.Output("rev-parse", "--show-toplevel")
	if err != nil {
		return cli.Usagef("%s: not a git checkout: %v", workspace, err)
	}
	repo = gitwork.Repo(top)
	rev := o.base
	if rev == "" {
		if rev, err = repo.Output("merge-base", "HEAD", "main"); err != nil {
			return cli.Usagef("no merge base of HEAD with main (--base REV names one): %v", err)
		}
	}
	baseCommit, err := repo.Commit("--base", rev)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	c := &checker{repo: repo, change: top, log: log, shutdown: o.shutdown, countsConfig: o.countsConfig, changeCacheConfig: o.changeCacheConfig}
	if o.ownView != "" {
		// The change's own tools: nothing handed over to the base's.
		return c.runOwnView(baseCommit, cli.UserPath(o.baseCheckout), cli.UserPath(o.ownView))
	}
	outDir := filepath.Join(top, "perf-check")
	if o.out != "" {
		outDir = cli.UserPath(o.out)
	}
	head, err := repo.Commit("HEAD", "HEAD")
	if err != nil {
		return err
	}
	switch o.diskCache {
	case "none":
	case "":
		if c.diskCache, err = labcache.Dir("disk-cache"); err != nil {
			return err
		}
	default:
		c.diskCache = cli.UserPath(o.diskCache)
	}
	cache, err := labcache.Dir("perfcheck")
	if err != nil {
		return err
	}
	if err := c.openBazelLog(cache); err != nil {
		return err
	}
	defer c.bazelLog.Close()
	// The base's tools measure and judge every change: a perf check built
	// anywhere but at the base (the change's checkout, above all) runs the
	// base's instead, built in a worktree of the base.
	if c.base = builtAt(baseCommit); c.base == "" {
		return c.runTheBases(baseCommit, outDir, o.dashboard)
	}
	s, plan, err := c.checkWithOwnView(baseCommit)
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
	// base is the base's checkout, where this perf check was built.
	base string
	log  io.Writer
	// bazelLog receives Bazel's output, whose progress lines would bury
	// the check's own; the check prints its end when Bazel fails.
	bazelLog *os.File
	// diskCache is the disk cache both sides build with ("": none).
	diskCache string
	// shutdown stops the base's Bazel server when the check is done.
	shutdown bool
	// countsConfig is the Bazel config the count actions build with too
	// ("": none).
	countsConfig string
	// changeCacheConfig is the Bazel config the change's side builds with
	// too ("": none): a remote cache read, never written (bazelArgs).
	changeCacheConfig string
	// ownView: this check is the change's own (--own-view), run by the
	// base's to show what the change's tools would say. Its runner, built
	// in the change's checkout, measures both sides; the base's count
	// actions, the base's runner's, are not read.
	ownView bool
	// baseUsed: the check ran Bazel in the base's checkout, whose server
	// --shutdown stops.
	baseUsed bool
}

// harness is the checkout whose runner measures both sides: the base's,
// or in the own view the change's.
func (c *checker) harness() string {
	if c.ownView {
		return c.change
	}
	return c.base
}

// whose names the tools that measure and judge, for the log.
func (c *checker) whose() string {
	if c.ownView {
		return "the change's own"
	}
	return "the base's"
}

// validConfig is a Bazel config's name, as .bazelrc's are.
var validConfig = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// openBazelLog opens the log Bazel's output goes to, in dir: the lab's
// cache directory's, or the own view's directory (the base's check is
// writing the other).
func (c *checker) openBazelLog(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var err error
	if c.bazelLog, err = os.Create(filepath.Join(dir, "bazel.log")); err != nil {
		return err
	}
	fmt.Fprintf(c.log, "perfcheck: Bazel's output goes to %s\n", c.bazelLog.Name())
	return nil
}

// builtAt is the checkout this perf check was built in (where bazel run
// was typed) when that checkout is commit, with nothing changed: then its
// tools are the base's. "" otherwise.
func builtAt(commit string) string {
	return checkoutAt(cli.WorkspaceRoot(), commit)
}

// checkoutAt is the top of the checkout dir when it is commit with nothing
// changed, "" otherwise.
func checkoutAt(dir, commit string) string {
	repo := gitwork.Repo(dir)
	top, err := repo.Output("rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	repo = gitwork.Repo(top)
	head, err := repo.Output("rev-parse", "HEAD")
	if err != nil || head != commit {
		return ""
	}
	if status, err := repo.Output("status", "--porcelain"); err != nil || status != "" {
		return ""
	}
	return top
}

// runTheBases builds the base's perf check in a worktree of the base,
// kept with its Bazel server for the next check, and runs it on the
// change with this check's settings: the base's tools measure and judge,
// whatever the change's copies say. Its exit status is this check's.
func (c *checker) runTheBases(baseCommit, outDir, dashboard string) error {
	cache, err := labcache.Dir("perfcheck")
	if err != nil {
		return err
	}
	wt, err := c.repo.AddWorktree("perf check", cache, baseCommit)
	if err != nil {
		return err
	}
	defer wt.Release()
	if err := c.shareUserSettings(wt.Dir); err != nil {
		return err
	}
	fmt.Fprintf(c.log, "perfcheck: the base's perf check measures and judges the change: building it at %s in %s\n", gitwork.Short(baseCommit), wt.Dir)
	if err := c.bazel(wt.Dir, "build", "//tools/perfcheck"); err != nil {
		return fmt.Errorf("building the base's perf check: %w", err)
	}
	args := []string{"--repo", c.change, "--base", baseCommit, "--out", outDir, "--dashboard", dashboard, "--disk-cache", cmp.Or(c.diskCache, "none")}
	if c.countsConfig != "" {
		args = append(args, "--counts-config", c.countsConfig)
	}
	if c.changeCacheConfig != "" {
		args = append(args, "--change-cache-config", c.changeCacheConfig)
	}
	if c.shutdown {
		args = append(args, "--shutdown")
	}
	cmd := exec.Command(filepath.Join(wt.Dir, "bazel-bin", "tools", "perfcheck", "perfcheck_", "perfcheck"), args...)
	cmd.Env = append(os.Environ(), "BUILD_WORKSPACE_DIRECTORY="+wt.Dir)
	cmd.Stdout, cmd.Stderr = c.log, c.log
	err = cmd.Run()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() > 0 {
		return cli.ExitError{Status: exit.ExitCode()}
	}
	return err
}

// checkWithOwnView is the check, and, when the change edits the gate, what
// its own tools would say beside it (askOwnView). With --shutdown, the
// base's Bazel server stops after both.
func (c *checker) checkWithOwnView(baseCommit string) (*summary.Summary, check.Plan, error) {
	if c.shutdown {
		defer func() {
			if c.baseUsed {
				c.bazel(c.base, "shutdown")
			}
		}()
	}
	s, plan, err := c.check(baseCommit)
	if err != nil || len(plan.GateEdits) == 0 {
		return s, plan, err
	}
	plan.OwnView = c.askOwnView(baseCommit)
	// Its check ran Bazel in the base's checkout too.
	c.baseUsed = true
	return s, plan, nil
}

// ownViewTimeout bounds the change's own perf check: it builds both sides
// again (from Bazel's caches, mostly) and its runner, and measures what
// this check measured. One that hangs leaves a reason, not a hung gate.
const ownViewTimeout = 30 * time.Minute

// askOwnView runs the change's own perf check, as the change built it, in
// the mode that decides nothing (--own-view): the change's runner
// measures both sides, the change's policy judges, and it writes only its
// summary. Its output goes to the Bazel log. It never fails this check:
// any failure is the reason there is no own view.
func (c *checker) askOwnView(baseCommit string) *check.OwnView {
	fmt.Fprintf(c.log, "perfcheck: this change edits the gate: asking its own perf check what it would say, deciding nothing (its output in %s)\n", c.bazelLog.Name())
	s, err := c.ownViewSummary(baseCommit)
	if err != nil {
		fmt.Fprintf(c.log, "perfcheck: the change's own perf check says nothing: %v\n", err)
		return &check.OwnView{Reason: err.Error()}
	}
	fmt.Fprintf(c.log, "perfcheck: the change's own perf check: %d of %d measured benchmarks regressed (deciding nothing)\n", len(s.Regressed()), len(s.Benchmarks))
	return &check.OwnView{Summary: s}
}

// ownViewSummary builds the change's perf check in its checkout and runs
// it on the change with no disk cache and no remote one, on this check's
// own base checkout, already built: a worktree of its own
// (gitwork.AddWorktree) is refused while this check holds it, and in CI
// would be another checkout to build from nothing. It reads the summary
// the change's check wrote as untrusted: bounded as a result's files are,
// and parsed by the base's summary package.
func (c *checker) ownViewSummary(baseCommit string) (*summary.Summary, error) {
	if err := c.bazel(c.change, "build", "//tools/perfcheck"); err != nil {
		return nil, fmt.Errorf("building the change's perf check: %w", err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(c.bazelLog.Name()), "own-view-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), ownViewTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.change, "bazel-bin", "tools", "perfcheck", "perfcheck_", "perfcheck"),
		"--own-view", dir, "--repo", c.change, "--base", baseCommit, "--base-checkout", c.base, "--disk-cache", "none")
	cmd.Env = append(os.Environ(), "BUILD_WORKSPACE_DIRECTORY="+c.change)
	cmd.Stdout, cmd.Stderr = c.bazelLog, c.bazelLog
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the change's perf check: still running after %s", ownViewTimeout)
		}
		return nil, fmt.Errorf("the change's perf check: %w", err)
	}
	data, err := result.ReadFileLimited(filepath.Join(dir, summary.FileName), summary.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("the change's perf check's summary: %w", err)
	}
	s, err := summary.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the change's perf check's summary: %w", err)
	}
	return s, nil
}

// runOwnView is the check as the change's own tools make it (--own-view),
// which the base's perf check runs beside its verdict: nothing is handed
// over to the base's, the change's runner measures both sides (the base's
// built in baseCheckout, where the base's check runs), the change's
// policy judges, and dir gets summary.json and Bazel's log, never a
// comment. Whatever it finds, it exits 0: the base's verdict decides.
// Only a failure to check is an error.
func (c *checker) runOwnView(baseCommit, baseCheckout, dir string) error {
	if c.base = checkoutAt(baseCheckout, baseCommit); c.base == "" {
		return cli.Usagef("--base-checkout %s: not a checkout of the base %s with nothing changed", baseCheckout, gitwork.Short(baseCommit))
	}
	c.ownView = true
	if err := c.openBazelLog(dir); err != nil {
		return err
	}
	defer c.bazelLog.Close()
	s, _, err := c.check(baseCommit)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, summary.FileName)
	if err := summary.Write(path, s); err != nil {
		return err
	}
	fmt.Fprintf(c.log, "perfcheck: the change's own tools: %d of %d measured benchmarks regressed; wrote %s, deciding nothing\n", len(s.Regressed()), len(s.Benchmarks), path)
	return nil
}

// shareUserSettings gives the base's worktree the change checkout's
// user.bazelrc (the user's cache settings serve the base's build too).
func (c *checker) shareUserSettings(dir string) error {
	userRC := filepath.Join(dir, "user.bazelrc")
	data, err := os.ReadFile(filepath.Join(c.change, "user.bazelrc"))
	if err != nil {
		os.Remove(userRC)
		return nil
	}
	return os.WriteFile(userRC, data, 0o644)
}

func (c *checker) check(baseCommit string) (*summary.Summary, check.Plan, error) {
	s := &summary.Summary{Tool: "perfcheck", Baseline: baseCommit}
	reach, err := c.reach(baseCommit)
	if err != nil {
		return nil, check.Plan{}, err
	}
	build := []string{"//" + pkg + ":all"}
	switch {
	case reach.Everything != "":
		fmt.Fprintf(c.log, "perfcheck: %s: every benchmark may be affected\n", reach.Everything)
	case len(reach.Reached) == 0:
		fmt.Fprintf(c.log, "perfcheck: no benchmark can be affected: no file any of the %d benchmarks' quick tests depends on changed\n", len(reach.NotReached))
		return s, check.Plan{NotReached: reach.NotReached, GateEdits: reach.GateEdits}, nil
	default:
		build = []string{check.Manifest}
		for _, name := range slices.Sorted(maps.Keys(reach.Reached)) {
			build = append(build, reach.Reached[name])
		}
		fmt.Fprintf(c.log, "perfcheck: the change can reach %d benchmarks, not the other %d\n", len(reach.Reached), len(reach.NotReached))
	}
	fmt.Fprintf(c.log, "perfcheck: the base is %s, in %s; %s tools measure and judge\n", gitwork.Short(baseCommit), c.base, c.whose())
	if len(reach.GateEdits) > 0 && !c.ownView {
		fmt.Fprintf(c.log, "perfcheck: this change edits the gate (%s): the base's copies measure and judge it\n", strings.Join(reach.GateEdits, ", "))
	}
	plan, err := c.build(build, reach)
	if err != nil {
		return nil, check.Plan{}, err
	}
	messages, err := c.repo.Output("log", "--format=%B", baseCommit+"..HEAD")
	if err != nil {
		return nil, check.Plan{}, err
	}
	accepted, err := verdict.ParseTrailers(messages)
	if err != nil {
		return nil, check.Plan{}, cli.UsageError{Err: fmt.Errorf("a commit's trailer: %w", err)}
	}
	var results [2]map[string]check.Measured
	var unreadable []string
	// judge is the check's verdict on what it measured.
	judge := func() (*summary.Summary, check.Plan, error) {
		s, err := check.Compare(baseCommit, results[1], results[0], plan.Removed, accepted)
		if err != nil {
			return nil, check.Plan{}, err
		}
		s.Unreadable = unreadable
		for _, b := range s.Benchmarks {
			if !b.Fails() || b.Outcome == verdict.Missing {
				continue
			}
			diffs, err := check.ProfileDiffs(b, results[1][b.Name], results[0][b.Name])
			if err != nil {
				s.Problems = append(s.Problems, err.Error())
			}
			s.ProfileDiffs = append(s.ProfileDiffs, diffs...)
		}
		if !c.ownView { // which writes no comment
			plan.Attributions = c.attribute(s, baseCommit, results[1], results[0])
		}
		return s, plan, nil
	}
	if len(plan.Changed) == 0 {
		return judge()
	}
	measured, err := os.MkdirTemp(filepath.Dir(c.bazelLog.Name()), "measured-")
	if err != nil {
		return nil, check.Plan{}, err
	}
	defer os.RemoveAll(measured)
	var outputBase strings.Builder
	if err := c.bazelTo(&outputBase, c.harness(), "info", "output_base"); err != nil {
		return nil, check.Plan{}, err
	}
	h := check.NewHarness(c.harness(), strings.TrimSpace(outputBase.String()), c.bazelLog)
	for i, side := range c.sides() {
		fmt.Fprintf(c.log, "perfcheck: [%d/4] measuring %d benchmarks at %s with %s runner\n", i+3, len(plan.Changed), side.name, c.whose())
		results[i] = c.measure(h, plan.Changed, plan.LayoutVariants, side.dir, filepath.Join(measured, strconv.Itoa(i)), side.name, &unreadable)
	}
	return judge()
}

// attribute says where each regressed or improved counted figure's
// change went (check.Attribute), with the change's diff against the base
// as measured: information beside the verdict. What cannot be said is a
// problem of the summary and a line of the log, failing nothing.
func (c *checker) attribute(s *summary.Summary, baseCommit string, base, change map[string]check.Measured) []check.Attributed {
	attributed, err := check.Attribute(s, base, change, attribution.NewSource(c.repo, baseCommit, ""))
	if err != nil {
		s.Problems = append(s.Problems, err.Error())
		fmt.Fprintf(c.log, "perfcheck: where the figures went, not all said: %v\n", err)
	}
	return attributed
}

// side is one side of the check: its name and its checkout.
type side struct{ name, dir string }

// sides are the change and the base, in the order the check builds and
// measures them.
func (c *checker) sides() []side {
	return []side{{"the change", c.change}, {"the base", c.base}}
}

// build builds the benchmarks the check builds (build) at both sides, and
// the harness (the runner that measures both sides, and the worker its
// counts are for) in its checkout, then plans what to measure: the
// benchmarks whose identity changed.
func (c *checker) build(build []string, reach check.Reach) (check.Plan, error) {
	var targets [2][]check.Target
	for i, side := range c.sides() {
		fmt.Fprintf(c.log, "perfcheck: [%d/4] building %s at %s\n", i+1, strings.Join(build, " "), side.name)
		args := append([]string{"build"}, build...)
		if side.dir == c.harness() {
			args = append(args, check.HarnessTargets...)
		}
		switch {
		case side.dir == c.base && c.countsConfig != "":
			// With the counts' config, the base (trusted code) may read
			// what main's post-merge step built.
			args = append(args, "--config="+c.countsConfig)
		case side.dir == c.change && c.changeCacheConfig != "":
			// So may a trusted job's change, its actions running here and
			// its results never uploaded (bazelArgs); the own view never
			// has a remote cache.
			args = append(args, "--config="+c.changeCacheConfig)
		}
		if err := c.bazel(side.dir, args...); err != nil {
			return check.Plan{}, fmt.Errorf("building %s: %w", side.name, err)
		}
		var err error
		if targets[i], err = check.Targets(side.dir, manifest, reach.Reached); err != nil {
			return check.Plan{}, err
		}
	}
	plan := check.NewPlan(targets[1], targets[0])
	plan.NotReached, plan.Everything, plan.GateEdits = reach.NotReached, reach.Everything, reach.GateEdits
	fmt.Fprintf(c.log, "perfcheck: %d benchmarks changed, %d unchanged (same binary and run: not measured), %d added, %d removed\n",
		len(plan.Changed), len(plan.Unchanged), len(plan.Added), len(plan.Removed))
	return plan, nil
}

// measure measures the benchmarks as built in workspace, with the
// harness's runner (the base's; in the own view, the change's), in dir. The base's counts are its count actions, which the
// user's Bazel settings may run on a remote worker and any cache keeps
// (made once per base commit, by main's post-merge step in CI); the
// change's counts and every side's other quick tests, the base's runner
// makes here (check.Harness). With the base's count actions come those of
// its layout variants (layouts, by benchmark, as the base's manifest lists
// them), whose counts calibrate the base's thresholds against another
// binary (check.ReadLayout). In the own view the change's runner counts
// both sides: the base's count actions are its runner's, and no layout
// variant is counted. A benchmark whose result cannot be read, or whose
// base's layout variants cannot, is named in unreadable.
func (c *checker) measure(h check.Harness, targets []check.Target, layouts map[string][]perfspec.ManifestTarget, workspace, dir, side string, unreadable *[]string) map[string]check.Measured {
	var counts, variants []string
	for _, t := range targets {
		if t.Counts != "" && workspace == c.base && !c.ownView {
			counts = append(counts, t.Counts)
			for _, v := range layouts[t.Benchmark] {
				variants = append(variants, v.Label)
			}
		}
	}
	since := time.Now()
	if len(counts) > 0 {
		// A count that fails has no result: named below.
		build := []string{"build", "--keep_going"}
		if c.countsConfig != "" {
			build = append(build, "--config="+c.countsConfig)
		}
		c.bazel(c.base, slices.Concat(build, counts, variants)...)
	}
	var variantsCached int
	results := map[string]check.Measured{}
	var cached []string
	for _, t := range targets {
		var path string
		var err error
		if slices.Contains(counts, t.Counts) {
			path, err = t.ResultPath(workspace)
		} else {
			path, err = h.Measure(t, workspace, filepath.Join(dir, t.Benchmark))
		}
		var r *result.Result
		var out result.Outputs
		if err == nil {
			r, out, err = result.Read(path)
		}
		if err != nil {
			*unreadable = append(*unreadable, fmt.Sprintf("%s, %s: %v", t.Benchmark, side, err))
			continue
		}
		if slices.Contains(counts, t.Counts) && check.FromCache(r, since) {
			cached = append(cached, t.Benchmark)
		}
		m := check.Measured{Result: r, Outputs: out}
		if slices.Contains(counts, t.Counts) && len(layouts[t.Benchmark]) > 0 {
			// Fail closed: without them, the figures are judged without
			// layout noise, and the check fails on what it could not read.
			layout, read, err := check.ReadLayout(m, check.LayoutPaths(workspace, layouts[t.Benchmark]))
			if err != nil {
				*unreadable = append(*unreadable, fmt.Sprintf("%s, %s's layout variants: %v", t.Benchmark, side, err))
			}
			m.Layout = layout
			for _, r := range read {
				if check.FromCache(r, since) {
					variantsCached++
				}
			}
		}
		results[t.Benchmark] = m
	}
	if len(counts) > 0 {
		fromCache := fmt.Sprintf("%d of %d counts from a cache", len(cached), len(counts))
		if len(cached) > 0 {
			fromCache += " (counted before this check: " + strings.Join(cached, " ") + ")"
		}
		fmt.Fprintf(c.log, "perfcheck: %s: %s, %d counted now\n", side, fromCache, len(counts)-len(cached))
	}
	if len(variants) > 0 {
		fmt.Fprintf(c.log, "perfcheck: %s's layout variants: %d of %d counts from a cache, %d counted now\n", side, variantsCached, len(variants), len(variants)-variantsCached)
	}
	return results
}

// reach asks which benchmarks the change's files can reach: the changes
// since the base (git), then the target graph of the change's packages
// (bazel query, which builds nothing) and the quick tests the manifest
// declares in it.
func (c *checker) reach(baseCommit string) (check.Reach, error) {
	changes, err := c.repo.Changes(baseCommit)
	if err != nil {
		return check.Reach{}, err
	}
	files, err := c.repo.Files("--cached", "--others", "--exclude-standard")
	if err != nil {
		return check.Reach{}, err
	}
	pkgs := bazelquery.Packages(files)
	fmt.Fprintf(c.log, "perfcheck: %d files changed since the base; asking Bazel which benchmarks they can reach (a query of %d packages)\n", len(changes), len(pkgs))
	var graph bytes.Buffer
	if err := c.bazelTo(&graph, c.change, "query", "--output=xml", "--order_output=no", bazelquery.Everything(pkgs)); err != nil {
		return check.Reach{}, fmt.Errorf("the query of the change's targets: %w", err)
	}
	g, err := bazelquery.ReadXML(&graph)
	if err != nil {
		return check.Reach{}, err
	}
	quick, err := perfspec.DeclaredTargets(g, check.Manifest, result.ConfigQuick)
	if err != nil {
		return check.Reach{}, err
	}
	return check.FindReach(changes, pkgs, g, quick), nil
}

// bazelArgs adds to a build or a test --noremote_upload_local_results,
// and the disk cache when there is one. A --config among args (the
// counts' config, --counts-config: the cluster's remote executor and
// cache) comes first, so that the flag still wins over what the config
// sets (a config's own --remote_upload_local_results would otherwise);
// with one, there is no disk cache, which Bazel cannot combine with
// remote execution ("Cannot combine gRPC based remote execution with disk
// caching"): the cluster is that build's cache.
func bazelArgs(args []string, diskCache string) []string {
	if len(args) == 0 || (args[0] != "build" && args[0] != "test") {
		return args
	}
	var configs, rest []string
	for _, arg := range args[1:] {
		if strings.HasPrefix(arg, "--config=") {
			configs = append(configs, arg)
		} else {
			rest = append(rest, arg)
		}
	}
	flags := slices.Concat([]string{args[0]}, configs, []string{"--noremote_upload_local_results"})
	if diskCache != "" && len(configs) == 0 {
		// Bazel 4 applies --noremote_upload_local_results to the disk cache
		// too, unless told not to: the disk cache is written, a remote one
		// never.
		flags = append(flags, "--disk_cache="+diskCache, "--incompatible_remote_results_ignore_disk")
	}
	return append(flags, rest...)
}

// bazel runs tools/bazel in a checkout, its output going to the Bazel log.
// A build or test never uploads to a remote cache, whatever the
// checkout's settings: the change's code, or the base's, is not to be
// trusted with it; both use the check's disk cache, but the base's builds
// with the counts' config, which the cluster executes and keeps.
func (c *checker) bazel(dir string, args ...string) error {
	return c.bazelTo(c.bazelLog, dir, args...)
}

// bazelTo runs tools/bazel, its standard output going to stdout and its
// standard error to the Bazel log; when it fails, the log's end is printed.
func (c *checker) bazelTo(stdout io.Writer, dir string, args ...string) error {
	args = bazelArgs(args, c.diskCache)
	if dir == c.base {
		c.baseUsed = true
	}
	start, _ := c.bazelLog.Seek(0, io.SeekCurrent)
	cmd := exec.Command(filepath.Join(dir, "tools", "bazel"), args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, c.bazelLog
	err := cmd.Run()
	if err != nil {
		fmt.Fprintf(c.log, "perfcheck: bazel %s failed; the end of its output (all of it in %s):\n", args[0], c.bazelLog.Name())
		end, _ := c.bazelLog.Seek(0, io.SeekCurrent)
		from := max(start, end-4096)
		tail := make([]byte, end-from)
		c.bazelLog.ReadAt(tail, from)
		c.log.Write(tail)
	}
	return err
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
