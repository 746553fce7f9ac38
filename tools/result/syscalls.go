package result

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Syscalls are a run's system calls as the kernel counts them in
// /proc/PID/io (xtime): Read is syscr, the read(2)-family calls; Write is
// syscw, the write(2)-family calls.
type Syscalls struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
}

// ReadSyscalls reads the system calls of process pid so far from
// /proc/PID/io: a running process's, or an exited one's that is not yet
// reaped (the entry goes with it). syscr counts every read(2), readv(2),
// pread64(2), preadv(2), preadv2(2) and sendfile(2) call, syscw every
// write(2), writev(2), pwrite64(2), pwritev(2), pwritev2(2) and
// sendfile(2) call (fs/read_write.c), to any file, socket or pipe, the
// calls that fail or would block (EAGAIN) included; no other system call.
// They cover every thread of the process, and its children once it has
// reaped them, and survive exec.
func ReadSyscalls(pid int) (*Syscalls, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return nil, err
	}
	return ParseProcIO(data)
}

// ParseProcIO reads syscr and syscw of /proc/PID/io's "name: value" lines.
func ParseProcIO(data []byte) (*Syscalls, error) {
	var s Syscalls
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
