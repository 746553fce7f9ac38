package labdir

// One writer at a time: a writer that replaces a lab's directory whole
// (the nightly gate its baseline) holds the directory's lock from before
// it reads the directory until it has written it. Without it, two writers
// at once each take the other's temporaries for a killed writer's and
// remove them, or each swap in their own, the last one winning whatever
// night it held.
//
// The lock is an exclusive flock(2) on a file beside the directory
// (LockPath). The kernel releases it when its holder closes the file or
// dies, however it dies: a killed writer never leaves a lock behind, so a
// writer holding the lock knows that every temporary beside the
// directory is a dead writer's (Lock.RemoveLeftovers). The file is opened
// close-on-exec, as the os package opens every file, so the commands a
// writer starts (bazel, git, otava) never keep it locked after the writer
// is gone. The file stays when the lock is released: removing it while
// another writer waits on it would let a third lock a new file of the
// same name, and the two hold "the" lock at once.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"havlak-lab/internal/atomicfile"
)

// LockPath is the lock file of the lab's directory at dir: beside it, its
// name and ".lock" (a baseline at /agent/nightly-baseline is locked by
// /agent/nightly-baseline.lock).
func LockPath(dir string) string {
	return strings.TrimSuffix(dir, "/") + ".lock"
}

// lockHeader is the lock file's first line for kind. A file at LockPath
// holding anything else is not the lab's: it is never written.
func lockHeader(kind Kind) string { return "havlak-lab " + string(kind) + " lock\n" }

// Polling bounds of a writer waiting for the lock: it tries again after
// firstPoll, then twice as long each time, up to maxPoll. flock(2) could
// block instead, but a blocked call cannot be given up when the wait is
// over.
const (
	firstPoll = 10 * time.Millisecond
	maxPoll   = time.Second
)

// A Lock is a writer's hold on a lab's directory (TakeLock).
type Lock struct {
	dir  string
	file *os.File
}

// A HeldError is TakeLock's refusal: another writer held the lock for
// all the time the writer would wait.
type HeldError struct {
	// Path is the lock file; Holder, what it says of the writer that held
	// it (TakeLock's holder), "" when it said nothing.
	Path, Holder string
	// Waited is how long the writer waited.
	Waited time.Duration
}

func (e *HeldError) Error() string {
	msg := fmt.Sprintf("%s: held by another writer all of %s", e.Path, e.Waited)
	if e.Holder != "" {
		msg += " (" + e.Holder + ")"
	}
	return msg
}

// TakeLock takes the lock of the lab's directory of kind at dir, making
// the directory that holds it if need be, and writes holder, which says
// who holds it (a line), into the lock file for a waiting writer to read.
// While another writer holds it, TakeLock calls waiting (if not nil) once
// with what the lock file says of that writer, and tries again until wait
// has passed; then it refuses with a *HeldError. With a wait of 0 it
// tries once. A lock file that is not the lab's of kind (CheckLock) is
// refused, and never written.
func TakeLock(dir string, kind Kind, holder string, wait time.Duration, waiting func(holder string)) (*Lock, error) {
	path := LockPath(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// What is not a regular file is refused before it is opened (a named
	// pipe would block); O_NOFOLLOW refuses a link, which could lead to
	// any file.
	if info, err := os.Lstat(path); err == nil && notRegular(info) != "" {
		return nil, refusedLock("the lock file", path, notRegular(info))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	// What was checked may have been replaced since.
	if info, err := f.Stat(); err != nil || notRegular(info) != "" {
		f.Close()
		if err == nil {
			err = refusedLock("the lock file", path, notRegular(info))
		}
		return nil, err
	}
	start := time.Now()
	for poll := firstPoll; ; poll = min(2*poll, maxPoll) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		waited := time.Since(start)
		if waited >= wait {
			f.Close()
			return nil, &HeldError{Path: path, Holder: readHolder(path, kind), Waited: waited.Round(time.Millisecond)}
		}
		if waiting != nil {
			waiting(readHolder(path, kind))
			waiting = nil
		}
		time.Sleep(min(poll, wait-waited))
	}
	l := &Lock{dir: dir, file: f}
	if err := l.write(kind, holder); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// write checks, holding the lock, that the lock file is the lab's lock of
// kind (no writer of the lab writes it now), and writes holder into it.
func (l *Lock) write(kind Kind, holder string) error {
	if why := notLock(l.file, kind); why != "" {
		return refusedLock("the lock file", l.file.Name(), why)
	}
	if err := l.file.Truncate(0); err != nil {
		return err
	}
	_, err := l.file.WriteAt([]byte(lockHeader(kind)+strings.ReplaceAll(holder, "\n", " ")+"\n"), 0)
	return err
}

// Release releases the lock; the lock file stays (see above). Releasing
// a lock released is nothing.
func (l *Lock) Release() error {
	if l == nil || l.file == nil {
		return nil
	}
	err := l.file.Close() // closing the file releases its flock
	l.file = nil
	return err
}

// RemoveLeftovers removes the temporaries (Leftover) that writers of the
// lab's directory left beside it, and returns their paths. It asks the
// lock as its proof that their writers are gone: a writer that holds the
// lock is the only one alive, so every temporary it did not make is a
// killed writer's. Only directories are removed, never what a symbolic
// link of that name leads to; the name is the proof of ownership, as no
// one else names a directory so beside one the lab writes.
func (l *Lock) RemoveLeftovers() ([]string, error) {
	if l == nil || l.file == nil {
		return nil, errors.New("removing what writers left beside a lab's directory without its lock: refused, as they may be alive")
	}
	return atomicfile.RemoveBeside(l.dir, func(base string, e fs.DirEntry) bool { return e.IsDir() && Leftover(base, e.Name()) })
}

// Held tells whether the lock is held (taken and not released).
func (l *Lock) Held() bool { return l != nil && l.file != nil }

// CheckLock refuses, naming flag and dir, what is at dir's lock file
// (LockPath) when it is neither nothing nor a regular file holding
// nothing or the lab's lock of kind: another's file of that name, which
// the lock would write. It writes nothing.
func CheckLock(flag, dir string, kind Kind) error {
	path := LockPath(dir)
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	why := notRegular(info)
	if why == "" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		why = notLock(f, kind)
	}
	if why != "" {
		return refusedLock(flag+" "+dir+": its lock file", path, why)
	}
	return nil
}

// notRegular says why a lock file, info, is not a regular file, or "".
// It is asked before the file is opened: opening a named pipe would
// block.
func notRegular(info fs.FileInfo) string {
	if info.Mode().IsRegular() {
		return ""
	}
	return "not a regular file but " + what(info.Mode())
}

// notLock says why the lock file f does not hold the lab's lock of kind,
// or "" when it does or holds nothing (made and never written, or by a
// writer killed before it wrote).
func notLock(f *os.File, kind Kind) string {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, maxMarkerBytes+1))
	switch {
	case err != nil:
		return fmt.Sprintf("unreadable: %v", err)
	case len(data) > maxMarkerBytes:
		return fmt.Sprintf("over %d bytes", maxMarkerBytes)
	case len(data) > 0 && !strings.HasPrefix(string(data), lockHeader(kind)):
		return fmt.Sprintf("not the lab's %s lock (its first line is not %q)", kind, strings.TrimSpace(lockHeader(kind)))
	}
	return ""
}

// refusedLock is the refusal of a lock file that is not the lab's.
func refusedLock(what, path, why string) error {
	return fmt.Errorf("%s %s: %s: refused, nothing written; move it away (the lab locks the directory with a file of that name)", what, path, why)
}

// readHolder is what the lock file at path says of the writer that holds
// it, "" when it says nothing: a waiting writer reads it without the lock,
// and may find it half-written. The caller escapes it when printing.
func readHolder(path string, kind Kind) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, 0, maxMarkerBytes))
	holder, ok := strings.CutPrefix(string(data), lockHeader(kind))
	if err != nil || !ok {
		return ""
	}
	return strings.TrimSpace(holder)
}
