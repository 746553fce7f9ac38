package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/gitwork"
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
