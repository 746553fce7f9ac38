// Package step keeps a CI step's private directory, where
// tools/ci/bazel_ci.sh puts BuildBuddy's key and the unscrubbed build event
// file, outside the checkout: Open makes it (and clears what steps that no
// longer run left), WriteKeyRC gives Bazel the key, Close scrubs the key
// from the build event file and removes the directory; Fork tells a pull
// request from another repository. The command stepdir (its package doc
// is the manual) calls them.
package step

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"havlak-lab/internal/cli"
)

// KeyEnv names the environment variable that holds the key for key and
// close.
const KeyEnv = "STEPDIR_KEY"

// The names of the files in a step's directory.
const (
	rcName     = "buildbuddy-key.bazelrc"
	eventsName = "bazel-events.json"
)

// Base is the directory of this user's steps' directories:
// $XDG_RUNTIME_DIR, else $TMPDIR, else /tmp, then havlak-lab-ci-UID.
func Base(getenv func(string) string) string {
	parent := getenv("XDG_RUNTIME_DIR")
	if parent == "" {
		parent = getenv("TMPDIR")
	}
	if parent == "" {
		parent = "/tmp"
	}
	return filepath.Join(parent, "havlak-lab-ci-"+strconv.Itoa(os.Getuid()))
}

// Started is when process pid started, in clock ticks after boot (field 22
// of PROC/PID/stat), or "" when there is no such process. With the PID it
// names one process: a PID given out again belongs to a later start.
func Started(proc string, pid int) string {
	stat, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	// The fields after the command name, which may hold spaces and ")".
	i := bytes.LastIndex(stat, []byte(") "))
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+2:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

var stepName = regexp.MustCompile(`^step-([0-9]+)-([0-9]+)$`)

// Open makes base if needed, checks that it is this user's alone, removes
// what is in it but the directories of running steps (their processes read
// from proc), and makes and returns base/step-PID-START for process pid.
func Open(base, proc string, pid int) (string, error) {
	me := Started(proc, pid)
	if me == "" {
		return "", fmt.Errorf("no %s/%d/stat: the private directories need Linux's /proc", proc, pid)
	}
	if err := os.Mkdir(base, 0o700); err == nil {
		// Exactly 700, whatever the umask.
		if err := os.Chmod(base, 0o700); err != nil {
			return "", err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	info, err := os.Lstat(base)
	if err != nil {
		return "", err
	}
	owner := info.Sys().(*syscall.Stat_t).Uid
	if !info.IsDir() || int(owner) != os.Getuid() || info.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0o700 {
		return "", fmt.Errorf("%s is not this user's alone (owner uid %d, mode %v): remove it", base, owner, info.Mode())
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if m := stepName.FindStringSubmatch(e.Name()); m != nil {
			if pid, err := strconv.Atoi(m[1]); err == nil && Started(proc, pid) == m[2] {
				continue // its step still runs
			}
		}
		if err := os.RemoveAll(filepath.Join(base, e.Name())); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(base, fmt.Sprintf("step-%d-%s", pid, me))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o700)
}

// WriteKeyRC writes dir's rc file that gives Bazel key (mode 600, a new
// file) and returns its path.
func WriteKeyRC(dir, key string) (string, error) {
	if key == "" || strings.ContainsAny(key, "\n\r") {
		return "", fmt.Errorf("$%s is empty or holds a line break", KeyEnv)
	}
	rc := filepath.Join(dir, rcName)
	f, err := os.OpenFile(rc, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = fmt.Fprintf(f, "# Written by tools/ci/bazel_ci.sh (tools/ci/stepdir) from $BUILDBUDDY_API_KEY; removed after the build.\n"+
		"build --remote_header=x-buildbuddy-api-key=%s\n", key)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return rc, err
}

// Close removes the step's directory dir, after copying its build event
// file to events with key replaced by REDACTED when a key was used.
func Close(dir, events, key string) error {
	if !stepName.MatchString(filepath.Base(dir)) {
		return fmt.Errorf("%s is not a step's directory (step-PID-START)", dir)
	}
	var err error
	if key != "" {
		err = scrub(filepath.Join(dir, eventsName), events, key)
	}
	return errors.Join(err, os.RemoveAll(dir))
}

// scrub copies the build event file from to to with key replaced, when
// there is one (a build that failed early writes none).
func scrub(from, to, key string) error {
	if info, err := os.Stat(from); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	data = bytes.ReplaceAll(data, []byte(key), []byte("REDACTED"))
	// Through a temporary file beside it: never a half-written artifact.
	tmp, err := os.CreateTemp(filepath.Dir(to), ".bazel-events-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Chmod(0o644), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), to)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// CopySelf copies this program to path (mode 700), so that a step runs it
// again without Bazel.
func CopySelf(path string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(self)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// Fork describes the pull request the build is, through getenv
// (os.Getenv), when it comes from another repository than the pipeline's:
// "pull request #N from REPOSITORY"; "" when it does not. Buildkite sets
// BUILDKITE_PULL_REQUEST to "false" outside pull requests.
func Fork(getenv func(string) string) string {
	pr, from := getenv("BUILDKITE_PULL_REQUEST"), getenv("BUILDKITE_PULL_REQUEST_REPO")
	if pr == "" || pr == "false" || repoID(from) == repoID(getenv("BUILDKITE_REPO")) {
		return ""
	}
	if from == "" {
		from = "an unknown repository"
	}
	return "pull request #" + pr + " from " + cli.Field(from)
}

var (
	scheme   = regexp.MustCompile(`^[a-z+]+://`)
	userinfo = regexp.MustCompile(`^[^@/]*@`)
)

// repoID is host/owner/name of a git URL in any of its forms:
// https://host/owner/name.git, git://host/owner/name, git@host:owner/name.git.
func repoID(url string) string {
	id := scheme.ReplaceAllString(url, "")
	id = userinfo.ReplaceAllString(id, "")
	id = strings.Replace(id, ":", "/", 1)
	id = strings.TrimSuffix(id, ".git")
	id = strings.TrimSuffix(id, "/")
	return strings.ToLower(id)
}
