package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"havlak-lab/tools/result"
)

// syscallsOf runs the helper with args n times under xtime and returns
// each run's system calls.
func syscallsOf(t *testing.T, n int, args ...string) []result.Syscalls {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	status, _, _ := xtime(t, "", append([]string{"-n", strconv.Itoa(n), "-json", path, testBinary(t)}, args...)...)
	if status != 0 {
		t.Fatalf("xtime %q: status %d", args, status)
	}
	var calls []result.Syscalls
	for i, run := range readReport(t, path).Runs {
		if run.Syscalls == nil {
			t.Fatalf("run %d of %q: no system calls: %s", i+1, args, run.SyscallsUnavailable)
		}
		calls = append(calls, *run.Syscalls)
	}
	return calls
}

// The system calls are exact: the same in every run of the same command,
// one more write for one more write(2), a reaped child's included.
func TestSyscallsAreExact(t *testing.T) {
	// The helper is a Go program: its runtime's rereading of the cgroup's
	// CPU limit is left out, as the perf runner does
	// (tools/perf/perfrun/syscalls.go).
	t.Setenv("GODEBUG", "updatemaxprocs=0")
	base := syscallsOf(t, 3, "write", "100")
	for i, c := range base {
		if c != base[0] {
			t.Errorf("run %d: %+v, run 1: %+v: want the same calls in every run", i+1, c, base[0])
		}
	}
	if base[0].Write < 100 {
		t.Errorf("%+v: want at least the helper's 100 writes", base[0])
	}
	more := syscallsOf(t, 1, "write", "103")[0]
	if more.Write-base[0].Write != 3 || more.Read != base[0].Read {
		t.Errorf("103 writes: %+v, 100 writes: %+v: want exactly 3 more writes, as many reads", more, base[0])
	}
	// The helper run as a child, waited for by the helper: its calls are
	// the parent's once reaped.
	spawned := syscallsOf(t, 1, "spawn", "write", "100")[0]
	if spawned.Write < base[0].Write {
		t.Errorf("spawn write 100: %+v: want the child's %d writes in it", spawned, base[0].Write)
	}
}
