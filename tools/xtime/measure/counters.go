package measure

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// Counting a command's events with perf_event_open(2).
//
// The counters must see the command's own work and nothing of xtime's, from
// its first instruction. xtime starts the command traced
// (SysProcAttr.Ptrace: the child calls ptrace(PTRACE_TRACEME) before its
// execve), so the kernel stops it with SIGTRAP right after the execve,
// before the new program's first instruction. While it is stopped xtime
// opens the counters on its pid with inherit set, so that every thread and
// child process it starts is counted too, then detaches: the child goes on
// as if never traced (the SIGTRAP is suppressed; its exit status, signals
// and standard streams are its own). After the wait the counters hold the
// totals of the process and all its descendants, which the kernel folds in
// as each of them exits. Only user space is counted (exclude_kernel,
// exclude_hv), so the names carry perf's ":u".
//
// Where the events cannot be counted (no PMU, as in the lab's VMs, or
// kernel.perf_event_paranoid forbids it) nothing is traced: xtime finds out
// once, by opening them on itself, and records the reason in every run.
//
// golang.org/x/sys/unix has PerfEventAttr, but its assembly does not link
// with the lab's rules_go, so the attribute is laid out here and the system
// call made with package syscall.

// perfEventAttr is struct perf_event_attr of linux/perf_event.h up to
// PERF_ATTR_SIZE_VER5 (112 bytes).
type perfEventAttr struct {
	Type             uint32
	Size             uint32
	Config           uint64
	SamplePeriod     uint64
	SampleType       uint64
	ReadFormat       uint64
	Flags            uint64 // the bit fields: disabled, inherit, ...
	WakeupEvents     uint32
	BpType           uint32
	Config1          uint64
	Config2          uint64
	BranchSampleType uint64
	SampleRegsUser   uint64
	SampleStackUser  uint32
	ClockID          int32
	SampleRegsIntr   uint64
	AuxWatermark     uint32
	SampleMaxStack   uint16
	_                uint16
}

const perfAttrSizeVer5 = 112

// Constants of linux/perf_event.h.
const (
	perfTypeHardware = 0
	perfTypeSoftware = 1

	perfFormatTotalTimeEnabled = 1 << 0
	perfFormatTotalTimeRunning = 1 << 1

	perfAttrInherit       = 1 << 1 // bit fields of Flags
	perfAttrExcludeKernel = 1 << 5
	perfAttrExcludeHV     = 1 << 6

	perfFlagFDCloexec = 1 << 3
)

// An Event is a perf event xtime counts, named as perf names it.
type Event struct {
	name   string
	typ    uint32
	config uint64
}

// events are the events -counters accepts. The hardware ones need a PMU;
// the software ones are counted by the kernel everywhere (the tests use
// page-faults:u to prove the machinery on machines without a PMU).
var events = []Event{
	{"instructions:u", perfTypeHardware, 1},     // PERF_COUNT_HW_INSTRUCTIONS
	{"cycles:u", perfTypeHardware, 0},           // PERF_COUNT_HW_CPU_CYCLES
	{"branches:u", perfTypeHardware, 4},         // PERF_COUNT_HW_BRANCH_INSTRUCTIONS
	{"branch-misses:u", perfTypeHardware, 5},    // PERF_COUNT_HW_BRANCH_MISSES
	{"cache-references:u", perfTypeHardware, 2}, // PERF_COUNT_HW_CACHE_REFERENCES
	{"cache-misses:u", perfTypeHardware, 3},     // PERF_COUNT_HW_CACHE_MISSES
	{"page-faults:u", perfTypeSoftware, 2},      // PERF_COUNT_SW_PAGE_FAULTS
	{"minor-faults:u", perfTypeSoftware, 5},     // PERF_COUNT_SW_PAGE_FAULTS_MIN
	{"major-faults:u", perfTypeSoftware, 6},     // PERF_COUNT_SW_PAGE_FAULTS_MAJ
}

// DefaultCounters is -counters' default.
const DefaultCounters = "instructions:u,cycles:u,branch-misses:u,cache-misses:u"

// ParseCounters parses -counters' comma-separated list of event names.
func ParseCounters(list string) ([]Event, error) {
	var evs []Event
	if list == "" {
		return nil, nil
	}
	for _, name := range strings.Split(list, ",") {
		i := -1
		for j, ev := range events {
			if ev.name == name {
				i = j
			}
		}
		if i < 0 {
			var known []string
			for _, ev := range events {
				known = append(known, ev.name)
			}
			return nil, fmt.Errorf("unknown event %q: want some of %s", name, strings.Join(known, ","))
		}
		for _, ev := range evs {
			if ev.name == name {
				return nil, fmt.Errorf("event %q named twice", name)
			}
		}
		evs = append(evs, events[i])
	}
	return evs, nil
}

// A counterGroup is the open counters of one command, one per event, the
// first the group leader: the kernel schedules them together.
type counterGroup struct {
	events []Event
	fds    []int
}

// openCounters opens a counter of every event, for the process pid (0:
// xtime itself) and, inherited, its threads and descendants from now on.
func openCounters(pid int, evs []Event) (*counterGroup, error) {
	g := &counterGroup{events: evs}
	leader := -1
	for _, ev := range evs {
		attr := perfEventAttr{
			Type:       ev.typ,
			Size:       perfAttrSizeVer5,
			Config:     ev.config,
			ReadFormat: perfFormatTotalTimeEnabled | perfFormatTotalTimeRunning,
			Flags:      perfAttrInherit | perfAttrExcludeKernel | perfAttrExcludeHV,
		}
		fd, _, errno := syscall.Syscall6(syscall.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&attr)),
			uintptr(pid), ^uintptr(0) /* any CPU */, uintptr(leader), perfFlagFDCloexec, 0)
		if errno != 0 {
			g.close()
			return nil, fmt.Errorf("perf_event_open %s: %s", ev.name, errnoText(errno))
		}
		g.fds = append(g.fds, int(fd))
		if leader < 0 {
			leader = int(fd)
		}
	}
	return g, nil
}

func (g *counterGroup) close() {
	for _, fd := range g.fds {
		syscall.Close(fd)
	}
	g.fds = nil
}

// A counts is what the counters of one run counted.
type counts struct {
	values      []int64 // per event of the run's group
	scaled      bool    // multiplexed: values are estimates
	unavailable string  // why there are no values
}

// read reads the counts and closes the counters.
func (g *counterGroup) read() counts {
	defer g.close()
	c := counts{values: make([]int64, len(g.fds))}
	for i, fd := range g.fds {
		var buf [24]byte // value, time enabled, time running
		n, err := syscall.Read(fd, buf[:])
		if err != nil || n != len(buf) {
			return counts{unavailable: fmt.Sprintf("reading %s: %d bytes, %v", g.events[i].name, n, err)}
		}
		value := binary.NativeEndian.Uint64(buf[0:])
		enabled := binary.NativeEndian.Uint64(buf[8:])
		running := binary.NativeEndian.Uint64(buf[16:])
		switch {
		case running == 0 && value == 0 && enabled > 0:
			// The PMU never had room for the group (other users of it).
			return counts{unavailable: fmt.Sprintf("%s: never scheduled on the PMU", g.events[i].name)}
		case running < enabled:
			value = uint64(float64(value) * float64(enabled) / float64(running))
			c.scaled = true
		}
		c.values[i] = int64(value)
	}
	return c
}

// A counter counts a command's events.
type counter struct {
	events []Event
	// unavailable says why the events cannot be counted on this machine,
	// or is "".
	unavailable string
}

// newCounter is a counter of evs; it tries them on xtime itself first.
func newCounter(evs []Event) *counter {
	c := &counter{events: evs}
	if len(evs) == 0 {
		return c
	}
	g, err := openCounters(0, evs)
	if err != nil {
		c.unavailable = err.Error()
		return c
	}
	g.close()
	return c
}

// Unavailable says why evs cannot be counted on this machine (trying
// them on the calling process), or is "" when they can: what every run's
// record then says.
func Unavailable(evs []Event) string { return newCounter(evs).unavailable }

// active tells whether c counts the commands it starts.
func (c *counter) active() bool { return len(c.events) > 0 && c.unavailable == "" }

// start starts cmd, counting it when c is active. It returns the open
// counters, or nil and why there are none ("" when c counts nothing).
func (c *counter) start(cmd *exec.Cmd, newCmd func() *exec.Cmd) (*exec.Cmd, *counterGroup, string, error) {
	if !c.active() {
		return cmd, nil, c.unavailable, cmd.Start()
	}
	// The tracer is the thread that forks; ptrace calls must come from it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		if !errors.Is(err, syscall.EPERM) {
			return cmd, nil, "", err
		}
		// ptrace(PTRACE_TRACEME) may be refused (a seccomp filter, Yama);
		// so may the execve itself, which then fails again here.
		cmd = newCmd()
		if err := cmd.Start(); err != nil {
			return cmd, nil, "", err
		}
		return cmd, nil, "ptrace: cannot trace the command to count it: EPERM (operation not permitted)", nil
	}
	g, why := c.attach(cmd.Process.Pid)
	return cmd, g, why, nil
}

// Constants of waitid(2).
const (
	pPID     = 1
	wStopped = 0x2
	wExited  = 0x4
	wNoWait  = 0x1000000
	cldTrapp = 4 // si_code CLD_TRAPPED
)

// attach waits for the traced child pid to stop at its execve, opens the
// counters on it and lets it go.
func (c *counter) attach(pid int) (*counterGroup, string) {
	// waitid with WNOWAIT: if the child ended instead (SIGKILL), its
	// status stays for cmd.Wait.
	var info [16]uint64 // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), wStopped|wExited|wNoWait, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return nil, "waitid: " + errnoText(errno)
		}
		break
	}
	code := int32(info[1])                // si_code, after si_signo and si_errno
	status := int32(info[3] & 0xffffffff) // si_status, after si_pid and si_uid
	if code != cldTrapp {
		return nil, "the command ended before its first instruction"
	}
	sig := syscall.Signal(status)
	if sig != syscall.SIGTRAP {
		// Another signal came first: deliver it, and count nothing.
		ptraceDetach(pid, sig)
		return nil, fmt.Sprintf("the command got %s before its first instruction", signalName(sig))
	}
	g, err := openCounters(pid, c.events)
	// Detaching with no signal resumes the child and drops the SIGTRAP.
	if derr := ptraceDetach(pid, 0); derr != nil {
		fmt.Fprintf(os.Stderr, "xtime: ptrace detach: %v\n", derr)
	}
	if err != nil {
		return nil, err.Error()
	}
	return g, ""
}

func ptraceDetach(pid int, sig syscall.Signal) error {
	_, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(pid), 0, uintptr(sig), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// errnoText is an errno as "ENOENT (no such file or directory)", with
// what it means for perf_event_open.
func errnoText(errno syscall.Errno) string {
	text := fmt.Sprintf("errno %d (%v)", int(errno), errno)
	if name, ok := errnoNames[errno]; ok {
		text = fmt.Sprintf("%s (%v)", name, errno)
	}
	switch errno {
	case syscall.ENOENT, syscall.EOPNOTSUPP, syscall.ENODEV:
		text += ": the machine has no PMU for this event (a VM without counters?)"
	case syscall.EACCES, syscall.EPERM:
		if p, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil {
			text += fmt.Sprintf(": kernel.perf_event_paranoid is %s", strings.TrimSpace(string(p)))
		}
	}
	return text
}

var errnoNames = map[syscall.Errno]string{
	syscall.ENOENT: "ENOENT", syscall.EOPNOTSUPP: "EOPNOTSUPP", syscall.ENODEV: "ENODEV",
	syscall.EACCES: "EACCES", syscall.EPERM: "EPERM", syscall.EINVAL: "EINVAL",
	syscall.EBUSY: "EBUSY", syscall.ENOSYS: "ENOSYS", syscall.EMFILE: "EMFILE",
	syscall.E2BIG: "E2BIG", syscall.ESRCH: "ESRCH", syscall.ECHILD: "ECHILD",
}

// countersLine formats the counts of evs as xtime prints them after a
// run's line: "instructions:u 1234567 cycles:u 2345678".
func countersLine(evs []Event, c counts) string {
	var b strings.Builder
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s %d", ev.name, c.values[i])
	}
	if c.scaled {
		b.WriteString(" (scaled: the counters were multiplexed)")
	}
	return b.String()
}
