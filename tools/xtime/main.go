// Command xtime runs a command and reports what it cost: user and system CPU
// time, real (wall-clock) time and maximum resident set size. It is the lab's
// timing tool, after the xtime of Russ Cox's "Profiling Go Programs".
//
// Usage:
//
//	xtime [-n N] [-json FILE] [-bench NAME [-benchout FILE]] [-counters LIST] command [args...]
//
// After each run xtime prints one line to standard error, exactly as GNU
// time -f '%Uu %Ss %er %MkB %C' does: user and system CPU seconds and
// elapsed seconds, each truncated to hundredths, the maximum resident set
// size in KiB, then the command line:
//
//	2.26u 0.03s 2.29r 368856kB havlak6
//
// CPU time and maximum RSS come from the kernel's resource usage of the
// waited child (wait4), not from polling; real time is xtime's monotonic
// clock from just before the start to the end of the wait. Like GNU time's,
// the maximum RSS includes the memory the child had before its exec, so it
// never drops below xtime's own, about 3.5 MiB (GNU time's: about 1 MiB).
// It matters only for tiny commands: sleep shows 3.5 MiB, not 1.6 MiB.
//
// Where the machine can count them (it has a PMU, and
// kernel.perf_event_paranoid lets xtime count its child's user space), a
// second line follows with the run's hardware counters, user space only,
// of the command's process and all its threads and children from its first
// instruction (see -counters):
//
//	instructions:u 7712345678 cycles:u 5123456789 branch-misses:u 1234567 cache-misses:u 2345678
//
// Where it cannot (no PMU, as in the lab's VMs), nothing changes: no second
// line, the same exit status, and -json records why in every run.
//
// A run that fails is reported the way GNU time does, one line before the
// usual one: "Command exited with non-zero status N", or "Command
// terminated by signal N (SIGNAME)".
//
// Flags:
//
//	-n N
//		Run the command N times (default 1). When N > 1 and every run
//		succeeds, three summary lines follow, "min: ", "median: " and
//		"max: " each followed by a line in the format above, every column
//		summarised on its own; the median of an even number of runs is the
//		mean of the middle two. The first failing run ends the series.
//	-json FILE
//		Write a JSON record of the runs, the lab's result.XTimeRecord
//		(package havlak-lab/tools/result): the command, its arguments,
//		every run (start time, exit status, signal, seconds, max RSS),
//		for N > 1 successful runs the summary, and the machine (name, OS,
//		architecture, kernel release, CPU model, cores, memory). With
//		-counters, every run also has its counts ("counters", by event)
//		or the reason there are none ("counters_unavailable", e.g.
//		"perf_event_open instructions:u: ENOENT (no such file or
//		directory): ..."). It is written even when a run fails, with the
//		runs so far.
//	-bench NAME
//		Also report every successful run as a line in Go benchmark format,
//		which benchstat reads:
//		BenchmarkNAME 1 R ns/op M peak-RSS-bytes U user-sec/op S sys-sec/op
//		with real time R in nanoseconds, maximum RSS M in bytes, and CPU
//		times U and S in seconds (benchstat's unit for them; as
//		"user-ns/op", a run with 0 ns would count as another metric).
//		The first letter of NAME is uppercased; it must be a letter, and
//		NAME must not contain white space. The lines go to standard error,
//		after the lines above.
//	-benchout FILE
//		Write the -bench lines to FILE instead, after "goos:", "goarch:"
//		and "cpu:" header lines (the machine's OS, architecture and CPU
//		model); like -json, even when a run fails.
//	-counters LIST
//		The perf events to count in every run, comma-separated (default
//		instructions:u,cycles:u,branch-misses:u,cache-misses:u; "" counts
//		nothing): instructions:u, cycles:u, branches:u, branch-misses:u,
//		cache-references:u, cache-misses:u (hardware, counted by the PMU)
//		and page-faults:u, minor-faults:u, major-faults:u (software,
//		counted by the kernel on any machine). xtime counts them with
//		perf_event_open(2): it starts the command traced, so the kernel
//		stops it right after its execve, opens the counters on it
//		(inherited by its threads and children) and detaches, before the
//		command's first instruction. xtime tries the events on itself
//		first; when they cannot be counted, it traces nothing. Counts the
//		kernel had to multiplex are scaled, and marked so.
//
// Output files are written whole or not at all: a temporary file in the
// same directory, renamed onto FILE at the end. The directory is created,
// and the temporary file with it, before the command runs, so an unusable
// path is a usage error that costs no run.
//
// Standard input, output and error pass through to the command. With -n
// N > 1 all runs share xtime's standard input, so only the first run can
// consume it; later runs find what it left, usually end of file.
//
// xtime forwards SIGINT and SIGTERM to the running command and keeps running
// itself, to report the run; it then starts no further runs. On a terminal,
// Ctrl-C reaches the command twice: from the terminal and from xtime.
//
// Exit status: the failing run's status, 128+N when the command was killed
// by signal N; 128+N too when signal N stopped a series of runs early; 127
// when the command is not found, 126 when it is found but cannot be
// executed; 2 for a usage error; 1 when an output file cannot be written;
// otherwise 0.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/result"
)

func main() {
	os.Exit(exitStatus(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

const usageLine = "usage: xtime [-n N] [-json FILE] [-bench NAME [-benchout FILE]] [-counters LIST] command [args...]"

// run is xtime with command-line arguments args (without the program name).
// exitStatus turns the error it returns into a report and an exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	opts, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}

	// Open the output files before the first run, so that a bad path costs
	// no run.
	var jsonFile, benchFile *atomicfile.File
	if opts.jsonPath != "" {
		var err error
		if jsonFile, err = createOutput(opts.jsonPath); err != nil {
			return exitError{2, fmt.Errorf("-json: %w", err)}
		}
		defer jsonFile.Abort()
	}
	if opts.benchOut != "" {
		var err error
		if benchFile, err = createOutput(opts.benchOut); err != nil {
			return exitError{2, fmt.Errorf("-benchout: %w", err)}
		}
		defer benchFile.Abort()
	}
	var machine result.Machine
	if jsonFile != nil || benchFile != nil {
		machine = result.CaptureMachine()
	}

	argv := opts.argv
	results, failed := runAll(argv, opts.runs, newCounter(opts.events), stdin, stdout, stderr)

	summarized := failed == nil && len(results) > 1
	if summarized {
		s := summarize(usages(results))
		fmt.Fprintln(stderr, "min: "+classicLine(s.min, argv))
		fmt.Fprintln(stderr, "median: "+classicLine(s.median, argv))
		fmt.Fprintln(stderr, "max: "+classicLine(s.max, argv))
	}
	errs := []error{failed}
	if opts.benchName != "" {
		var lines strings.Builder
		for _, r := range results {
			if r.exitStatus() == 0 {
				fmt.Fprintln(&lines, benchLine(opts.benchName, r.usage))
			}
		}
		if benchFile == nil {
			io.WriteString(stderr, lines.String())
		} else if err := commit(benchFile, benchHeader(machine)+lines.String()); err != nil {
			errs = append(errs, fmt.Errorf("-benchout: %w", err))
		}
	}
	if jsonFile != nil {
		data, err := jsonReport(argv, machine, opts.events, results, summarized)
		if err == nil {
			err = commit(jsonFile, string(data))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("-json: %w", err))
		}
	}
	return errors.Join(errs...)
}

// options are xtime's command line, checked.
type options struct {
	argv      []string // the command and its arguments
	runs      int      // -n
	jsonPath  string   // -json, or ""
	benchName string   // -bench's NAME as a Go benchmark name, or ""
	benchOut  string   // -benchout, or ""
	events    []event  // -counters
}

// parseArgs parses and checks xtime's command line. For -help it returns
// flag.ErrHelp, which run takes for success; for a usage error, which it
// has reported on stderr, an exitError of status 2.
func parseArgs(args []string, stderr io.Writer) (options, error) {
	flags := flag.NewFlagSet("xtime", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintln(stderr, usageLine)
		flags.PrintDefaults()
	}
	n := flags.Int("n", 1, "run the command `N` times, then print min, median and max")
	jsonPath := flags.String("json", "", "write a JSON report to `file`")
	bench := flags.String("bench", "", "also print each run in Go benchmark format, as Benchmark`NAME`")
	benchOut := flags.String("benchout", "", "write the -bench lines to `file` instead of standard error")
	counterList := flags.String("counters", defaultCounters, "count the perf events of `list` in every run (\"\": none)")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, err
		}
		return options{}, exitError{status: 2} // the flag package has printed why
	}
	usagef := func(format string, args ...any) (options, error) {
		fmt.Fprintf(stderr, "xtime: %s\n%s\n", fmt.Sprintf(format, args...), usageLine)
		return options{}, exitError{status: 2}
	}

	opts := options{argv: flags.Args(), runs: *n, jsonPath: *jsonPath, benchOut: *benchOut}
	if len(opts.argv) == 0 {
		return usagef("no command given")
	}
	if *n < 1 {
		return usagef("-n %d: want at least 1 run", *n)
	}
	if *bench != "" {
		var err error
		if opts.benchName, err = benchmarkName(*bench); err != nil {
			return usagef("-bench %q: %v", *bench, err)
		}
	}
	if *benchOut != "" && *bench == "" {
		return usagef("-benchout %s: needs -bench", *benchOut)
	}
	if *jsonPath != "" && *benchOut != "" && filepath.Clean(*jsonPath) == filepath.Clean(*benchOut) {
		return usagef("-json and -benchout both name %s", *jsonPath)
	}
	var err error
	if opts.events, err = parseCounters(*counterList); err != nil {
		return usagef("-counters %q: %v", *counterList, err)
	}
	return opts, nil
}

// createOutput starts writing the output file path, creating its
// directory if needed; the file appears whole at the end, by commit.
func createOutput(path string) (*atomicfile.File, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	return atomicfile.Create(path)
}

// commit writes data to f and publishes it.
func commit(f *atomicfile.File, data string) error {
	if _, err := io.WriteString(f, data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// runAll runs the command argv up to n times, reporting each run on stderr,
// and stops at the first run that fails, at a failure to start, or after a
// run during which xtime received SIGINT or SIGTERM. It returns the runs and
// why it stopped early.
func runAll(argv []string, n int, c *counter, stdin io.Reader, stdout, stderr io.Writer) ([]runResult, error) {
	signals := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		// An ignored signal stays ignored, for xtime and its command.
		if !signal.Ignored(sig) {
			signal.Notify(signals, sig)
		}
	}
	defer signal.Stop(signals)

	var results []runResult
	for len(results) < n {
		select {
		case sig := <-signals: // between two runs
			return results, interrupted(sig, len(results), n)
		default:
		}
		r, sig, err := runOnce(argv, c, stdin, stdout, stderr, signals)
		if err != nil {
			return results, err
		}
		results = append(results, r)
		if note := r.note(); note != "" {
			fmt.Fprintln(stderr, note)
		}
		fmt.Fprintln(stderr, classicLine(r.usage, argv))
		if r.counts.values != nil {
			fmt.Fprintln(stderr, countersLine(c.events, r.counts))
		}
		if status := r.exitStatus(); status != 0 {
			return results, exitError{status: status} // reported by the note
		}
		if sig != nil && len(results) < n {
			return results, interrupted(sig, len(results), n)
		}
	}
	return results, nil
}

// interrupted is the error for a series of n runs stopped by sig after done.
func interrupted(sig os.Signal, done, n int) error {
	return exitError{128 + int(sig.(syscall.Signal)), fmt.Errorf("%s: stopped after %d of %d runs", signalName(sig), done, n)}
}

// A runResult is one run of the command.
type runResult struct {
	start  time.Time
	usage  usage
	status syscall.WaitStatus
	counts counts // when counting
	// minorFaults are the page faults served without I/O (ru_minflt).
	minorFaults int64
	// syscalls are the run's system calls, or nil and why not.
	syscalls            *result.Syscalls
	syscallsUnavailable string
}

// exitStatus is the run's status as a shell reports it: the exit code, or
// 128+N when the command was killed by signal N.
func (r runResult) exitStatus() int {
	if r.status.Signaled() {
		return 128 + int(r.status.Signal())
	}
	return r.status.ExitStatus()
}

// note is GNU time's line about a failed run, or "".
func (r runResult) note() string {
	switch {
	case r.status.Signaled():
		return fmt.Sprintf("Command terminated by signal %d (%s)", int(r.status.Signal()), signalName(r.status.Signal()))
	case r.status.ExitStatus() != 0:
		return fmt.Sprintf("Command exited with non-zero status %d", r.status.ExitStatus())
	}
	return ""
}

func usages(results []runResult) []usage {
	us := make([]usage, len(results))
	for i, r := range results {
		us[i] = r.usage
	}
	return us
}

// runOnce runs argv once and waits for it, counting its events with c,
// forwarding every signal that arrives on signals to it. It returns the
// last signal forwarded, if any.
func runOnce(argv []string, c *counter, stdin io.Reader, stdout, stderr io.Writer, signals <-chan os.Signal) (runResult, os.Signal, error) {
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(argv[0], argv[1:]...)
		if errors.Is(cmd.Err, exec.ErrDot) {
			cmd.Err = nil // run what a relative $PATH entry finds, as a shell does
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		return cmd
	}

	type waited struct {
		end                 time.Time
		err                 error
		syscalls            *result.Syscalls
		syscallsUnavailable string
	}
	done := make(chan waited, 1)
	start := time.Now()
	cmd, group, unavailable, err := c.start(newCmd(), newCmd)
	if err != nil {
		return runResult{}, nil, startError(argv[0], err)
	}
	go func() {
		// The system calls are read from the exited command before it
		// is reaped (syscalls.go).
		syscalls, why := (*result.Syscalls)(nil), ""
		err := waitExited(cmd.Process.Pid)
		if err == nil {
			syscalls, err = result.ReadSyscalls(cmd.Process.Pid)
		}
		if err != nil {
			why = err.Error()
		}
		err = cmd.Wait()
		done <- waited{time.Now(), err, syscalls, why}
	}()

	var forwarded os.Signal
	for {
		select {
		case sig := <-signals:
			forwarded = sig
			cmd.Process.Signal(sig) // fails only when the command has just exited
		case w := <-done:
			var exit *exec.ExitError
			if w.err != nil && !errors.As(w.err, &exit) {
				return runResult{}, forwarded, fmt.Errorf("%s: %w", argv[0], w.err)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			cs := counts{unavailable: unavailable}
			if group != nil {
				cs = group.read()
			}
			return runResult{
				start: start,
				usage: usage{
					user:   time.Duration(ru.Utime.Nano()),
					sys:    time.Duration(ru.Stime.Nano()),
					real:   w.end.Sub(start),
					maxRSS: ru.Maxrss,
				},
				minorFaults:         ru.Minflt,
				status:              cmd.ProcessState.Sys().(syscall.WaitStatus),
				counts:              cs,
				syscalls:            w.syscalls,
				syscallsUnavailable: w.syscallsUnavailable,
			}, forwarded, nil
		}
	}
}

// startError explains why the command name could not start, with the
// status a shell would give: 127 when it is not found, 126 when it cannot
// be executed.
func startError(name string, err error) error {
	reason := err
	var execErr *exec.Error
	var pathErr *fs.PathError
	if errors.As(err, &execErr) {
		reason = execErr.Err
	} else if errors.As(err, &pathErr) {
		reason = pathErr.Err
	}
	status := 126
	switch {
	case errors.Is(err, exec.ErrNotFound):
		// $PATH holds no executable name; a shell says "permission denied"
		// when it holds a file name that is not executable.
		if path := findInPath(name); path != "" {
			return exitError{126, fmt.Errorf("cannot run %s: %s: %w", name, path, fs.ErrPermission)}
		}
		status = 127
	case errors.Is(err, fs.ErrNotExist):
		status = 127
	}
	return exitError{status, fmt.Errorf("cannot run %s: %w", name, reason)}
}

// findInPath returns the first regular file called name in a $PATH
// directory, or "".
func findInPath(name string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		path := filepath.Join(dir, name)
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			return path
		}
	}
	return ""
}

// An exitError makes xtime exit with status. Its err, when not nil, is
// printed first; nil means the reason is already on standard error.
type exitError struct {
	status int
	err    error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.status)
	}
	return e.err.Error()
}

func (e exitError) Unwrap() error { return e.err }

// exitStatus prints err, as one or more "xtime: " lines on stderr, and
// returns the status xtime exits with: the first exitError's status, 0 for
// no error and 1 for any other.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		if ee, ok := e.(exitError); ok && ee.err == nil {
			continue
		}
		fmt.Fprintf(stderr, "xtime: %v\n", e)
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.status
	}
	return 1
}
