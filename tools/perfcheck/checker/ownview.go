package checker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/internal/labrepo"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/summary"
)

// The perf check's own target and binary, of the lab's (labrepo): what
// the base's check and the change's own view are built and run as.
const (
	perfcheckTarget = "//tools/perfcheck"
	perfcheckBinary = "tools/perfcheck/perfcheck_/perfcheck"
)

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
	if err := c.bazel(wt.Dir, "build", labrepo.Label(perfcheckTarget)); err != nil {
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
	if c.manifestTarget != "" {
		args = append(args, "--manifest-target", c.manifestTarget)
	}
	cmd := exec.Command(labrepo.BinPath(wt.Dir, perfcheckBinary), args...)
	cmd.Env = append(os.Environ(), "BUILD_WORKSPACE_DIRECTORY="+wt.Dir)
	cmd.Stdout, cmd.Stderr = c.log, c.log
	err = cmd.Run()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() > 0 {
		return cli.ExitError{Status: exit.ExitCode()}
	}
	return err
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
	if err := c.bazel(c.change, "build", labrepo.Label(perfcheckTarget)); err != nil {
		return nil, fmt.Errorf("building the change's perf check: %w", err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(c.bazelLog.Name()), "own-view-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), ownViewTimeout)
	defer cancel()
	args := []string{"--own-view", dir, "--repo", c.change, "--base", baseCommit, "--base-checkout", c.base, "--disk-cache", "none"}
	if c.manifestTarget != "" {
		args = append(args, "--manifest-target", c.manifestTarget)
	}
	cmd := exec.CommandContext(ctx, labrepo.BinPath(c.change, perfcheckBinary), args...)
	cmd.Env = append(os.Environ(), "BUILD_WORKSPACE_DIRECTORY="+c.change)
	cmd.Stdout, cmd.Stderr = c.bazelLog, c.bazelLog
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the change's perf check: still running after %s", ownViewTimeout)
		}
		return nil, fmt.Errorf("the change's perf check: %w", err)
	}
	s, err := summary.Read(filepath.Join(dir, summary.FileName))
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
