package checker

import (
	"os"
	"path/filepath"
	"testing"
)

// A checkout is at its commit with nothing changed though Bazel's links
// at its top show untracked (a workspace whose .gitignore does not name
// them); any other change, a file named like them included, is a change.
func TestCheckoutAt(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	writeFiles(t, repo, map[string]string{"WORKSPACE": "workspace(name = \"consumer\")\n", "main.go": "package main\n"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "base")
	commit := git(t, repo, "rev-parse", "HEAD")
	top := git(t, repo, "rev-parse", "--show-toplevel")
	if got := checkoutAt(repo, commit); got != top {
		t.Fatalf("a clean checkout: %q, want %q", got, top)
	}
	for _, link := range []string{"bazel-bin", "bazel-out", "bazel-testlogs", "bazel-consumer"} {
		if err := os.Symlink(t.TempDir(), filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	if got := checkoutAt(repo, commit); got != top {
		t.Errorf("with Bazel's links: %q, want %q", got, top)
	}
	for name, change := range map[string]func() error{
		"a file named like a link": func() error { return os.WriteFile(filepath.Join(repo, "bazel-notes"), nil, 0o644) },
		"an untracked source":      func() error { return os.WriteFile(filepath.Join(repo, "extra.go"), nil, 0o644) },
		"an edited source": func() error {
			return os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main // edited\n"), 0o644)
		},
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if got := checkoutAt(repo, commit); got != "" {
			t.Errorf("%s: %q, want none", name, got)
		}
		git(t, repo, "checkout", "-q", "--", ".")
		git(t, repo, "clean", "-q", "-f", "-e", "bazel-*", "--", ".")
		os.Remove(filepath.Join(repo, "bazel-notes"))
	}
	if got := checkoutAt(repo, "0000000000000000000000000000000000000000"); got != "" {
		t.Errorf("another commit: %q, want none", got)
	}
}
