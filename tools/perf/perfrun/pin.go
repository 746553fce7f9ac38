package perfrun

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"unsafe"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// Run hygiene: the timed and counted runs go on one CPU, so that the
// scheduler does not move them between CPUs (each move costs cold caches
// and branch predictors) and, on a perf agent set up with
// //tools/perfagent, onto a CPU whose frequency and sibling stay put.

// choosePin picks the CPU for pin_cpu among the CPUs the runner may use
// (its affinity), or says why the runs are not pinned.
func choosePin(pinCPU string, allowed []int, haveTaskset bool) (cpu int, note string) {
	want, err := perfspec.ParsePinCPU(pinCPU)
	switch {
	case err != nil:
		return -1, err.Error()
	case want == -2:
		return -1, "pin_cpu is \"none\""
	case !haveTaskset:
		return -1, "taskset not found"
	case len(allowed) == 0:
		return -1, "the CPUs this process may use are unknown"
	case len(allowed) == 1:
		return -1, fmt.Sprintf("one CPU (%d): nothing to choose", allowed[0])
	case want == -1:
		return allowed[len(allowed)-1], ""
	}
	for _, c := range allowed {
		if c == want {
			return want, ""
		}
	}
	return -1, fmt.Sprintf("CPU %d is not among the CPUs this process may use, %v", want, allowed)
}

// allowedCPUs is this process's CPU affinity, in increasing order.
func allowedCPUs() []int {
	var mask [128]uint64 // up to 8192 CPUs
	n, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if errno != 0 {
		return nil
	}
	var cpus []int
	for i := 0; i < int(n)*8; i++ {
		if mask[i/64]&(1<<(i%64)) != 0 {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// isolation is the command prefix that runs a timed or counted run as
// the spec asks: `taskset -c CPU` and, with disable_aslr, `setarch -R`;
// and the setup result.json records. Both tools are found in $PATH; a
// missing one is a note, never a failure.
//
// ASLR stays on by default. Turning it off (setarch -R) gives every run
// the same memory layout, which takes away the run-to-run variance that
// layout makes (stack and heap alignment, cache set conflicts); but then
// every run measures that one layout, and a change that merely moves code
// or data can look like a speed-up or a slow-down of that layout alone
// (Mytkowicz et al., "Producing wrong data without doing anything
// obviously wrong!", ASPLOS 2009). With ASLR on, the repetitions sample
// several layouts. Turn it off to chase a small, layout-independent
// difference, knowing that.
func isolation(prog *perfspec.Program, lookPath func(string) (string, error), allowed []int) (prefix []string, setup result.Setup, notes []string) {
	_, err := lookPath("taskset")
	cpu, note := choosePin(prog.PinCPU, allowed, err == nil)
	if note != "" {
		setup.PinNote = note
		notes = append(notes, "runs not pinned to a CPU: "+note)
	} else {
		setup.PinnedCPU = &cpu
		prefix = append(prefix, "taskset", "-c", strconv.Itoa(cpu))
		notes = append(notes, fmt.Sprintf("runs pinned to CPU %d (taskset -c %d)", cpu, cpu))
	}
	if prog.DisableASLR {
		if _, err := lookPath("setarch"); err != nil {
			notes = append(notes, "ASLR left on: setarch not found")
		} else {
			setup.ASLROff = true
			prefix = append(prefix, "setarch", "-R")
			notes = append(notes, "ASLR off (setarch -R)")
		}
	}
	return prefix, setup, notes
}

// isolate makes cmd a timed or counted run: prefixed as isolation says,
// which it reports on stderr; it returns what result.json records.
func (p *program) isolate(cmd *exec.Cmd) result.Setup {
	prefix, setup, notes := isolation(p.Program, exec.LookPath, allowedCPUs())
	for _, note := range notes {
		fmt.Fprintf(os.Stderr, "perf: %s: %s\n", p.Benchmark.Name, note)
	}
	if len(prefix) > 0 {
		path, _ := exec.LookPath(prefix[0])
		cmd.Args = append(prefix, cmd.Args...)
		cmd.Path = path
		cmd.Err = nil
	}
	return setup
}
