package perfrun

import (
	"errors"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/perf/perfspec"
)

func TestChoosePin(t *testing.T) {
	for _, tc := range []struct {
		pin     string
		allowed []int
		taskset bool
		cpu     int
		note    string
	}{
		{"", []int{0, 1, 2, 3}, true, 3, ""},
		{"last", []int{0, 2, 5}, true, 5, ""},
		{"2", []int{0, 1, 2, 3}, true, 2, ""},
		{"0", []int{0, 1}, true, 0, ""},
		{"7", []int{0, 1}, true, -1, "CPU 7 is not among the CPUs this process may use, [0 1]"},
		{"none", []int{0, 1}, true, -1, `pin_cpu is "none"`},
		{"", []int{0, 1}, false, -1, "taskset not found"},
		{"", []int{3}, true, -1, "one CPU (3): nothing to choose"},
		{"", nil, true, -1, "the CPUs this process may use are unknown"},
	} {
		cpu, note := choosePin(tc.pin, tc.allowed, tc.taskset)
		if cpu != tc.cpu || note != tc.note {
			t.Errorf("choosePin(%q, %v, %v) = %d, %q; want %d, %q", tc.pin, tc.allowed, tc.taskset, cpu, note, tc.cpu, tc.note)
		}
	}
}

func TestIsolation(t *testing.T) {
	all := func(string) (string, error) { return "/usr/bin/x", nil }
	none := func(string) (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		spec     perfspec.Program
		lookPath func(string) (string, error)
		prefix   string
		pinned   int // -1: not
		aslrOff  bool
		notes    string
	}{
		{perfspec.Program{}, all, "taskset -c 1", 1, false, "runs pinned to CPU 1 (taskset -c 1)"},
		{perfspec.Program{DisableASLR: true}, all, "taskset -c 1 setarch -R", 1, true, "runs pinned to CPU 1 (taskset -c 1); ASLR off (setarch -R)"},
		{perfspec.Program{DisableASLR: true}, none, "", -1, false, "runs not pinned to a CPU: taskset not found; ASLR left on: setarch not found"},
		{perfspec.Program{PinCPU: "none", DisableASLR: true}, all, "setarch -R", -1, true, `runs not pinned to a CPU: pin_cpu is "none"; ASLR off (setarch -R)`},
	} {
		prefix, setup, notes := isolation(&tc.spec, tc.lookPath, []int{0, 1})
		pinned := -1
		if setup.PinnedCPU != nil {
			pinned = *setup.PinnedCPU
		}
		if strings.Join(prefix, " ") != tc.prefix || pinned != tc.pinned || setup.ASLROff != tc.aslrOff ||
			(pinned < 0) != (setup.PinNote != "") || strings.Join(notes, "; ") != tc.notes {
			t.Errorf("isolation(%+v) = %q, %+v (pinned %d), %q; want %q, pinned %d, ASLR off %v, %q",
				tc.spec, prefix, setup, pinned, notes, tc.prefix, tc.pinned, tc.aslrOff, tc.notes)
		}
	}
}

// The prefix does what it says on this machine: the run sees one CPU in
// its affinity, and with disable_aslr the ADDR_NO_RANDOMIZE personality.
func TestIsolationRuns(t *testing.T) {
	allowed := allowedCPUs()
	t.Logf("CPUs this test may use: %v", allowed)
	prefix, setup, notes := isolation(&perfspec.Program{DisableASLR: true}, exec.LookPath, allowed)
	t.Logf("prefix %q, setup %+v, notes %q", prefix, setup, notes)
	if setup.PinnedCPU == nil {
		t.Skipf("not pinned here: %s", setup.PinNote)
	}
	cmd := exec.Command("cat", "/proc/self/status", "/proc/self/personality")
	p := &program{bench: &bench{Spec: &perfspec.Spec{}}, Program: &perfspec.Program{DisableASLR: true}}
	p.isolate(cmd)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%q: %v", cmd.Args, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if want := "Cpus_allowed_list:\t" + strconv.Itoa(*setup.PinnedCPU); !slices.Contains(lines, want) {
		t.Errorf("%q: no line %q in\n%s", cmd.Args, want, out)
	}
	if setup.ASLROff {
		// ADDR_NO_RANDOMIZE is 0x0040000.
		personality, err := strconv.ParseUint(lines[len(lines)-1], 16, 64)
		if err != nil || personality&0x0040000 == 0 {
			t.Errorf("%q: personality %q, %v: want ADDR_NO_RANDOMIZE", cmd.Args, lines[len(lines)-1], err)
		}
	}
}
