// Package gitwork is what the lab's tools that build other commits share:
// git commands in one repository, and a worktree of their own for a
// commit, so that the user's checkout is never touched; and how every tool
// quotes a commit (Short).
package gitwork

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// A Repo runs git commands in one directory.
type Repo string

// Output runs git with args and returns its standard output, trimmed; an
// error carries git's standard error.
func (r Repo) Output(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", string(r)}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// IsCheckout tells whether the directory is in a git checkout (a work
// tree) that git will read: a tool asks before it reads commits there, so
// that it can say in its own words what it cannot read, rather than pass
// on git's "fatal: not a git repository". A directory git refuses (one
// of another owner, say: safe.directory) is none either. The error is
// git's own failure to run.
func (r Repo) IsCheckout() (bool, error) {
	out, err := exec.Command("git", "-C", string(r), "rev-parse", "--is-inside-work-tree").Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("git: %w", err)
	}
	return strings.TrimSpace(string(out)) == "true", nil
}

// OutputLimited runs git with args and returns its standard output as it
// is, untrimmed (a diff's, say), or an error when it is over limit bytes:
// what the command prints may be a change's, as large as the change.
func (r Repo) OutputLimited(limit int, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", string(r)}, args...)...)
	stdout := &limitedBuffer{limit: limit}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := cmd.Run()
	switch {
	case stdout.over:
		return nil, fmt.Errorf("git %s: its output is over the limit of %d bytes", strings.Join(args, " "), limit)
	case err != nil:
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.buf.Bytes(), nil
}

// A limitedBuffer keeps up to limit bytes, and refuses more: the command
// writing to it stops on a broken pipe. (It has no ReadFrom, which
// io.Copy would call instead of Write.)
type limitedBuffer struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.limit {
		b.over = true
		return 0, errors.New("over the limit")
	}
	return b.buf.Write(p)
}

// Commit resolves rev to a commit's full name; what names rev in errors.
func (r Repo) Commit(what, rev string) (string, error) {
	hash, err := r.Output("rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil || hash == "" {
		return "", fmt.Errorf("%s %q: not a commit of %s", what, rev, string(r))
	}
	return hash, nil
}

// Short is a commit as people quote it: its first 12 characters, or
// "unknown" when there is no commit.
func Short(commit string) string {
	if commit == "" {
		return "unknown"
	}
	return commit[:min(len(commit), 12)]
}

// A Worktree is a checkout of a commit of its own, under a cache
// directory, held by one tool at a time.
type Worktree struct {
	Dir  string
	repo Repo
	lock *os.File
}

// AddWorktree checks commit out in a worktree named after tool and the
// repository under cache: the one a previous run released, else a new one
// (first removing what a killed run left there).
// Another run of tool on the same repository holds it: an error says so.
func (r Repo) AddWorktree(tool, cache, commit string) (*Worktree, error) {
	if err := os.MkdirAll(cache, 0o777); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(r))
	dir := filepath.Join(cache, "worktree-"+hex.EncodeToString(sum[:6]))
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("another %s of %s is running (it holds %s)", tool, string(r), lock.Name())
	}
	w := &Worktree{Dir: dir, repo: r, lock: lock}
	if w.reuse(commit) == nil {
		return w, nil
	}
	w.remove()
	if _, err := r.Output("worktree", "add", "--detach", dir, commit); err != nil {
		lock.Close()
		return nil, err
	}
	return w, nil
}

// reuse checks commit out in the worktree a previous run kept (Release),
// whatever that run left in it but for the files git ignores (Bazel's
// convenience links, user.bazelrc): the path, hence Bazel's output base and
// server, stay the same from run to run.
func (w *Worktree) reuse(commit string) error {
	wt := Repo(w.Dir)
	common, err := wt.Output("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	ours, err := w.repo.Output("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil || common != ours {
		return fmt.Errorf("%s is not a worktree of %s", w.Dir, string(w.repo))
	}
	if _, err := wt.Output("checkout", "--quiet", "--force", "--detach", commit); err != nil {
		return err
	}
	_, err = wt.Output("clean", "-ffdq")
	return err
}

// remove removes the worktree, its build outputs and git's record of it.
func (w *Worktree) remove() {
	// --force: the worktree holds build outputs.
	w.repo.Output("worktree", "remove", "--force", w.Dir)
	os.RemoveAll(w.Dir)
	w.repo.Output("worktree", "prune")
}

// Close removes the worktree and lets another run have it.
func (w *Worktree) Close() {
	w.remove()
	w.lock.Close()
}

// Release lets another run have the worktree, which stays for it to reuse.
func (w *Worktree) Release() {
	w.lock.Close()
}

// CopyCheckout copies the files git knows of in the checkout source
// (tracked and untracked, not ignored; symbolic links as links) into dir,
// and the user's own Bazel settings, user.bazelrc (their caches serve the
// copy's builds). A tracked file deleted in the checkout is left out.
func CopyCheckout(source, dir string) error {
	list, err := Repo(source).Files("--cached", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	for _, name := range append(list, "user.bazelrc") {
		from := filepath.Join(source, name)
		info, err := os.Lstat(from)
		if err != nil || info.IsDir() {
			continue // deleted, not yet committed; or no user.bazelrc
		}
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(from)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// A Change is a file that differs between a commit and the checkout.
type Change struct {
	Path    string // slash-separated, relative to the checkout
	Deleted bool
}

// Changes lists the files in which the checkout (its commits, staged and
// unstaged changes, and untracked files git does not ignore) differs from
// commit. A renamed file is its old path deleted and its new one added.
func (r Repo) Changes(commit string) ([]Change, error) {
	diff, err := r.Output("diff", "--name-status", "--no-renames", "-z", commit, "--")
	if err != nil {
		return nil, err
	}
	var changes []Change
	fields := strings.Split(strings.Trim(diff, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		changes = append(changes, Change{Path: fields[i+1], Deleted: fields[i] == "D"})
	}
	untracked, err := r.Files("--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	for _, f := range untracked {
		changes = append(changes, Change{Path: f})
	}
	return changes, nil
}

// Files lists the checkout's files that git ls-files with args lists.
func (r Repo) Files(args ...string) ([]string, error) {
	out, err := r.Output(append([]string{"ls-files", "-z"}, args...)...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}
