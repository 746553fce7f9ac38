// Package checker is the perf check of a change as its command runs it
// (//tools/perfcheck): it asks which benchmarks the change can reach,
// builds them at both sides with Bazel, measures those whose identity
// changed with the harness's runner, judges them (package check), and
// writes the summary and the comment. The base's tools measure and judge:
// a check built anywhere but at the base hands over to the base's, built
// in a worktree of it; a change that edits the gate gets what its own
// tools would say beside the verdict (the own view), deciding nothing.
package checker

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/perfcheck/check"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// Options are what the command's flags say: each field is its flag's
// value, as given ("" when not).
type Options struct {
	Base, Out, Repo, DiskCache, CountsConfig, ChangeCacheConfig, Dashboard string
	// OwnView and BaseCheckout: this perf check is the change's own, run
	// by the base's to show what the change's tools would say.
	OwnView, BaseCheckout string
	// ManifestTarget is the label of the benchmarks' manifest ("": the
	// one the workspace declares, perfspec.FindManifest).
	ManifestTarget string
	Shutdown       bool
	// Annotate posts the comment where the CI job shows it
	// (internal/buildkite.Annotator), or is nil: the check that writes
	// the comment posts it.
	Annotate func(style, markdown string) error
}

// Run checks the change in the checkout o.Repo names (by default the
// workspace bazel run was typed in) against its base, as o says, and
// writes what it found: the summary and the comment, or in the own view
// the summary alone. Its error carries the check's exit status
// (cli.ExitError) or bad usage (cli.UsageError).
func Run(o Options, log io.Writer) error {
	dashboardURL, err := summary.ParseDashboard(o.Dashboard)
	if err != nil {
		return cli.Usagef("--dashboard: %v", err)
	}
	workspace := cli.WorkspaceRoot()
	if o.Repo != "" {
		workspace = cli.UserPath(o.Repo)
	}
	repo := gitwork.Repo(workspace)
	top, err := repo.Output("rev-parse", "--show-toplevel")
	if err != nil {
		return cli.Usagef("%s: not a git checkout: %v", workspace, err)
	}
	repo = gitwork.Repo(top)
	rev := o.Base
	if rev == "" {
		if rev, err = defaultBase(repo); err != nil {
			return err
		}
	}
	baseCommit, err := repo.Commit("--base", rev)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	c := &checker{repo: repo, change: top, log: log, shutdown: o.Shutdown, countsConfig: o.CountsConfig, changeCacheConfig: o.ChangeCacheConfig,
		manifestTarget: o.ManifestTarget}
	if o.OwnView != "" {
		// The change's own tools: nothing handed over to the base's.
		return c.runOwnView(baseCommit, cli.UserPath(o.BaseCheckout), cli.UserPath(o.OwnView))
	}
	outDir := filepath.Join(top, "perf-check")
	if o.Out != "" {
		outDir = cli.UserPath(o.Out)
	}
	head, err := repo.Commit("HEAD", "HEAD")
	if err != nil {
		return err
	}
	switch o.DiskCache {
	case "none":
	case "":
		if c.diskCache, err = labcache.Dir("disk-cache"); err != nil {
			return err
		}
	default:
		c.diskCache = cli.UserPath(o.DiskCache)
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
		return c.runTheBases(baseCommit, outDir, o.Dashboard)
	}
	s, plan, err := c.checkWithOwnView(baseCommit)
	if err != nil {
		return err
	}
	if err := write(outDir, s, plan, summary.Pair{Dashboard: dashboardURL, Base: baseCommit, Change: head}); err != nil {
		return err
	}
	fmt.Fprintf(log, "perfcheck: wrote %s and %s\n", filepath.Join(outDir, summary.FileName), filepath.Join(outDir, check.CommentFile))
	if err := annotate(o.Annotate, s.Status(), filepath.Join(outDir, check.CommentFile)); err != nil {
		// The comment is written; a job that cannot show it still has it.
		fmt.Fprintf(log, "perfcheck: the comment was not posted: %v\n", err)
	}
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
	// manifestTarget is the manifest's label the flag gave ("": none);
	// manifest, the label of the manifest the check reads (reach finds
	// it in the change's graph), whose quick tests it builds and runs.
	manifestTarget, manifest string
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
// changed, "" otherwise. Bazel's links at the top (bazel-bin and the
// others, which a workspace that does not ignore them shows untracked)
// change nothing.
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
	status, err := repo.Output("status", "--porcelain", "-z")
	if err != nil {
		return ""
	}
	for _, entry := range strings.Split(status, "\x00") {
		if entry != "" && !bazelLink(top, entry) {
			return ""
		}
	}
	return top
}

// bazelLink tells whether a git status entry (porcelain) is one of the
// links Bazel makes at a workspace's top, untracked: bazel-NAME, a
// symbolic link.
func bazelLink(top, entry string) bool {
	name, untracked := strings.CutPrefix(entry, "?? ")
	if !untracked || !strings.HasPrefix(name, "bazel-") || strings.Contains(name, "/") {
		return false
	}
	info, err := os.Lstat(filepath.Join(top, name))
	return err == nil && info.Mode()&os.ModeSymlink != 0
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

// defaultBase is the merge base of HEAD with the branch the change is to
// land on: a Buildkite pull request's base branch
// ($BUILDKITE_PULL_REQUEST_BASE_BRANCH), else main; the remote's branch
// (origin/main, what a CI checkout has) before a local one.
func defaultBase(repo gitwork.Repo) (string, error) {
	branch := os.Getenv("BUILDKITE_PULL_REQUEST_BASE_BRANCH")
	if branch == "" {
		branch = "main"
	}
	var errs []string
	for _, ref := range []string{"origin/" + branch, branch} {
		rev, err := repo.Output("merge-base", "HEAD", ref)
		if err == nil {
			return strings.TrimSpace(rev), nil
		}
		errs = append(errs, err.Error())
	}
	return "", cli.Usagef("no merge base of HEAD with origin/%s or %s (--base REV names one): %s", branch, branch, strings.Join(errs, "; "))
}

// annotate posts the comment at path with post (nil: nowhere), in the
// style of the check's status.
func annotate(post func(style, markdown string) error, status int, path string) error {
	if post == nil {
		return nil
	}
	comment, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	style := "error"
	switch status {
	case verdict.StatusOK:
		style = "success"
	case verdict.StatusNotComparable:
		style = "warning"
	}
	return post(style, string(comment))
}
