package gitwork

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorktree(t *testing.T) {
	dir := t.TempDir()
	repo := Repo(dir)
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=lab", "-c", "user.email=lab@localhost", "commit", "-q", "--allow-empty", "-m", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, err := repo.Commit("HEAD", "HEAD")
	if err != nil || len(head) != 40 {
		t.Fatalf("HEAD: %q, %v", head, err)
	}
	if _, err := repo.Commit("BASE", "no-such-branch"); err == nil || !strings.Contains(err.Error(), `BASE "no-such-branch": not a commit`) {
		t.Errorf("a bad revision: %v", err)
	}
	cache := t.TempDir()
	w, err := repo.AddWorktree("check", cache, head)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, ".git")); err != nil {
		t.Errorf("no checkout in %s: %v", w.Dir, err)
	}
	if _, err := repo.AddWorktree("check", cache, head); err == nil || !strings.Contains(err.Error(), "another check of") {
		t.Errorf("a second run while the first holds it: %v", err)
	}
	w.Close()
	if _, err := os.Stat(w.Dir); !os.IsNotExist(err) {
		t.Errorf("the worktree is left: %v", err)
	}
	if list, _ := repo.Output("worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("git still lists it:\n%s", list)
	}
	again, err := repo.AddWorktree("check", cache, head)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	again.Close()
}
