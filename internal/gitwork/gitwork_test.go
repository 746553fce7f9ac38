package gitwork

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	for commit, want := range map[string]string{
		"0123456789abcdef0123456789abcdef01234567": "0123456789ab",
		"0123456789ab": "0123456789ab",
		"abc":          "abc",
		"":             "unknown",
	} {
		if got := Short(commit); got != want {
			t.Errorf("Short(%q) = %q, want %q", commit, got, want)
		}
	}
}

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
	// Released, it stays for the next run, which finds it as it was
	// committed, but for what git ignores.
	os.WriteFile(filepath.Join(again.Dir, ".gitignore"), []byte("kept\n"), 0o644)
	os.WriteFile(filepath.Join(again.Dir, "kept"), []byte("a build's link"), 0o644)
	os.WriteFile(filepath.Join(again.Dir, "left"), []byte("a killed run's file"), 0o644)
	again.Release()
	reused, err := repo.AddWorktree("check", cache, head)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	if reused.Dir != again.Dir {
		t.Errorf("reused %s, released %s", reused.Dir, again.Dir)
	}
	for name, want := range map[string]bool{"kept": true, "left": false, ".gitignore": false} {
		if _, err := os.Stat(filepath.Join(reused.Dir, name)); (err == nil) != want {
			t.Errorf("%s in the reused worktree: %v, want it there: %v", name, err, want)
		}
	}
	reused.Close()
}

func TestChanges(t *testing.T) {
	dir := t.TempDir()
	repo := Repo(dir)
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@localhost"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("a.go", "a")
	write("old name.go", "b")
	write("gone.go", "c")
	write(".gitignore", "ignored\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base, _ := repo.Commit("HEAD", "HEAD")
	os.MkdirAll(filepath.Join(dir, "dir"), 0o755)
	git("mv", "old name.go", "dir/new name.go")
	git("commit", "-q", "-m", "renamed")
	write("a.go", "changed, not committed")
	os.Remove(filepath.Join(dir, "gone.go"))
	write("new/untracked.go", "d")
	write("ignored", "e")
	changes, err := repo.Changes(base)
	if err != nil {
		t.Fatal(err)
	}
	got := map[Change]bool{}
	for _, c := range changes {
		got[c] = true
	}
	want := map[Change]bool{{Path: "a.go"}: true, {Path: "old name.go", Deleted: true}: true, {Path: "dir/new name.go"}: true,
		{Path: "gone.go", Deleted: true}: true, {Path: "new/untracked.go"}: true}
	if len(got) != len(want) || len(changes) != len(want) {
		t.Errorf("changes %v, want %v", changes, want)
	}
	for c := range want {
		if !got[c] {
			t.Errorf("no %+v among %v", c, changes)
		}
	}
}

func TestCopyCheckout(t *testing.T) {
	source, dir := t.TempDir(), t.TempDir()
	files := map[string]string{"a.txt": "tracked", "sub/b.txt": "untracked", "ignored.txt": "ignored", "user.bazelrc": "build --disk_cache=/c"}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(source, name)), 0o755)
		if err := os.WriteFile(filepath.Join(source, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(source, ".gitignore"), []byte("ignored.txt\nuser.bazelrc\n"), 0o644)
	os.Symlink("a.txt", filepath.Join(source, "link"))
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt", ".gitignore"}} {
		if out, err := exec.Command("git", append([]string{"-C", source}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := CopyCheckout(source, dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "tracked", "sub/b.txt": "untracked", "user.bazelrc": "build --disk_cache=/c", "link": "tracked"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "a.txt" {
		t.Errorf("link: %q, %v", target, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ignored.txt")); !os.IsNotExist(err) {
		t.Errorf("an ignored file was copied: %v", err)
	}
}

// OutputLimited gives git's output as it is, or refuses it past its
// limit.
func TestOutputLimited(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	repo := Repo(dir)
	if out, err := repo.OutputLimited(100, "version"); err != nil || !strings.HasPrefix(string(out), "git version ") || !strings.HasSuffix(string(out), "\n") {
		t.Errorf("git version: %q, %v; want its line, untrimmed", out, err)
	}
	if out, err := repo.OutputLimited(5, "version"); err == nil || out != nil || !strings.Contains(err.Error(), "over the limit of 5 bytes") {
		t.Errorf("git version in 5 bytes: %q, %v; want refused", out, err)
	}
	if _, err := repo.OutputLimited(100, "no-such-command"); err == nil {
		t.Error("a failing git command: no error")
	}
}

// A checkout and a directory in it are checkouts; a directory outside any
// repository, and a repository's own .git, are not, without an error;
// git that cannot run is an error.
func TestIsCheckout(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	sub := filepath.Join(dir, "tools")
	os.Mkdir(sub, 0o755)
	for path, want := range map[string]bool{dir: true, sub: true, t.TempDir(): false, filepath.Join(dir, ".git"): false} {
		if got, err := Repo(path).IsCheckout(); got != want || err != nil {
			t.Errorf("IsCheckout(%s) = %v, %v; want %v", path, got, err, want)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if got, err := Repo(dir).IsCheckout(); got || err == nil {
		t.Errorf("without git: %v, %v; want an error", got, err)
	}
}
