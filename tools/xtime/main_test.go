package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"havlak-lab/tools/result"
	"havlak-lab/tools/xtime/measure"
)

// The tests time this test binary itself, run as a helper process: with
// helperEnv set, TestMain runs the helper behaviour its arguments name
// instead of the tests. The test process sets helperEnv for all its
// children, so it works the same under go test and under Bazel.
const helperEnv = "XTIME_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helper(os.Args[1:]))
	}
	os.Setenv(helperEnv, "1")
	os.Exit(m.Run())
}

// helperArgs are the helper's arguments; a missing or malformed one ends
// it with status 100.
type helperArgs []string

func (args helperArgs) arg(i int) string {
	if i >= len(args) {
		fmt.Fprintf(os.Stderr, "helper %q: missing argument %d\n", []string(args), i)
		os.Exit(100)
	}
	return args[i]
}

func (args helperArgs) duration(i int) time.Duration {
	d, err := time.ParseDuration(args.arg(i))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		os.Exit(100)
	}
	return d
}

func (args helperArgs) number(i int) int {
	n, err := strconv.Atoi(args.arg(i))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		os.Exit(100)
	}
	return n
}

// helper behaves as args say and returns its exit status.
func helper(all []string) int {
	args := helperArgs(all)
	arg, duration, number := args.arg, args.duration, args.number
	switch arg(0) {
	case "sleep": // sleep DURATION
		time.Sleep(duration(1))
	case "spin": // spin DURATION: burn DURATION of user CPU time
		for i := 0; ; i++ {
			if i%(1<<20) == 0 {
				var ru syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
				if time.Duration(ru.Utime.Nano()) >= duration(1) {
					break
				}
			}
		}
	case "alloc": // alloc MIB: map MIB MiB of memory, every page resident
		// The kernel faults the pages in (MAP_POPULATE), so no Go code touches
		// them and -race's shadow memory stays out of the measurement.
		b, err := syscall.Mmap(-1, 0, number(1)<<20, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_POPULATE)
		if err != nil {
			fmt.Fprintf(os.Stderr, "helper: mmap: %v\n", err)
			return 100
		}
		syscall.Munmap(b)
	case "touch-pages": // touch-pages N: write to N new pages, from user space
		touchPages(number(1))
	case "touch-pages-thread": // touch-pages-thread N: the same, in another thread
		runtime.LockOSThread() // keep this goroutine off the other's thread
		done := make(chan bool)
		go func() {
			runtime.LockOSThread() // a thread of its own
			touchPages(number(1))
			done <- true
		}()
		<-done
	case "spawn": // spawn ARGS...: run the helper with ARGS as a child, wait
		cmd := exec.Command(os.Args[0], args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "helper: %v\n", err)
			return 100
		}
	case "write": // write N: N write(2) calls of a byte each to stdout
		for range number(1) {
			if _, err := syscall.Write(1, []byte{'.'}); err != nil {
				return 100
			}
		}
	case "exit": // exit STATUS
		return number(1)
	case "kill": // kill SIGNAL: kill itself with signal number SIGNAL
		syscall.Kill(os.Getpid(), syscall.Signal(number(1)))
		time.Sleep(time.Minute)
		return 101
	case "cat": // cat: copy stdin to stdout
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			fmt.Fprintf(os.Stderr, "helper: %v\n", err)
			return 100
		}
	case "touch": // touch FILE: create FILE
		if err := os.WriteFile(arg(1), nil, 0o666); err != nil {
			fmt.Fprintf(os.Stderr, "helper: %v\n", err)
			return 100
		}
	case "fail-again": // fail-again FILE: exit 0 the first time, then 7
		if _, err := os.Stat(arg(1)); err == nil {
			return 7
		}
		os.WriteFile(arg(1), nil, 0o666)
	case "wait-int": // wait-int STATUS: say "ready", wait for SIGINT, exit STATUS
		got := make(chan os.Signal, 1)
		signal.Notify(got, os.Interrupt)
		fmt.Println("ready")
		select {
		case <-got:
			fmt.Println("got SIGINT")
			return number(1)
		case <-time.After(time.Minute):
			return 4
		}
	case "wait": // wait: say "ready", then sleep with default signal handling
		fmt.Println("ready")
		time.Sleep(time.Minute)
		return 4
	case "xtime": // xtime ARGS...: be xtime
		os.Args = append([]string{"xtime"}, args[1:]...)
		main()
	default:
		fmt.Fprintf(os.Stderr, "helper: unknown behaviour %q\n", args[0])
		return 100
	}
	return 0
}

// touchPages maps n pages of fresh memory and writes a byte to each: n
// page faults in user space. Transparent huge pages are turned off for the
// mapping, or one fault could map 512 pages.
func touchPages(n int) {
	size := os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, n*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: mmap: %v\n", err)
		os.Exit(100)
	}
	syscall.Madvise(b, syscall.MADV_NOHUGEPAGE)
	for i := 0; i < n; i++ {
		b[i*size] = 1
	}
	syscall.Munmap(b)
}

// testBinary returns the absolute path of the running test binary.
func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// xtime runs xtime in-process with args and stdin, and returns its exit
// status and what it wrote to stdout and stderr.
func xtime(t *testing.T, stdin string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = exitStatus(run(args, strings.NewReader(stdin), &out, &errOut), &errOut)
	t.Logf("xtime %q: status %d\nstdout:\n%s\nstderr:\n%s", args, status, out.String(), errOut.String())
	return status, out.String(), errOut.String()
}

// A line is a line of xtime's GNU time format, parsed back.
type line struct {
	prefix          string // "min: " and the like, or ""
	user, sys, real time.Duration
	maxRSS          int64
	command         string
}

var lineRE = regexp.MustCompile(`^((?:min|median|max): )?(\d+\.\d\d)u (\d+\.\d\d)s (\d+\.\d\d)r (\d+)kB (.*)$`)

// parseLines parses every line of stderr in xtime's format.
func parseLines(t *testing.T, stderr string) []line {
	t.Helper()
	var lines []line
	for _, text := range strings.Split(stderr, "\n") {
		m := lineRE.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		var l line
		l.prefix = m[1]
		for i, d := range []*time.Duration{&l.user, &l.sys, &l.real} {
			var err error
			if *d, err = time.ParseDuration(m[i+2] + "s"); err != nil {
				t.Fatalf("line %q: %v", text, err)
			}
		}
		l.maxRSS, _ = strconv.ParseInt(m[5], 10, 64)
		l.command = m[6]
		lines = append(lines, l)
	}
	return lines
}

// oneLine parses the only line of stderr in xtime's format.
func oneLine(t *testing.T, stderr string) line {
	t.Helper()
	lines := parseLines(t, stderr)
	if len(lines) != 1 {
		t.Fatalf("got %d lines in xtime's format, want 1:\n%s", len(lines), stderr)
	}
	return lines[0]
}

func TestSleep(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	status, _, stderr := xtime(t, "", bin, "sleep", "200ms")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	// The upper bound catches a wrong unit and leaves room for a loaded
	// machine and -race's slow start (a second).
	l := oneLine(t, stderr)
	if l.real < 200*time.Millisecond || l.real > 10*time.Second {
		t.Errorf("real %v for a 200ms sleep, want between 200ms and 10s", l.real)
	}
	if want := bin + " sleep 200ms"; l.command != want {
		t.Errorf("command %q, want %q", l.command, want)
	}
}

func TestUserTime(t *testing.T) {
	t.Parallel()
	status, _, stderr := xtime(t, "", testBinary(t), "spin", "100ms")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	if l := oneLine(t, stderr); l.user < 100*time.Millisecond {
		t.Errorf("user %v, want at least the 100ms the command spun", l.user)
	}
}

func TestMaxRSS(t *testing.T) {
	t.Parallel()
	status, _, stderr := xtime(t, "", testBinary(t), "alloc", "64")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	// Above the 64 MiB touched: the Go runtime, the test binary and, from
	// before the exec, the test process itself.
	l := oneLine(t, stderr)
	if min, max := int64(64<<10), int64((64+60)<<10); l.maxRSS < min || l.maxRSS > max {
		t.Errorf("max RSS %d KiB for 64 MiB touched, want between %d and %d", l.maxRSS, min, max)
	}
}

// The pages a run touches for the first time are its minor faults, in
// the JSON report: 5,000 pages written are at least 5,000 faults.
func TestMinorFaults(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	if status, _, _ := xtime(t, "", "-json", path, testBinary(t), "touch-pages", "5000"); status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	r := readReport(t, path)
	if len(r.Runs) != 1 || r.Runs[0].MinorFaults == nil || *r.Runs[0].MinorFaults < 5000 {
		t.Errorf("runs %+v: want one run of at least 5000 minor faults", r.Runs)
	}
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	status, _, stderr := xtime(t, "", testBinary(t), "exit", "5")
	if status != 5 {
		t.Errorf("status %d, want the command's 5", status)
	}
	if !strings.HasPrefix(stderr, "Command exited with non-zero status 5\n") {
		t.Errorf("stderr does not start with GNU time's note:\n%s", stderr)
	}
	oneLine(t, stderr)
}

func TestKilled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		signal syscall.Signal
		name   string
	}{
		{syscall.SIGKILL, "SIGKILL"},
		{syscall.SIGTERM, "SIGTERM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, _, stderr := xtime(t, "", testBinary(t), "kill", strconv.Itoa(int(tc.signal)))
			if want := 128 + int(tc.signal); status != want {
				t.Errorf("status %d, want 128+%d = %d", status, tc.signal, want)
			}
			note := fmt.Sprintf("Command terminated by signal %d (%s)\n", tc.signal, tc.name)
			if !strings.HasPrefix(stderr, note) {
				t.Errorf("stderr does not start with %q:\n%s", note, stderr)
			}
			oneLine(t, stderr)
		})
	}
}

func TestStdinPassThrough(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	status, stdout, stderr := xtime(t, "hello\nworld\n", bin, "cat")
	if status != 0 || stdout != "hello\nworld\n" {
		t.Errorf("status %d, stdout %q; want 0 and stdin", status, stdout)
	}
	oneLine(t, stderr)

	// Only the first of several runs can read stdin.
	status, stdout, _ = xtime(t, "hello\n", "-n", "2", bin, "cat")
	if status != 0 || stdout != "hello\n" {
		t.Errorf("-n 2: status %d, stdout %q; want 0 and stdin once", status, stdout)
	}
}

func TestRepeat(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	status, _, stderr := xtime(t, "", "-n", "3", bin, "sleep", "20ms")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	lines := parseLines(t, stderr)
	var prefixes []string
	for _, l := range lines {
		prefixes = append(prefixes, l.prefix)
		if want := bin + " sleep 20ms"; l.command != want {
			t.Errorf("command %q, want %q", l.command, want)
		}
		if l.real < 20*time.Millisecond {
			t.Errorf("%sreal %v, want at least 20ms", l.prefix, l.real)
		}
	}
	if got, want := strings.Join(prefixes, "|"), "|||min: |median: |max: "; got != want {
		t.Fatalf("line prefixes %q, want %q", got, want)
	}
	runs, min, median, max := lines[:3], lines[3], lines[4], lines[5]
	column := func(l line) []int64 {
		return []int64{int64(l.user), int64(l.sys), int64(l.real), l.maxRSS}
	}
	for i, name := range []string{"user", "sys", "real", "max RSS"} {
		var values []int64
		for _, r := range runs {
			values = append(values, column(r)[i])
		}
		sorted := slices.Sorted(slices.Values(values)) // three runs: the median is the middle one
		if got, want := []int64{column(min)[i], column(median)[i], column(max)[i]}, sorted; !slices.Equal(got, want) {
			t.Errorf("%s: min, median, max %v, want %v from the runs' %v", name, got, want, values)
		}
	}
}

func TestStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	status, _, stderr := xtime(t, "", "-n", "5", "-json", report, testBinary(t), "fail-again", filepath.Join(dir, "ran"))
	if status != 7 {
		t.Errorf("status %d, want the second run's 7", status)
	}
	if lines := parseLines(t, stderr); len(lines) != 2 {
		t.Errorf("got %d lines, want one for each of the 2 runs and no summary", len(lines))
	}
	// The report holds the runs so far.
	r := readReport(t, report)
	if len(r.Runs) != 2 || r.Runs[0].ExitStatus != 0 || r.Runs[1].ExitStatus != 7 || r.Summary != nil {
		t.Errorf("report: runs %+v, summary %+v; want 2 runs, exiting 0 and 7, and no summary", r.Runs, r.Summary)
	}
}

func readReport(t *testing.T, path string) *result.XTimeRecord {
	t.Helper()
	r, err := result.ReadXTime(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The report's fields are read back through the same types; this checks the
// names in the document itself.
func TestJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "dir", "report.json")
	bin := testBinary(t)
	before := time.Now()
	status, _, stderr := xtime(t, "", "-n", "2", "-json", path, bin, "sleep", "50ms")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	lines := parseLines(t, stderr)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"command", "args", "machine", "runs", "summary"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("no %q in the report:\n%s", key, data)
		}
	}
	for _, key := range []string{"hostname", "os", "arch", "kernel", "cpu_model", "cores", "memory_bytes"} {
		if _, ok := doc["machine"].(map[string]any)[key]; !ok {
			t.Errorf("no machine %q in the report:\n%s", key, data)
		}
	}
	for _, key := range []string{"start", "exit_status", "signal", "user_seconds", "sys_seconds", "real_seconds", "max_rss_kib"} {
		if _, ok := doc["runs"].([]any)[0].(map[string]any)[key]; !ok {
			t.Errorf("no run %q in the report:\n%s", key, data)
		}
	}

	r := readReport(t, path)
	if r.Command != bin || strings.Join(r.Args, " ") != "sleep 50ms" {
		t.Errorf("command %q, args %q; want %q, [sleep 50ms]", r.Command, r.Args, bin)
	}
	if m := r.Machine; m != result.CaptureMachine() || m.Kernel == "" {
		t.Errorf("machine %+v: want this machine, with a kernel release", m)
	}
	if len(r.Runs) != 2 {
		t.Fatalf("got %d runs, want 2", len(r.Runs))
	}
	for i, run := range r.Runs {
		start, err := time.Parse(time.RFC3339Nano, run.Start)
		if err != nil || start.Before(before.Truncate(time.Second)) || start.After(time.Now()) {
			t.Errorf("run %d: start %q (%v), want RFC 3339 during the test", i, run.Start, err)
		}
		if run.ExitStatus != 0 || run.Signal != "" {
			t.Errorf("run %d: exit status %d, signal %q; want 0, none", i, run.ExitStatus, run.Signal)
		}
		if run.RealSeconds < 0.05 || run.MaxRSSKiB != lines[i].maxRSS {
			t.Errorf("run %d: real %gs, max RSS %d KiB; want at least 0.05s and %d KiB as printed", i, run.RealSeconds, run.MaxRSSKiB, lines[i].maxRSS)
		}
	}
	s := r.Summary
	if s == nil {
		t.Fatal("no summary")
	}
	if s.Min.RealSeconds > s.Median.RealSeconds || s.Median.RealSeconds > s.Max.RealSeconds || s.Min.MaxRSSKiB > s.Max.MaxRSSKiB {
		t.Errorf("summary %+v: want min <= median <= max", s)
	}

	// Nothing but the report is left in its directory.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files next to the report, want only the report: %v", len(entries), entries)
	}
}

func TestKilledJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "report.json")
	status, _, _ := xtime(t, "", "-json", path, testBinary(t), "kill", "9")
	if status != 137 {
		t.Errorf("status %d, want 137", status)
	}
	r := readReport(t, path)
	if len(r.Runs) != 1 || r.Runs[0].ExitStatus != 137 || r.Runs[0].Signal != "SIGKILL" {
		t.Errorf("runs %+v, want one killed by SIGKILL", r.Runs)
	}
}

var benchRE = regexp.MustCompile(`^BenchmarkSleep 1 (\d+) ns/op (\d+) peak-RSS-bytes (\d+(?:\.\d+)?) user-sec/op (\d+(?:\.\d+)?) sys-sec/op$`)

func TestBench(t *testing.T) {
	t.Parallel()
	status, _, stderr := xtime(t, "", "-n", "2", "-bench", "sleep", testBinary(t), "sleep", "20ms")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	// The benchmark lines come last, one for each run.
	text := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	lines := parseLines(t, stderr)
	if len(text) != 7 || len(lines) != 5 {
		t.Fatalf("got %d lines, want 2 runs, 3 summary and 2 benchmark lines:\n%s", len(text), stderr)
	}
	for i, bench := range text[5:] {
		m := benchRE.FindStringSubmatch(bench)
		if m == nil {
			t.Fatalf("%q does not match %v", bench, benchRE)
		}
		ns, _ := strconv.ParseInt(m[1], 10, 64)
		rss, _ := strconv.ParseInt(m[2], 10, 64)
		if ns < 20e6 || rss != lines[i].maxRSS*1024 {
			t.Errorf("%q: want at least 20e6 ns/op and %d KiB in bytes", bench, lines[i].maxRSS)
		}
	}
}

func TestBenchOut(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sleep.bench")
	status, _, stderr := xtime(t, "", "-n", "3", "-bench", "sleep", "-benchout", path, testBinary(t), "sleep", "10ms")
	if status != 0 {
		t.Fatalf("status %d, want 0", status)
	}
	if strings.Contains(stderr, "Benchmark") {
		t.Errorf("benchmark lines on stderr with -benchout:\n%s", stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	header := fmt.Sprintf("goos: %s\ngoarch: %s\n", runtime.GOOS, runtime.GOARCH)
	if model := result.CaptureMachine().CPUModel; model != "" {
		header += "cpu: " + model + "\n"
	}
	if !strings.HasPrefix(string(data), header) || len(text) != strings.Count(header, "\n")+3 {
		t.Fatalf("%s holds\n%s\nwant header\n%s\nand 3 benchmark lines", path, data, header)
	}
	for _, bench := range text[len(text)-3:] {
		if !benchRE.MatchString(bench) {
			t.Errorf("%q does not match %v", bench, benchRE)
		}
	}
	// benchstat's own reader takes the file whole (measure's tests check
	// what it reads of each line).
	r, results := benchfmt.NewReader(bytes.NewReader(data), path), 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			results++
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	if r.Err() != nil || results != 3 {
		t.Errorf("benchfmt read %d results (%v), want 3", results, r.Err())
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"xtime-no-such-command", filepath.Join(t.TempDir(), "missing")} {
		status, _, stderr := xtime(t, "", command, "arg")
		if status != 127 {
			t.Errorf("%s: status %d, want 127", command, status)
		}
		if want := "xtime: cannot run " + command + ": "; !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: stderr %q, want one line starting %q", command, stderr, want)
		}
	}
}

func TestNotExecutable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, _, stderr := xtime(t, "", path)
	if want := "xtime: cannot run " + path + ": permission denied\n"; status != 126 || stderr != want {
		t.Errorf("status %d, stderr %q; want 126, %q", status, stderr, want)
	}

	// Found in $PATH, but not executable: a shell says 126 as well.
	t.Setenv("PATH", dir)
	status, _, stderr = xtime(t, "", "data")
	if want := "xtime: cannot run data: " + path + ": permission denied\n"; status != 126 || stderr != want {
		t.Errorf("in $PATH: status %d, stderr %q; want 126, %q", status, stderr, want)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{nil, "xtime: no command given\n"},
		{[]string{"-n", "3"}, "xtime: no command given\n"},
		{[]string{"-n", "0", bin}, "xtime: -n 0: want at least 1 run\n"},
		{[]string{"-n", "x", bin}, `invalid value "x" for flag -n`},
		{[]string{"-frobnicate", bin}, "flag provided but not defined: -frobnicate"},
		{[]string{"-bench", "a b", bin}, `xtime: -bench "a b": contains white space`},
		{[]string{"-bench", "1x", bin}, `xtime: -bench "1x": does not start with a letter`},
		{[]string{"-benchout", "x.bench", bin}, "xtime: -benchout x.bench: needs -bench\n"},
		{[]string{"-bench", "x", "-json", "f", "-benchout", "./f", bin}, "xtime: -json and -benchout both name f\n"},
	} {
		status, _, stderr := xtime(t, "", tc.args...)
		if status != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, usageLine) {
			t.Errorf("xtime %q: status %d, stderr\n%s\nwant 2, %q and the usage", tc.args, status, stderr, tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	if status, _, stderr := xtime(t, "", "-h"); status != 0 || !strings.Contains(stderr, usageLine) {
		t.Errorf("-h: status %d, stderr\n%s\nwant 0 and the usage", status, stderr)
	}
}

// An unusable output path is found before the command runs.
func TestUnwritableOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := testBinary(t)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-json", filepath.Join(notDir, "sub", "r.json")}, "xtime: -json: mkdir " + notDir + ": not a directory\n"},
		{[]string{"-json", dir}, "xtime: -json: " + dir + ": is a directory\n"},
		{[]string{"-bench", "x", "-benchout", filepath.Join(notDir, "x.bench")}, "xtime: -benchout: mkdir " + notDir + ": not a directory\n"},
	} {
		marker := filepath.Join(dir, "ran")
		args := append(tc.flags, bin, "touch", marker)
		status, _, stderr := xtime(t, "", args...)
		if status != 2 || stderr != tc.want {
			t.Errorf("xtime %q: status %d, stderr %q; want 2, %q", args, status, stderr, tc.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("xtime %q ran the command", args)
		}
	}
}

// TestSignals runs xtime as a process of its own, sends it a signal while
// the command runs and checks that the command got it and xtime did not
// die of it.
func TestSignals(t *testing.T) {
	t.Parallel()
	bin := testBinary(t)
	for _, tc := range []struct {
		name    string
		signal  syscall.Signal
		command []string
		status  int
		stdout  string // the command's output after "ready"
		stderr  string // what xtime says on stderr before the line, or after
	}{
		{"SIGINT", syscall.SIGINT, []string{"wait-int", "3"}, 3, "got SIGINT\n", "Command exited with non-zero status 3\n"},
		{"SIGINT handled", syscall.SIGINT, []string{"wait-int", "0"}, 128 + 2, "got SIGINT\n", "xtime: SIGINT: stopped after 1 of 2 runs\n"},
		{"SIGTERM", syscall.SIGTERM, []string{"wait"}, 128 + 15, "", "Command terminated by signal 15 (SIGTERM)\n"},
	} {
		// With page-faults:u the command is started traced and let go
		// before its first instruction (see measure/counters.go); it must not
		// notice. The default counters do the same on a machine with a PMU.
		for _, counters := range []string{measure.DefaultCounters, "page-faults:u"} {
			t.Run(tc.name+"/"+counters, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(bin, append([]string{"xtime", "-n", "2", "-counters", counters, bin}, tc.command...)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				out := bufio.NewReader(stdout)
				if ready, err := out.ReadString('\n'); ready != "ready\n" {
					t.Fatalf("command said %q, %v; want ready", ready, err)
				}
				if err := cmd.Process.Signal(tc.signal); err != nil {
					t.Fatal(err)
				}
				rest, _ := io.ReadAll(out)
				err = cmd.Wait()
				t.Logf("stderr:\n%s", stderr.String())
				if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
					t.Fatalf("xtime died of %v", ws.Signal())
				}
				if status := cmd.ProcessState.ExitCode(); status != tc.status {
					t.Errorf("status %d (%v), want %d", status, err, tc.status)
				}
				if string(rest) != tc.stdout {
					t.Errorf("command printed %q after ready, want %q", rest, tc.stdout)
				}
				// One run only: the signal stops the series.
				if !strings.Contains(stderr.String(), tc.stderr) || len(parseLines(t, stderr.String())) != 1 {
					t.Errorf("stderr does not hold %q and one line", tc.stderr)
				}
			})
		}
	}
}
