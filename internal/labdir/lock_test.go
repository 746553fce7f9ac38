package labdir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdEnv names the directory whose lock TestLockHolderProcess takes, run
// as another process by startHolder; holdNothing, that it takes none.
const (
	holdEnv     = "LABDIR_TEST_HOLD_LOCK"
	holdNothing = "-"
)

// TestLockHolderProcess is not a test but another process for the tests
// (startHolder): it takes the lock of the directory $LABDIR_TEST_HOLD_LOCK
// (none for "-"), says "ready", and holds it until its stdin closes or it
// is killed.
func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv(holdEnv)
	if dir == "" {
		t.Skip("another process of the lock's tests (startHolder)")
	}
	if dir != holdNothing {
		if _, err := TakeLock(dir, Baseline, "the holder process", 0, nil); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// startHolder starts this test binary as another process
// (TestLockHolderProcess) holding dir's lock, or none for holdNothing,
// and returns it once it is ready, with its stdin, whose closing ends it.
func startHolder(t *testing.T, dir string) (*exec.Cmd, io.Closer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the holder process: %q, %v", line, err)
	}
	return cmd, stdin
}

// One writer holds a directory's lock at a time: another is refused after
// its wait, naming the lock file and what the holder wrote into it, and
// told once, while it waits, who holds it; once the lock is released it
// is the next writer's, and the lock file stays.
func TestLockIsOneWritersAtATime(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "baseline")
	first, err := TakeLock(dir, Baseline, "the first writer", 0, nil)
	if err != nil {
		t.Fatalf("a lock no one holds: %v", err)
	}
	if !first.Held() {
		t.Error("the lock taken is not held")
	}
	var held *HeldError
	_, err = TakeLock(dir, Baseline, "the second writer", 0, nil)
	if !errors.As(err, &held) || held.Path != dir+".lock" || held.Holder != "the first writer" {
		t.Fatalf("a lock held, no wait: %v; want a HeldError naming %s.lock and the first writer", err, dir)
	}
	var told []string
	_, err = TakeLock(dir, Baseline, "the second writer", 30*time.Millisecond, func(holder string) { told = append(told, holder) })
	if !errors.As(err, &held) || held.Waited < 30*time.Millisecond || len(told) != 1 || told[0] != "the first writer" {
		t.Errorf("a lock held for all the wait: %v, told %q; want a HeldError after the wait, told once of the first writer", err, told)
	}

	// A writer waiting as long as it takes gets the lock once it is
	// released.
	waiting := make(chan string)
	taken := make(chan error)
	var second *Lock
	go func() {
		var err error
		second, err = TakeLock(dir, Baseline, "the second writer", time.Hour, func(holder string) { waiting <- holder })
		taken <- err
	}()
	if holder := <-waiting; holder != "the first writer" {
		t.Errorf("the waiting writer was told %q holds the lock, want the first writer", holder)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-taken; err != nil {
		t.Fatalf("the waiting writer, the lock released: %v", err)
	}
	defer second.Release()
	if data, _ := os.ReadFile(dir + ".lock"); string(data) != "havlak-lab nightly-baseline lock\nthe second writer\n" {
		t.Errorf("the lock file says %q, want its holder's name", data)
	}
	if first.Held() || first.Release() != nil {
		t.Error("a lock released is still held, or cannot be released again")
	}
}

// The kernel releases the lock of a writer killed, however it is killed:
// nothing is left to clear by hand, and the next writer takes it at once.
func TestLockOfAKilledWriterIsFree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "baseline")
	holder, _ := startHolder(t, dir)
	var held *HeldError
	if _, err := TakeLock(dir, Baseline, "the test", 0, nil); !errors.As(err, &held) || held.Holder != "the holder process" {
		t.Fatalf("a lock another process holds: %v; want a HeldError naming it", err)
	}
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	lock, err := TakeLock(dir, Baseline, "the test", 0, nil)
	if err != nil {
		t.Fatalf("the lock of a killed writer: %v; want it free", err)
	}
	lock.Release()
}

// The lock's file is close-on-exec: a command the holder starts (bazel,
// git, otava) does not inherit it, so the lock is free once the holder
// releases it, while the command still runs.
func TestLockIsNotInherited(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "baseline")
	lock, err := TakeLock(dir, Baseline, "the test", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, lock.file.Fd(), syscall.F_GETFD, 0)
	if errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("the lock file's descriptor flags: %#x, %v; want FD_CLOEXEC", flags, errno)
	}
	_, stdin := startHolder(t, holdNothing)
	defer stdin.Close()
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := TakeLock(dir, Baseline, "the test again", 0, nil)
	if err != nil {
		t.Fatalf("the lock released while a command its holder started runs: %v; want it free", err)
	}
	again.Release()
}

// A file at the lock's name that is not the lab's lock (another's file,
// a directory, a link, a named pipe) is refused, naming it, and never
// written; an empty one is a lock file no one wrote yet.
func TestLockRefusesAFileNotTheLabs(t *testing.T) {
	parent := t.TempDir()
	dir := func(name string) string { return filepath.Join(parent, name) }
	os.WriteFile(dir("notes")+".lock", []byte("precious"), 0o644)
	os.WriteFile(dir("report")+".lock", []byte("havlak-lab report lock\nsomeone\n"), 0o644)
	os.Mkdir(dir("directory")+".lock", 0o755)
	os.WriteFile(dir("target"), []byte("precious"), 0o644)
	os.Symlink(dir("target"), dir("link")+".lock")
	syscall.Mkfifo(dir("fifo")+".lock", 0o644)
	os.WriteFile(dir("large")+".lock", []byte("havlak-lab nightly-baseline lock\n"+strings.Repeat("x", maxMarkerBytes)), 0o644)
	for name, want := range map[string]string{
		"notes":     "not the lab's nightly-baseline lock",
		"report":    "not the lab's nightly-baseline lock",
		"directory": "not a regular file but a directory",
		"link":      "not a regular file but a symbolic link",
		"fifo":      "not a regular file but a named pipe",
		"large":     fmt.Sprintf("over %d bytes", maxMarkerBytes),
	} {
		path := dir(name) + ".lock"
		before := fileContent(path)
		if err := CheckLock("--baseline", dir(name), Baseline); err == nil ||
			!strings.Contains(err.Error(), "--baseline "+dir(name)+": its lock file "+path+": "+want) {
			t.Errorf("checking %s: %v; want a refusal saying %q", name, err, want)
		}
		if l, err := TakeLock(dir(name), Baseline, "the test", 0, nil); err == nil || !strings.Contains(err.Error(), path+": "+want) {
			l.Release()
			t.Errorf("locking %s: %v; want a refusal saying %q", name, err, want)
		}
		if after := fileContent(path); after != before {
			t.Errorf("%s: the lock file was written: %q", name, after)
		}
	}
	if data, _ := os.ReadFile(dir("target")); string(data) != "precious" {
		t.Errorf("what the link leads to was written: %q", data)
	}
	os.WriteFile(dir("empty")+".lock", nil, 0o644)
	for _, name := range []string{"empty", "absent"} {
		if err := CheckLock("--baseline", dir(name), Baseline); err != nil {
			t.Errorf("checking %s: %v; want none", name, err)
		}
		l, err := TakeLock(dir(name), Baseline, "the test", 0, nil)
		if err != nil {
			t.Errorf("locking %s: %v; want the lock", name, err)
		}
		l.Release()
	}
}

// fileContent is what the regular file at path holds, and "" for any
// other file: reading a named pipe would block.
func fileContent(path string) string {
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	data, _ := os.ReadFile(path)
	return string(data)
}
