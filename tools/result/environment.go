package result

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Environment is where and with what a benchmark ran. Every field is best
// effort: empty when it could not be found out.
type Environment struct {
	Machine    Machine    `json:"machine"`
	Toolchains Toolchains `json:"toolchains"`
	Source     Source     `json:"source"`
	Build      Build      `json:"build"`
	Started    string     `json:"started"` // RFC 3339
	Setup      Setup      `json:"setup"`
	Origin     Origin     `json:"origin"`
}

// Setup is how the runner ran the timed and counted runs.
type Setup struct {
	// PinnedCPU is the CPU they were pinned to (taskset -c), or nil.
	PinnedCPU *int `json:"pinned_cpu"`
	// PinNote says why they were not pinned, or is "".
	PinNote string `json:"pin_note,omitempty"`
	// ASLROff tells that address space randomization was off (setarch -R).
	ASLROff bool `json:"aslr_off"`
}

// Machine is the computer a benchmark ran on.
type Machine struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel"`    // uname's release
	CPUModel    string `json:"cpu_model"` // /proc/cpuinfo's "model name"
	Cores       int    `json:"cores"`
	MemoryBytes int64  `json:"memory_bytes"` // /proc/meminfo's MemTotal

	// CPUState is the CPUs' frequency and SMT state (sysfs).
	CPUState CPUState `json:"cpu_state"`
}

// CPUState is what sysfs says of the CPUs' frequency scaling and
// siblings, which move timings. Each value is "" when the machine does not
// say (a VM often has no cpufreq), with the reason in its note.
type CPUState struct {
	// Governor is cpu*/cpufreq/scaling_governor: "performance", or the
	// distinct governors joined by commas when the CPUs differ.
	Governor     string `json:"governor"`
	GovernorNote string `json:"governor_note,omitempty"`
	// Turbo is "on" or "off": intel_pstate/no_turbo, or cpufreq/boost.
	Turbo     string `json:"turbo"`
	TurboNote string `json:"turbo_note,omitempty"`
	// SMT is smt/control: "on", "off", "forceoff", "notsupported" or
	// "notimplemented".
	SMT     string `json:"smt"`
	SMTNote string `json:"smt_note,omitempty"`
}

// Toolchains are the versions of what built and ran the benchmark.
type Toolchains struct {
	Go    string `json:"go"`    // "go1.27.4"
	GCC   string `json:"gcc"`   // gcc --version's first line
	Bazel string `json:"bazel"` // as tools/bazel found it
	// Libc is ldd --version's first line ("ldd (Debian GLIBC 2.36-9+deb12u4)
	// 2.36"), Valgrind valgrind --version's ("valgrind-3.19.0"): what an
	// exact count depends on beside the binary. "" when not found, and in
	// results from before they were recorded.
	Libc     string `json:"libc,omitempty"`
	Valgrind string `json:"valgrind,omitempty"`
}

// Source is the code that was measured.
type Source struct {
	Commit string `json:"commit"` // git's full hash; "" when unknown
	Dirty  bool   `json:"dirty"`  // the tree had uncommitted changes
}

// Build is how Bazel built and selected the benchmark.
type Build struct {
	CompilationMode string `json:"compilation_mode"` // opt, fastbuild, dbg
	Config          string `json:"config"`           // perf, quick, run or counts
}

// The build configs a result can come from.
const (
	ConfigPerf  = "perf"
	ConfigQuick = "quick"
	ConfigRun   = "run"
	// ConfigCounts is a quick workload's exact counts alone, measured as a
	// Bazel action that any worker of the declared CountWorker may run and
	// any cache may keep (the runner's count mode): no timing, which on a
	// shared worker would be noise.
	ConfigCounts = "counts"
)

// CaptureMachine describes the machine this process runs on.
func CaptureMachine() Machine {
	m := Machine{
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
		Cores:       runtime.NumCPU(),
		CPUModel:    procField("/proc/cpuinfo", "model name"),
		MemoryBytes: memTotal(),
		CPUState:    CaptureCPUState("/sys"),
	}
	m.Hostname, _ = os.Hostname()
	var uts syscall.Utsname
	if syscall.Uname(&uts) == nil {
		m.Kernel = cString(uts.Release[:])
	}
	return m
}

// CPUDir is where sysfs describes the CPUs, under its root ("/sys").
const CPUDir = "devices/system/cpu"

// CaptureCPUState reads the CPUs' state from the sysfs mounted at root.
func CaptureCPUState(root string) CPUState {
	cpu := filepath.Join(root, CPUDir)
	var s CPUState
	govs, _ := filepath.Glob(filepath.Join(cpu, "cpu[0-9]*", "cpufreq", "scaling_governor"))
	var names []string
	for _, path := range govs {
		if name, err := readSysfs(path); err == nil && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	s.Governor = strings.Join(names, ",")
	if s.Governor == "" {
		s.GovernorNote = "no " + filepath.Join(cpu, "cpu*", "cpufreq", "scaling_governor") + ": no frequency scaling driver (a VM?)"
	}
	noTurbo := filepath.Join(cpu, "intel_pstate", "no_turbo")
	boost := filepath.Join(cpu, "cpufreq", "boost")
	if v, err := readSysfs(noTurbo); err == nil {
		s.Turbo = map[string]string{"0": "on", "1": "off"}[v]
	} else if v, err := readSysfs(boost); err == nil {
		s.Turbo = map[string]string{"0": "off", "1": "on"}[v]
	}
	if s.Turbo == "" {
		s.TurboNote = "neither " + noTurbo + " nor " + boost + " says"
	}
	control := filepath.Join(cpu, "smt", "control")
	if v, err := readSysfs(control); err == nil {
		s.SMT = v
	} else {
		s.SMTNote = "no " + control
	}
	return s
}

// readSysfs reads a one-line sysfs file.
func readSysfs(path string) (string, error) {
	data, err := os.ReadFile(path)
	return strings.TrimSpace(string(data)), err
}

// GCCVersion is the first line of `gcc --version`, or "".
func GCCVersion() string { return versionLine("gcc") }

// versionLine is the first line of `command --version`, or "".
func versionLine(command string) string {
	out, err := exec.Command(command, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// Capture describes the environment of a measurement starting now: this
// machine, the Go SDK this program was built with (the lab builds all its
// Go code with one SDK), gcc, libc and Valgrind, and what Bazel's build
// status says (see ParseStatus). build says how the benchmark was built
// and selected.
func Capture(status Status, build Build) Environment {
	return Environment{
		Machine: CaptureMachine(),
		Toolchains: Toolchains{
			Go:       runtime.Version(),
			GCC:      GCCVersion(),
			Bazel:    status.BazelVersion,
			Libc:     versionLine("ldd"),
			Valgrind: versionLine("valgrind"),
		},
		Source:  Source{Commit: status.Commit, Dirty: status.Dirty},
		Build:   build,
		Started: time.Now().UTC().Format(time.RFC3339),
		Origin:  captureOrigin(),
	}
}

// Status is what Bazel's workspace status command
// (tools/workspace_status.sh) found out when the benchmark was built.
type Status struct {
	Commit       string
	Dirty        bool
	BazelVersion string
}

// The keys of the workspace status the runner reads.
const (
	statusCommit = "STABLE_GIT_COMMIT"
	statusDirty  = "STABLE_GIT_DIRTY"
	statusBazel  = "STABLE_BAZEL_VERSION"
)

// ParseStatus reads a Bazel stable-status file ("KEY value" lines).
func ParseStatus(path string) (Status, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Status{}, err
	}
	var s Status
	for i, line := range strings.Split(string(data), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case statusCommit:
			s.Commit = value
		case statusBazel:
			s.BazelVersion = value
		case statusDirty:
			if s.Dirty, err = strconv.ParseBool(value); err != nil {
				return Status{}, fmt.Errorf("%s:%d: %s %q: want true or false", path, i+1, key, value)
			}
		}
	}
	return s, nil
}

// A Difference is one field in which two environments differ.
type Difference struct {
	Field    string // "machine.cpu_model"
	Old, New string
}

func (d Difference) String() string { return fmt.Sprintf("%s: %q → %q", d.Field, d.Old, d.New) }

// Differences lists the fields of the environments that make timings
// incomparable: the machine (with its CPUs' governor, turbo and SMT state,
// compared only when both environments recorded it: results from before
// those fields were added have neither value nor note), the toolchains
// that build (Go, gcc, Bazel; the machine stands for its libc and
// Valgrind, as it did before they were recorded, so keys stay), the
// compilation mode. The commit, the time and the config are what a
// comparison is about, and not among them.
func Differences(old, new Environment) []Difference {
	var diffs []Difference
	o, n := comparableFields(old), comparableFields(new)
	for i := range o {
		if o[i].recorded && n[i].recorded && o[i].value != n[i].value {
			diffs = append(diffs, Difference{o[i].name, o[i].value, n[i].value})
		}
	}
	return diffs
}

// DifferencesFor lists the fields of the environments that make figures of
// one kind incomparable: for an exact count (Figure.Exact: Cachegrind's
// instructions and simulated cache misses, system calls, counted
// allocations) those of CountDifferences, which can change a count; for
// every other figure (timings, memory, sampled and perf counters) those
// of Differences.
func DifferencesFor(old, new Environment, exact bool) []Difference {
	if exact {
		return CountDifferences(old, new)
	}
	return Differences(old, new)
}

// CountDifferences lists the fields of the environments that can change
// an exact count, which depends on the binary, what built it, the system
// libraries it runs with and the tool that counts, and not on how fast
// the machine runs it. Field by field:
//
//   - machine.os and machine.arch: in; another system or instruction set is
//     another binary.
//   - machine.kernel: in by its series (major.minor: "6.1" of
//     "6.1.0-18-amd64"), out by its patch level: a new series adds system
//     calls that libc and the Go runtime probe for and fall back from
//     (clone3, ...), which moves system-call counts; a patch does not.
//   - machine.hostname: out when both environments record libc and
//     Valgrind, which are what another machine changes for a count; in
//     when either does not (results from before they were recorded): then
//     the machine stands for its system libraries, as for timings.
//   - machine.cpu_model, cores, memory_bytes and cpu_state: out. Counted
//     runs are pinned to one CPU (environment.setup), Cachegrind simulates
//     a fixed cache geometry, and nothing counted waits on the clock. One
//     caveat: glibc's ifuncs and Go's internal/cpu choose code by the CPU's
//     extensions (CPUID, which Valgrind passes through in part), which the
//     model name does not record; a machine without an extension its
//     predecessor had can move a count, which then shows as a change of
//     the count beside the environment change that explains it.
//   - toolchains.go, gcc and bazel: in; they build the binary (Bazel's
//     version brings its rules' default flags).
//   - toolchains.libc: in when both record it (ld.so and libc run inside
//     every count of a C++ program).
//   - toolchains.valgrind: in when both record it; Valgrind's version
//     decides how Cachegrind counts (and its preloaded code runs as the
//     program).
//   - build.compilation_mode: in; another mode is another binary.
//   - setup (pinned CPU, ASLR), source, started, config, origin: out, as
//     for timings: what a comparison is about, or how the runs were made.
func CountDifferences(old, new Environment) []Difference {
	var diffs []Difference
	add := func(name, o, n string) {
		if o != n {
			diffs = append(diffs, Difference{name, o, n})
		}
	}
	om, nm, ot, nt := old.Machine, new.Machine, old.Toolchains, new.Toolchains
	if ot.Libc == "" || nt.Libc == "" || ot.Valgrind == "" || nt.Valgrind == "" {
		add("machine.hostname", om.Hostname, nm.Hostname)
	}
	add("machine.os", om.OS, nm.OS)
	add("machine.arch", om.Arch, nm.Arch)
	if kernelSeries(om.Kernel) != kernelSeries(nm.Kernel) {
		add("machine.kernel", om.Kernel, nm.Kernel)
	}
	add("toolchains.go", ot.Go, nt.Go)
	add("toolchains.gcc", ot.GCC, nt.GCC)
	add("toolchains.bazel", ot.Bazel, nt.Bazel)
	if ot.Libc != "" && nt.Libc != "" {
		add("toolchains.libc", ot.Libc, nt.Libc)
	}
	if ot.Valgrind != "" && nt.Valgrind != "" {
		add("toolchains.valgrind", ot.Valgrind, nt.Valgrind)
	}
	add("build.compilation_mode", old.Build.CompilationMode, new.Build.CompilationMode)
	return diffs
}

// kernelSeries is a kernel release's major.minor ("6.1" of
// "6.1.0-18-amd64"), or the whole release when it does not start with one.
func kernelSeries(release string) string {
	major, rest, ok := strings.Cut(release, ".")
	minor := strings.TrimLeft(rest, "0123456789")
	minor = rest[:len(rest)-len(minor)]
	if !ok || major == "" || minor == "" || strings.Trim(major, "0123456789") != "" {
		return release
	}
	return major + "." + minor
}

// EnvironmentKey names the class of environments whose timings compare:
// a hash of the fields Differences compares (16 hex digits). Environments
// with the same key have no Differences. A CPU state field enters with its
// value, so a result from before those fields keys like a machine that
// records no value (a VM), although Differences would compare it with any.
func EnvironmentKey(e Environment) string {
	h := sha256.New()
	for _, f := range comparableFields(e) {
		fmt.Fprintf(h, "%s=%q\n", f.name, f.value)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// An envField is one field of an environment that makes timings
// incomparable. recorded is false for a CPU state field the environment
// has neither a value nor a note for.
type envField struct {
	name, value string
	recorded    bool
}

// comparableFields lists the fields of e that Differences compares and
// EnvironmentKey hashes, always in the same order.
func comparableFields(e Environment) []envField {
	m, cpu := e.Machine, e.Machine.CPUState
	field := func(name string, value any) envField { return envField{name, fmt.Sprint(value), true} }
	state := func(name, value, note string) envField { return envField{name, value, value+note != ""} }
	return []envField{
		field("machine.hostname", m.Hostname),
		field("machine.os", m.OS),
		field("machine.arch", m.Arch),
		field("machine.kernel", m.Kernel),
		field("machine.cpu_model", m.CPUModel),
		field("machine.cores", m.Cores),
		field("machine.memory_bytes", m.MemoryBytes),
		state("machine.cpu_state.governor", cpu.Governor, cpu.GovernorNote),
		state("machine.cpu_state.turbo", cpu.Turbo, cpu.TurboNote),
		state("machine.cpu_state.smt", cpu.SMT, cpu.SMTNote),
		field("toolchains.go", e.Toolchains.Go),
		field("toolchains.gcc", e.Toolchains.GCC),
		field("toolchains.bazel", e.Toolchains.Bazel),
		field("build.compilation_mode", e.Build.CompilationMode),
	}
}

// procField returns the first value of key in a /proc file of "key: value"
// lines, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, value, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// memTotal is the machine's memory in bytes, or 0.
func memTotal() int64 {
	// "MemTotal:       24634204 kB"
	fields := strings.Fields(procField("/proc/meminfo", "MemTotal"))
	if len(fields) != 2 || fields[1] != "kB" {
		return 0
	}
	kib, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return 0
	}
	return kib * 1024
}
