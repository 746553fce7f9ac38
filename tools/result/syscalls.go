package result

// Syscalls are a run's system calls as the kernel counts them in
// /proc/PID/io (xtime): Read is syscr, the read(2)-family calls; Write is
// syscw, the write(2)-family calls.
type Syscalls struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
}
