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
	"os"
	"path/filepath"

	"havlak-lab/tools/xtime/measure"
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
	return measure.Run(opts, stdin, stdout, stderr)
}

// parseArgs parses and checks xtime's command line. For -help it returns
// flag.ErrHelp, which run takes for success; for a usage error, which it
// has reported on stderr, a measure.ExitError of status 2.
func parseArgs(args []string, stderr io.Writer) (measure.Options, error) {
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
	counterList := flags.String("counters", measure.DefaultCounters, "count the perf events of `list` in every run (\"\": none)")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return measure.Options{}, err
		}
		return measure.Options{}, measure.ExitError{Status: 2} // the flag package has printed why
	}
	usagef := func(format string, args ...any) (measure.Options, error) {
		fmt.Fprintf(stderr, "xtime: %s\n%s\n", fmt.Sprintf(format, args...), usageLine)
		return measure.Options{}, measure.ExitError{Status: 2}
	}

	opts := measure.Options{Argv: flags.Args(), Runs: *n, JSONPath: *jsonPath, BenchOut: *benchOut}
	if len(opts.Argv) == 0 {
		return usagef("no command given")
	}
	if *n < 1 {
		return usagef("-n %d: want at least 1 run", *n)
	}
	if *bench != "" {
		var err error
		if opts.BenchName, err = measure.BenchmarkName(*bench); err != nil {
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
	if opts.Events, err = measure.ParseCounters(*counterList); err != nil {
		return usagef("-counters %q: %v", *counterList, err)
	}
	return opts, nil
}

// exitStatus prints err, as one or more "xtime: " lines on stderr, and
// returns the status xtime exits with: the first measure.ExitError's status, 0 for
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
		if ee, ok := e.(measure.ExitError); ok && ee.Err == nil {
			continue
		}
		fmt.Fprintf(stderr, "xtime: %v\n", e)
	}
	var ee measure.ExitError
	if errors.As(err, &ee) {
		return ee.Status
	}
	return 1
}
