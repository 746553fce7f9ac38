package measure

// The command's system calls, counted exactly by the kernel in
// /proc/PID/io (result.ReadSyscalls says which calls): read after the
// command has exited and before it is reaped, as waitid with WNOWAIT
// leaves it a zombie whose /proc entry still holds them; once reaped,
// the entry is gone. taskset's and setarch's few calls before their exec
// of the program are in them, the same in every run.

import (
	"fmt"
	"syscall"
	"unsafe"
)

// waitExited waits until the process pid has exited, without reaping it
// (waitid's constants: counters.go).
func waitExited(pid int) error {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return fmt.Errorf("waitid %d: %w", pid, errno)
	}
}
