package main

import (
	"bufio"
	"encoding/json"
	"errors"
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
	"unicode"
	"unicode/utf8"
)

// A usage is what one run cost.
type usage struct {
	user, sys, real time.Duration
	maxRSS          int64 // KiB
}

// classicLine formats u and the command line argv as GNU time -f
// '%Uu %Ss %er %MkB %C' does.
func classicLine(u usage, argv []string) string {
	return fmt.Sprintf("%su %ss %sr %dkB %s", seconds(u.user), seconds(u.sys), seconds(u.real), u.maxRSS, strings.Join(argv, " "))
}

// seconds formats d as GNU time does: seconds with two decimals, truncated.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%d.%02d", d/time.Second, d%time.Second/(10*time.Millisecond))
}

// A summary holds the minimum, median and maximum of every column of a
// series of usages, each column taken on its own.
type summary struct{ min, median, max usage }

func summarize(us []usage) summary {
	var user, sys, real []time.Duration
	var rss []int64
	for _, u := range us {
		user = append(user, u.user)
		sys = append(sys, u.sys)
		real = append(real, u.real)
		rss = append(rss, u.maxRSS)
	}
	var s summary
	s.min.user, s.median.user, s.max.user = minMedianMax(user)
	s.min.sys, s.median.sys, s.max.sys = minMedianMax(sys)
	s.min.real, s.median.real, s.max.real = minMedianMax(real)
	s.min.maxRSS, s.median.maxRSS, s.max.maxRSS = minMedianMax(rss)
	return s
}

// minMedianMax returns the minimum, median and maximum of the non-empty xs.
// The median of an even number of values is the mean of the middle two,
// rounded toward zero (to the nanosecond or KiB, so nothing visible).
func minMedianMax[T ~int64](xs []T) (lo, median, hi T) {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	n := len(sorted)
	median = sorted[n/2]
	if n%2 == 0 {
		a, b := sorted[n/2-1], sorted[n/2]
		median = a + (b-a)/2
	}
	return sorted[0], median, sorted[n-1]
}

// benchmarkName turns -bench's NAME into a Go benchmark name,
// "Benchmark" followed by NAME with its first letter uppercased.
func benchmarkName(name string) (string, error) {
	if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return "", errors.New("contains white space")
	}
	first, size := utf8.DecodeRuneInString(name)
	first = unicode.ToUpper(first)
	if !unicode.IsUpper(first) {
		return "", errors.New("does not start with a letter")
	}
	return "Benchmark" + string(first) + name[size:], nil
}

// benchLine formats u as a one-iteration result of benchmark name.
//
// CPU times are in seconds, not nanoseconds: benchstat's reader renames a
// unit like "user-ns/op" to "user-sec/op" only when that changes the value,
// so a run with 0 ns of system time would land in a metric of its own.
func benchLine(name string, u usage) string {
	return fmt.Sprintf("%s 1 %d ns/op %d peak-RSS-bytes %s user-sec/op %s sys-sec/op",
		name, u.real.Nanoseconds(), u.maxRSS*1024, decimalSeconds(u.user), decimalSeconds(u.sys))
}

// decimalSeconds formats d in seconds, exactly, without an exponent.
func decimalSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// benchHeader is the configuration benchstat reads before benchmark lines.
func benchHeader(h host) string {
	header := fmt.Sprintf("goos: %s\ngoarch: %s\n", h.OS, h.Arch)
	if h.CPUModel != "" {
		header += fmt.Sprintf("cpu: %s\n", h.CPUModel)
	}
	return header
}

// A host describes the machine and tools xtime runs with. Every field is
// best effort: empty when it cannot be found out.
type host struct {
	Hostname   string `json:"hostname"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Kernel     string `json:"kernel"`    // uname's release
	CPUModel   string `json:"cpu_model"` // /proc/cpuinfo's "model name"
	Cores      int    `json:"cores"`
	GoVersion  string `json:"go_version"`  // xtime's own
	GCCVersion string `json:"gcc_version"` // the first line of gcc --version
}

func hostInfo() host {
	h := host{
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		Cores:     runtime.NumCPU(),
		GoVersion: runtime.Version(),
		CPUModel:  cpuModel(),
	}
	h.Hostname, _ = os.Hostname()
	var uts syscall.Utsname
	if syscall.Uname(&uts) == nil {
		var release []byte
		for _, c := range uts.Release {
			if c == 0 {
				break
			}
			release = append(release, byte(c))
		}
		h.Kernel = string(release)
	}
	if out, err := exec.Command("gcc", "--version").Output(); err == nil {
		h.GCCVersion, _, _ = strings.Cut(string(out), "\n")
	}
	return h
}

// cpuModel returns the first "model name" in /proc/cpuinfo, or "".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		key, value, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// signalName returns sig's name, such as "SIGKILL", or for a signal
// without one (a real-time signal) its description, such as "signal 40".
func signalName(sig os.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return sig.String()
}

// signalNames names Linux's standard signals. (golang.org/x/sys/unix has
// SignalName, but its assembly does not link with our rules_go.)
var signalNames = map[os.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGSTKFLT: "SIGSTKFLT", syscall.SIGCHLD: "SIGCHLD", syscall.SIGCONT: "SIGCONT",
	syscall.SIGSTOP: "SIGSTOP", syscall.SIGTSTP: "SIGTSTP", syscall.SIGTTIN: "SIGTTIN",
	syscall.SIGTTOU: "SIGTTOU", syscall.SIGURG: "SIGURG", syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGVTALRM: "SIGVTALRM", syscall.SIGPROF: "SIGPROF",
	syscall.SIGWINCH: "SIGWINCH", syscall.SIGIO: "SIGIO", syscall.SIGPWR: "SIGPWR",
	syscall.SIGSYS: "SIGSYS",
}

// The JSON report.
type (
	report struct {
		Command string         `json:"command"`
		Args    []string       `json:"args"`
		Host    host           `json:"host"`
		Runs    []runReport    `json:"runs"`
		Summary *summaryReport `json:"summary,omitempty"`
	}
	runReport struct {
		Start      string `json:"start"`       // RFC 3339, nanoseconds
		ExitStatus int    `json:"exit_status"` // 128+N for signal N
		Signal     string `json:"signal"`      // the signal's name, or ""
		usageReport
	}
	usageReport struct {
		UserSeconds float64 `json:"user_seconds"`
		SysSeconds  float64 `json:"sys_seconds"`
		RealSeconds float64 `json:"real_seconds"`
		MaxRSSKiB   int64   `json:"max_rss_kib"`
	}
	summaryReport struct {
		Min    usageReport `json:"min"`
		Median usageReport `json:"median"`
		Max    usageReport `json:"max"`
	}
)

// rfc3339Nano is time.RFC3339Nano with all nine digits kept.
const rfc3339Nano = "2006-01-02T15:04:05.000000000Z07:00"

// jsonReport returns the indented JSON report on the runs of argv on h,
// with their summary if withSummary.
func jsonReport(argv []string, h host, results []result, withSummary bool) ([]byte, error) {
	r := report{
		Command: argv[0],
		Args:    append([]string{}, argv[1:]...),
		Host:    h,
		Runs:    []runReport{},
	}
	for _, res := range results {
		run := runReport{
			Start:       res.start.Format(rfc3339Nano),
			ExitStatus:  res.exitStatus(),
			usageReport: newUsageReport(res.usage),
		}
		if res.status.Signaled() {
			run.Signal = signalName(res.status.Signal())
		}
		r.Runs = append(r.Runs, run)
	}
	if withSummary {
		s := summarize(usages(results))
		r.Summary = &summaryReport{newUsageReport(s.min), newUsageReport(s.median), newUsageReport(s.max)}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	return append(data, '\n'), err
}

func newUsageReport(u usage) usageReport {
	return usageReport{u.user.Seconds(), u.sys.Seconds(), u.real.Seconds(), u.maxRSS}
}

// A pendingFile is an output file written atomically. It starts as a hidden
// temporary file in the destination's directory, created before the
// command runs so that an unusable path fails early, and is renamed onto
// the destination when complete.
type pendingFile struct {
	path string
	tmp  *os.File // nil once committed or discarded
}

// createPending creates path's directory if needed and a temporary file in it.
func createPending(path string) (*pendingFile, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &pendingFile{path: path, tmp: tmp}, nil
}

// commit writes data to the temporary file and renames it onto the
// destination, or removes it on failure.
func (p *pendingFile) commit(data []byte) error {
	f := p.tmp
	p.tmp = nil
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 is for secrets
	}
	if err == nil {
		err = f.Sync() // the data reaches the disk before the name does
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(f.Name(), p.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// discard removes the temporary file unless it was committed.
func (p *pendingFile) discard() {
	if p.tmp != nil {
		p.tmp.Close()
		os.Remove(p.tmp.Name())
		p.tmp = nil
	}
}
