package step

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const key = "made-up-key-d41d8cd98f00b204"

// fakeStat writes PROC/PID/stat for a process named comm that started at
// start (field 22).
func fakeStat(t *testing.T, proc string, pid int, comm, start string) {
	t.Helper()
	dir := filepath.Join(proc, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fields := []string{"S"}
	for i := 4; i < 22; i++ {
		fields = append(fields, strconv.Itoa(i))
	}
	fields = append(fields, start, "23", "24")
	stat := strconv.Itoa(pid) + " (" + comm + ") " + strings.Join(fields, " ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode()
}

func TestStarted(t *testing.T) {
	proc := t.TempDir()
	// A command name may hold spaces and ") ".
	fakeStat(t, proc, 7, "evil) 1 2 3 (x", "4242")
	if got := Started(proc, 7); got != "4242" {
		t.Errorf("Started(fake 7) = %q, want 4242", got)
	}
	if got := Started(proc, 8); got != "" {
		t.Errorf("Started(no such process) = %q, want nothing", got)
	}
	if Started("/proc", os.Getpid()) == "" {
		t.Errorf("Started(/proc, this test) is empty")
	}
}

func TestBase(t *testing.T) {
	uid := "havlak-lab-ci-" + strconv.Itoa(os.Getuid())
	for _, c := range []struct{ xdg, tmp, want string }{
		{"/run/user/1", "/var/tmp", "/run/user/1/" + uid},
		{"", "/var/tmp", "/var/tmp/" + uid},
		{"", "", "/tmp/" + uid},
	} {
		env := map[string]string{"XDG_RUNTIME_DIR": c.xdg, "TMPDIR": c.tmp}
		if got := Base(func(k string) string { return env[k] }); got != c.want {
			t.Errorf("Base(%v) = %s, want %s", env, got, c.want)
		}
	}
}

func TestOpenRemovesWhatNoRunningStepOwns(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	proc := t.TempDir()
	base := filepath.Join(t.TempDir(), "havlak-lab-ci")
	fakeStat(t, proc, 10, "bazel_ci.sh", "1000") // this step
	fakeStat(t, proc, 20, "bash", "2000")        // a step beside it
	fakeStat(t, proc, 30, "bash", "3001")        // PID 30 given out again
	if err := os.Mkdir(base, 0o700); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(base, "step-20-2000")
	gone := []string{"step-30-3000", "step-40-4000", "step-x-1", "buildbuddy-key.bazelrc", ".hidden"}
	for _, name := range append(gone, "step-20-2000") {
		if err := os.MkdirAll(filepath.Join(base, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, name, "buildbuddy-key.bazelrc"), []byte(key), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}

	dir, err := Open(base, proc, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(base, "step-10-1000"); dir != want {
		t.Errorf("Open made %s, want %s", dir, want)
	}
	if m := mode(t, dir); m != os.ModeDir|0o700 {
		t.Errorf("the step's directory has mode %v, want drwx------", m)
	}
	if _, err := os.Stat(filepath.Join(keep, "buildbuddy-key.bazelrc")); err != nil {
		t.Errorf("a running step's directory was touched: %v", err)
	}
	for _, name := range append(gone, "link") {
		if _, err := os.Lstat(filepath.Join(base, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left (%v)", name, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("a link's target was removed: %v", err)
	}
	if _, err := Open(base, proc, 10); err == nil {
		t.Errorf("a second Open of one step made its directory again")
	}
}

func TestOpenMakesThePrivateBase(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	base := filepath.Join(t.TempDir(), "havlak-lab-ci")
	dir, err := Open(base, "/proc", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{base, dir} {
		if m := mode(t, path); m != os.ModeDir|0o700 {
			t.Errorf("%s has mode %v, want drwx------", path, m)
		}
	}
}

func TestOpenRefusesASharedBase(t *testing.T) {
	parent := t.TempDir()
	open := filepath.Join(parent, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(parent, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{open, link, file} {
		if dir, err := Open(base, "/proc", os.Getpid()); err == nil || !strings.Contains(err.Error(), "not this user's alone") {
			t.Errorf("Open(%s) = %s, %v; want refused", base, dir, err)
		}
	}
	entries, _ := os.ReadDir(private)
	if len(entries) > 0 {
		t.Errorf("Open through a link made %v", entries)
	}
}

func TestOpenWithoutProc(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "base"), t.TempDir(), 12)
	if err == nil || !strings.Contains(err.Error(), "need Linux's /proc") {
		t.Errorf("Open without /proc: %v", err)
	}
}

// A real process: its directory stays while it runs and goes once it
// has ended.
func TestOpenKeepsARunningProcesssDirectory(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	ended := false
	defer func() {
		if !ended {
			child.Process.Kill()
			child.Wait()
		}
	}()
	base := filepath.Join(t.TempDir(), "havlak-lab-ci")
	theirs, err := Open(base, "/proc", child.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(base, "/proc", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Fatalf("the running process's directory went: %v", err)
	}
	child.Process.Kill()
	child.Wait()
	ended = true
	mine := filepath.Join(base, "step-"+strconv.Itoa(os.Getpid())+"-"+Started("/proc", os.Getpid()))
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(base, "/proc", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(theirs); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ended process's directory is left (%v)", err)
	}
}

func TestWriteKeyRC(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	rc, err := WriteKeyRC(dir, key)
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(t, rc); m != 0o600 {
		t.Errorf("%s has mode %v, want -rw-------", rc, m)
	}
	data, err := os.ReadFile(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nbuild --remote_header=x-buildbuddy-api-key="+key+"\n") {
		t.Errorf("the rc file holds %q", data)
	}
	if _, err := WriteKeyRC(dir, key); err == nil {
		t.Errorf("a second WriteKeyRC overwrote the rc file")
	}
	for _, bad := range []string{"", "a\nbuild --config=evil"} {
		if _, err := WriteKeyRC(t.TempDir(), bad); err == nil {
			t.Errorf("WriteKeyRC(%q) wrote a file", bad)
		}
	}
}

func TestClose(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "step-1-2")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	events := []byte(`{"options": "--remote_header=x-buildbuddy-api-key\u003d` + key + `"}` + "\n" + key + key + "\n")
	if err := os.WriteFile(filepath.Join(dir, eventsName), events, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteKeyRC(dir, key); err != nil {
		t.Fatal(err)
	}
	artifact := filepath.Join(base, "artifacts.json")
	if err := Close(dir, artifact, key); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(artifact)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(string(events), key, "REDACTED"); string(got) != want {
		t.Errorf("the scrubbed file is %q, want %q", got, want)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the step's directory is left (%v)", err)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 1 {
		t.Errorf("left %v beside the artifact", entries)
	}
}

func TestCloseWithoutKeyOrEvents(t *testing.T) {
	base := t.TempDir()
	artifact := filepath.Join(base, "artifacts.json")
	for _, k := range []string{"", key} {
		dir := filepath.Join(base, "step-1-2")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if k == "" {
			// Without a key Bazel wrote the artifact itself: not touched.
			if err := os.WriteFile(filepath.Join(dir, eventsName), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := Close(dir, artifact, k); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("key %q: the step's directory is left (%v)", k, err)
		}
		if _, err := os.Stat(artifact); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("key %q: wrote %s", k, artifact)
		}
	}
	if err := Close(base, artifact, ""); err == nil {
		t.Errorf("Close removed %s, not a step's directory", base)
	}
}

func TestFork(t *testing.T) {
	const repo = "git@github.com:havlak/havlak-lab.git"
	for _, c := range []struct{ pr, from, want string }{
		{"", "", ""},
		{"false", "git://github.com/a-fork/havlak-lab.git", ""},
		{"17", "https://github.com/havlak/havlak-lab.git", ""},
		{"17", "https://GitHub.com/Havlak/havlak-lab/", ""},
		{"17", "ssh://git@github.com/havlak/havlak-lab", ""},
		{"17", "git://github.com/a-fork/havlak-lab.git", "pull request #17 from git://github.com/a-fork/havlak-lab.git"},
		{"17", "git@github.com:havlak/havlak-lab-fork.git", "pull request #17 from git@github.com:havlak/havlak-lab-fork.git"},
		{"17", "", "pull request #17 from an unknown repository"},
	} {
		env := map[string]string{"BUILDKITE_PULL_REQUEST": c.pr, "BUILDKITE_PULL_REQUEST_REPO": c.from, "BUILDKITE_REPO": repo}
		if got := Fork(func(k string) string { return env[k] }); got != c.want {
			t.Errorf("Fork(%s from %q) = %q, want %q", c.pr, c.from, got, c.want)
		}
	}
}
