// Package measure is xtime's work: it runs a command N times, each run
// timed by the kernel's resource usage of the waited child, its perf events
// counted and its system calls read, and reports the runs as GNU time does,
// as Go benchmark lines and as the lab's result.XTimeRecord. The command
// xtime (its package doc is the manual) parses the flags into Options and
// calls Run.
package measure

import (
	"errors"
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

// Options are xtime's command line, checked.
type Options struct {
	Argv      []string // the command and its arguments
	Runs      int      // -n
	JSONPath  string   // -json, or ""
	BenchName string   // -bench's NAME as a Go benchmark name (BenchmarkName), or ""
	BenchOut  string   // -benchout, or ""
	Events    []Event  // -counters (ParseCounters)
}

// Run runs the command of opts as many times as it says, reporting on
// stderr and into the output files. Its error carries the status xtime
// exits with (an ExitError), or is a failure to write an output file.
func Run(opts Options, stdin io.Reader, stdout, stderr io.Writer) error {

	// Open the output files before the first run, so that a bad path costs
	// no run.
	var jsonFile, benchFile *atomicfile.File
	if opts.JSONPath != "" {
		var err error
		if jsonFile, err = createOutput(opts.JSONPath); err != nil {
			return ExitError{2, fmt.Errorf("-json: %w", err)}
		}
		defer jsonFile.Abort()
	}
	if opts.BenchOut != "" {
		var err error
		if benchFile, err = createOutput(opts.BenchOut); err != nil {
			return ExitError{2, fmt.Errorf("-benchout: %w", err)}
		}
		defer benchFile.Abort()
	}
	var machine result.Machine
	if jsonFile != nil || benchFile != nil {
		machine = result.CaptureMachine()
	}

	argv := opts.Argv
	results, failed := runAll(argv, opts.Runs, newCounter(opts.Events), stdin, stdout, stderr)

	summarized := failed == nil && len(results) > 1
	if summarized {
		s := summarize(usages(results))
		fmt.Fprintln(stderr, "min: "+classicLine(s.min, argv))
		fmt.Fprintln(stderr, "median: "+classicLine(s.median, argv))
		fmt.Fprintln(stderr, "max: "+classicLine(s.max, argv))
	}
	errs := []error{failed}
	if opts.BenchName != "" {
		var lines strings.Builder
		for _, r := range results {
			if r.exitStatus() == 0 {
				fmt.Fprintln(&lines, benchLine(opts.BenchName, r.usage))
			}
		}
		if benchFile == nil {
			io.WriteString(stderr, lines.String())
		} else if err := commit(benchFile, benchHeader(machine)+lines.String()); err != nil {
			errs = append(errs, fmt.Errorf("-benchout: %w", err))
		}
	}
	if jsonFile != nil {
		data, err := jsonReport(argv, machine, opts.Events, results, summarized)
		if err == nil {
			err = commit(jsonFile, string(data))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("-json: %w", err))
		}
	}
	return errors.Join(errs...)
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
			return results, ExitError{Status: status} // reported by the note
		}
		if sig != nil && len(results) < n {
			return results, interrupted(sig, len(results), n)
		}
	}
	return results, nil
}

// interrupted is the error for a series of n runs stopped by sig after done.
func interrupted(sig os.Signal, done, n int) error {
	return ExitError{128 + int(sig.(syscall.Signal)), fmt.Errorf("%s: stopped after %d of %d runs", signalName(sig), done, n)}
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
			return ExitError{126, fmt.Errorf("cannot run %s: %s: %w", name, path, fs.ErrPermission)}
		}
		status = 127
	case errors.Is(err, fs.ErrNotExist):
		status = 127
	}
	return ExitError{status, fmt.Errorf("cannot run %s: %w", name, reason)}
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

// An ExitError makes xtime exit with Status. Its Err, when not nil, is
// printed first; nil means the reason is already on standard error.
type ExitError struct {
	Status int
	Err    error
}

func (e ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Status)
	}
	return e.Err.Error()
}

func (e ExitError) Unwrap() error { return e.Err }
