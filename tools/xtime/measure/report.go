package measure

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"havlak-lab/tools/result"
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

// BenchmarkName turns -bench's NAME into a Go benchmark name,
// "Benchmark" followed by NAME with its first letter uppercased.
func BenchmarkName(name string) (string, error) {
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
func benchHeader(m result.Machine) string {
	header := fmt.Sprintf("goos: %s\ngoarch: %s\n", m.OS, m.Arch)
	if m.CPUModel != "" {
		header += fmt.Sprintf("cpu: %s\n", m.CPUModel)
	}
	return header
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

// rfc3339Nano is time.RFC3339Nano with all nine digits kept.
const rfc3339Nano = "2006-01-02T15:04:05.000000000Z07:00"

// jsonReport returns the indented JSON record of the runs of argv on m,
// with the counts of evs and their summary if withSummary.
func jsonReport(argv []string, m result.Machine, evs []Event, runs []runResult, withSummary bool) ([]byte, error) {
	r := result.XTimeRecord{
		Timing: result.Timing{
			Command: argv[0],
			Args:    append([]string{}, argv[1:]...),
			Runs:    []result.Run{},
		},
		Machine: m,
	}
	for _, res := range runs {
		run := result.Run{
			Start:      res.start.Format(rfc3339Nano),
			ExitStatus: res.exitStatus(),
			Usage:      resultUsage(res.usage),
		}
		if res.status.Signaled() {
			run.Signal = signalName(res.status.Signal())
		}
		if res.counts.values != nil {
			run.Counters = map[string]int64{}
			for i, ev := range evs {
				run.Counters[ev.name] = res.counts.values[i]
			}
			run.CountersScaled = res.counts.scaled
		}
		run.CountersUnavailable = res.counts.unavailable
		run.Syscalls, run.SyscallsUnavailable = res.syscalls, res.syscallsUnavailable
		run.MinorFaults = &res.minorFaults
		r.Runs = append(r.Runs, run)
	}
	if withSummary {
		s := summarize(usages(runs))
		r.Summary = &result.Summary{Min: resultUsage(s.min), Median: resultUsage(s.median), Max: resultUsage(s.max)}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	return append(data, '\n'), err
}

func resultUsage(u usage) result.Usage {
	return result.Usage{
		UserSeconds: u.user.Seconds(),
		SysSeconds:  u.sys.Seconds(),
		RealSeconds: u.real.Seconds(),
		MaxRSSKiB:   u.maxRSS,
	}
}
