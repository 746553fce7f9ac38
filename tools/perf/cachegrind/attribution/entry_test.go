package attribution

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"havlak-lab/internal/gitwork"
)

// The change's diff is git's of the base against the checkout, edits not
// yet committed included, whatever the user's settings.
func TestSourceOfACheckout(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@localhost"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("config", "diff.noprefix", "true") // the user's: no a/ and b/
	write("cc/p/a.cc", "a\nb\nc\n")
	write("go/p/b.go", "x\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base, err := gitwork.Repo(dir).Commit("base", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	write("cc/p/a.cc", "a\nnew\nb\nc\n")
	git("commit", "-q", "-am", "change")
	write("go/p/b.go", "x\ny\n") // not committed
	// Untracked: a source file, added; a binary, a link out of the
	// checkout and an ignored file, left out.
	write("cc/p/new file.cc", "int f() {\r\n  return 1;\r\n}")
	write("cc/p/blob.bin", "a\x00b")
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "cc/p/link.cc")); err != nil {
		t.Fatal(err)
	}
	write(".gitignore", "*.o\n")
	write("cc/p/a.o", "object\n")
	d, err := NewSource(gitwork.Repo(dir), base, "").Diff()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(d.Files()); got != "[cc/p/a.cc go/p/b.go .gitignore cc/p/new file.cc]" {
		t.Errorf("files %s", got)
	}
	for line, want := range []string{1: "int f() {", 2: "  return 1;", 3: "}"} {
		if text, ok := d.Text("cc/p/new file.cc", uint64(line), 0); line > 0 && (text != want || !ok) {
			t.Errorf("cc/p/new file.cc:%d: %q, %v; want %q", line, text, ok, want)
		}
	}
	if text, ok := d.Text("cc/p/a.cc", 2, 0); text != "new" || !ok {
		t.Errorf("cc/p/a.cc:2: %q, %v", text, ok)
	}
	if text, ok := d.Text("go/p/b.go", 2, 0); text != "y" || !ok {
		t.Errorf("go/p/b.go:2, not committed: %q, %v", text, ok)
	}
	if _, err := NewSource(gitwork.Repo(dir), "no-such-commit", "").Diff(); err == nil {
		t.Error("a base that is no commit: no error")
	}
}
