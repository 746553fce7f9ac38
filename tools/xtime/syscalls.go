package main

// The command's system calls, counted exactly by the kernel: /proc/PID/io's
// syscr and syscw. They are read after the command has exited and before
// it is reaped (waitid with WNOWAIT leaves it a zombie whose /proc entry
// still holds them); once reaped, the entry is gone.
//
// What they count (fs/read_write.c): syscr every read(2), readv(2),
// pread64(2), preadv(2), preadv2(2) and sendfile(2) call, syscw every
// write(2), writev(2), pwrite64(2), pwritev(2), pwritev2(2) and
// sendfile(2) call, whatever the file (disk, pipe, socket, terminal), and
// also the calls that fail or would block (EAGAIN); not the other system
// calls (open, mmap, futex, epoll_wait, recvmsg/sendmsg, ...). They are
// of the whole process, every thread, and of its children once it has
// reaped them, and they survive exec: taskset's and setarch's few calls
// before the program's exec are in them, the same in every run.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"havlak-lab/tools/result"
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

// readSyscalls reads the system calls of the exited, unreaped process pid.
func readSyscalls(pid int) (*result.Syscalls, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return nil, err
	}
	return parseProcIO(data)
}

// parseProcIO reads syscr and syscw of /proc/PID/io's "name: value" lines.
func parseProcIO(data []byte) (*result.Syscalls, error) {
	var s result.Syscalls
	found := 0
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		name, value, ok := bytes.Cut(lines.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var field *int64
		switch string(name) {
		case "syscr":
			field = &s.Read
		case "syscw":
			field = &s.Write
		default:
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("/proc/PID/io: %s %q: not a count", name, bytes.TrimSpace(value))
		}
		*field = n
		found++
	}
	if found != 2 {
		return nil, fmt.Errorf("/proc/PID/io: no syscr and syscw lines in %q", data)
	}
	return &s, nil
}
