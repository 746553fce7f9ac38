package perfrun

import (
	"fmt"

	"havlak-lab/tools/result"
)

// The names of the system-call figures as metrics in result.json.
const (
	metricReadSyscalls  = result.MetricReadSyscalls
	metricWriteSyscalls = result.MetricWriteSyscalls
)

// syscallMetrics are the system calls of a program's timed runs, as
// xtime read them from /proc/PID/io (tools/xtime/measure/syscalls.go: the
// read(2) and write(2) families, of every thread and reaped child), one
// value per run. They are gated: a program given the same input makes
// the same calls (docs/noise.md measured every benchmark's), and a change
// that reads or writes in smaller pieces, or more often, makes more.
func syscallMetrics(runs []result.Run) []result.Metric {
	const source = "/proc/PID/io (syscr, syscw), each timed run"
	read := result.Metric{Name: metricReadSyscalls, Unit: "calls", Source: source + ": read(2), readv(2), pread64(2), ...",
		Cost: result.CostSystemCalls, Gated: true, Threshold: countThreshold, Exact: true}
	write := result.Metric{Name: metricWriteSyscalls, Unit: "calls", Source: source + ": write(2), writev(2), pwrite64(2), ...",
		Cost: result.CostSystemCalls, Gated: true, Threshold: countThreshold, Exact: true}
	for i, run := range runs {
		if run.Syscalls == nil {
			why := run.SyscallsUnavailable
			if why == "" {
				why = "xtime recorded none"
			}
			for _, m := range []*result.Metric{&read, &write} {
				m.Values, m.Gated, m.Threshold, m.Exact = nil, false, 0, false
				m.Unavailable = fmt.Sprintf("timed run %d: %s", i+1, why)
			}
			break
		}
		read.Values = append(read.Values, float64(run.Syscalls.Read))
		write.Values = append(write.Values, float64(run.Syscalls.Write))
	}
	return []result.Metric{read, write}
}

// exactSyscallsGODEBUG is the GODEBUG setting of a Go program's timed runs,
// godebug (the runner's own) with updatemaxprocs=0 added: since Go 1.25 a
// goroutine of the runtime rereads the cgroup's CPU limit (a pread64) at
// start and then periodically, so whether and how often it reads before
// the program exits depends on timing (a short helper program made 6 or 7
// reads, run after run; 6 every time with the setting). The program's
// GOMAXPROCS, set once at start, is the same either way.
func exactSyscallsGODEBUG(godebug string) string {
	if godebug == "" {
		return "GODEBUG=updatemaxprocs=0"
	}
	return "GODEBUG=" + godebug + ",updatemaxprocs=0"
}
