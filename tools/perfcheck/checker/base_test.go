package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/verdict"
)

// The base a check compares with by default is where the change forks
// from the branch it is to land on, as a CI checkout has it: the remote's
// branch before a local one, and a pull request's own base branch.
func TestDefaultBase(t *testing.T) {
	dir := t.TempDir()
	commit := func(name string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", name)
		git(t, dir, "commit", "-q", "-m", name)
		return git(t, dir, "rev-parse", "HEAD")
	}
	git(t, dir, "init", "-q", "-b", "main")
	forked := commit("a")
	git(t, dir, "branch", "release")
	onOrigin := commit("b")
	git(t, dir, "update-ref", "refs/remotes/origin/main", onOrigin)
	commit("c") // a local main ahead of origin's
	git(t, dir, "checkout", "-q", "-b", "change", forked)
	commit("d")
	repo := gitwork.Repo(dir)

	t.Setenv("BUILDKITE_PULL_REQUEST_BASE_BRANCH", "")
	if got, err := defaultBase(repo); err != nil || got != forked {
		t.Errorf("the base of a change forked from main = %q, %v; want %q", got, err, forked)
	}
	git(t, dir, "merge", "-q", "--no-edit", onOrigin)
	if got, err := defaultBase(repo); err != nil || got != onOrigin {
		t.Errorf("the base after merging origin/main = %q, %v; want origin/main's %q, not the local main's", got, err, onOrigin)
	}
	t.Setenv("BUILDKITE_PULL_REQUEST_BASE_BRANCH", "release")
	if got, err := defaultBase(repo); err != nil || got != forked {
		t.Errorf("the base of a pull request into release = %q, %v; want %q", got, err, forked)
	}
	t.Setenv("BUILDKITE_PULL_REQUEST_BASE_BRANCH", "nowhere")
	if _, err := defaultBase(repo); err == nil || !strings.Contains(err.Error(), "origin/nowhere or nowhere (--base REV") {
		t.Errorf("the base of a pull request into a branch not fetched = %v, want an error naming both refs and --base", err)
	}
}

// The check that writes the comment posts it, in the style of its
// verdict; without a CI job to post to, nothing is posted.
func TestAnnotate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pr-comment.md")
	if err := os.WriteFile(path, []byte("### :x: Perf check: 1 of 1 measured benchmarks regressed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var styles, posted []string
	post := func(style, markdown string) error {
		styles, posted = append(styles, style), append(posted, markdown)
		return nil
	}
	if err := annotate(post, verdict.StatusRegressed, path); err != nil {
		t.Fatal(err)
	}
	if err := annotate(post, verdict.StatusOK, path); err != nil {
		t.Fatal(err)
	}
	if strings.Join(styles, " ") != "error success" || len(posted) != 2 || !strings.HasPrefix(posted[0], "### :x: Perf check") {
		t.Errorf("posted %q in styles %q, want the comment as error then success", posted, styles)
	}
	if err := annotate(nil, verdict.StatusRegressed, filepath.Join(t.TempDir(), "none.md")); err != nil {
		t.Errorf("with nowhere to post, annotate = %v, want nothing done", err)
	}
	if err := annotate(post, verdict.StatusOK, filepath.Join(t.TempDir(), "none.md")); err == nil {
		t.Error("a comment that is not there was posted")
	}
}
