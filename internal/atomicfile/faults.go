package atomicfile

// Fault points. A full disk cannot be made for root inside a test, nor a
// writer killed at a chosen instant by luck: so every step by which this
// package writes (Create, Write, Sync, Rename, SyncDir) first asks the
// fault point, which a test sets with InjectFaultsForTest to fail a
// chosen step with the error a full disk gives (syscall.ENOSPC), or to
// stop there while the test kills the process. Production never sets it:
// the only way in takes a testing.TB, which only the testing package
// makes; nothing reads an environment variable.

import (
	"os"
	"sync/atomic"
	"testing"
)

// A Step is one kind of step of a write.
type Step string

// The steps, each a fault point.
const (
	StepCreate  Step = "create"
	StepWrite   Step = "write"
	StepSync    Step = "sync"
	StepRename  Step = "rename"
	StepSyncDir Step = "sync directory"
)

// A FaultPoint is a step about to be taken: Step of Path (a file's final
// path; a rename's destination; a directory synced).
type FaultPoint struct {
	Step Step
	Path string
}

func (p FaultPoint) String() string { return string(p.Step) + " " + p.Path }

// injected is the test's fault point, nil in production.
var injected atomic.Pointer[func(FaultPoint) error]

// InjectFaultsForTest makes every step of this package's writes call
// inject first, until tb's test ends; an error inject returns fails the
// step instead of it, as the system's error would (wrapped in an
// *os.PathError naming the step and path). A testing.TB, which has an
// unexported method, can only come from the testing package: production
// code has none to give. (testing.Testing cannot be asked as well: a
// test binary that Bazel's rules_go links says false.)
func InjectFaultsForTest(tb testing.TB, inject func(FaultPoint) error) {
	tb.Helper()
	before := injected.Swap(&inject)
	tb.Cleanup(func() { injected.Store(before) })
}

// fault asks the test's fault point about step of path: nil, unless a
// test injects a fault there.
func fault(step Step, path string) error {
	inject := injected.Load()
	if inject == nil {
		return nil
	}
	if err := (*inject)(FaultPoint{step, path}); err != nil {
		return &os.PathError{Op: string(step), Path: path, Err: err}
	}
	return nil
}
