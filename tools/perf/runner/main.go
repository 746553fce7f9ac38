// Command runner runs one benchmark of the lab: perf_benchmark and
// go_benchmark (tools/perf/defs.bzl) make it the runnable target and the
// tests of each benchmark, with the spec their perf_spec wrote
// (tools/perf/private/spec.bzl, type Spec) as its argument.
//
// Usage:
//
//	runner run SPEC [ARGS...] [--profile DIR] [ARGS...]
//		(bazel run NAME [-- --profile DIR] [ARGS]) runs the program under
//		xtime, with the spec's arguments and then ARGS, in the directory
//		bazel run was typed in; with --profile, also writes a CPU and a heap
//		profile to DIR and prints the pprof commands that open them.
//	runner test SPEC
//		(bazel test NAME_test) runs the program under xtime the spec's
//		number of times, then once with a CPU profiler, once with a heap
//		profiler and once traced (as the spec asks), checks every output
//		against the spec's expect, converts the profiles to pprof's proto
//		format and renders pprof's views of them; everything lands in
//		$TEST_UNDECLARED_OUTPUTS_DIR, described last by result.json
//		(package havlak-lab/tools/result).
//	runner run|test SPEC of a server_benchmark (kind "server")
//		runs the server on free 127.0.0.1 ports and loads it over HTTP
//		(server.go): run shows a live run and its latency summary; test
//		measures rounds of load, fetches the profiles and a trace over
//		HTTP under load, stops the server and checks its clean exit.
//	runner gotest SPEC
//		(bazel test NAME_test of a go_benchmark) runs a go_test binary's
//		benchmarks with -test.benchmem and CPU and heap profiles, keeps
//		their lines in Go benchmark format (bench.txt) and pprof's views,
//		and writes result.json.
//
// The timed runs, bazel run's and the test's, are pinned to one CPU with
// taskset (the spec's pin_cpu: the last CPU the runner may use by default)
// and, with the spec's disable_aslr, run under setarch -R; result.json's
// environment.setup records it (pin.go).
//
// The spec's paths are relative to the working directory, the runfiles
// root, where pprof -list also looks for the program's sources. In the
// program's arguments {outputs} stands for the directory of the outputs:
// the test's undeclared outputs, or where bazel run was typed.
//
// Exit status: a failing run's own (128+N when signal N killed it); 1 when
// an output does not match the spec's expect or a profile cannot be read
// or rendered; 2 for a usage error.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

const usage = "usage: runner run|test|gotest SPEC [ARGS...]"

func main() {
	os.Exit(cli.Report(os.Stderr, "perf", run(os.Args[1:])))
}

func run(args []string) error {
	if len(args) < 2 {
		return cli.Usagef("%s", usage)
	}
	mode, specPath, args := args[0], args[1], args[2:]
	runfiles, err := os.Getwd()
	if err != nil {
		return err
	}
	spec, err := perfspec.Read(specPath)
	if err != nil {
		return err
	}
	b := &bench{Spec: spec, runfiles: runfiles}
	b.binary = b.path(spec.Binary)
	b.pprof = b.path(spec.PProf)
	if spec.XTime != "" {
		b.xtime = b.path(spec.XTime)
	}
	switch {
	case mode == "run" && spec.Benchmark.Kind == result.KindProgram:
		return b.runMode(args)
	case mode == "test" && spec.Benchmark.Kind == result.KindProgram && len(args) == 0:
		return b.testMode()
	case mode == "gotest" && spec.Benchmark.Kind == result.KindGoTest && len(args) == 0:
		return b.goTestMode()
	case mode == "run" && spec.Benchmark.Kind == result.KindServer:
		return b.serverRunMode(args)
	case mode == "test" && spec.Benchmark.Kind == result.KindServer && len(args) == 0:
		return b.serverTestMode()
	}
	return cli.Usagef("mode %q with %d arguments for a benchmark of kind %q\n%s", mode, len(args), spec.Benchmark.Kind, usage)
}

// A bench is a benchmark being run.
type bench struct {
	*perfspec.Spec
	runfiles             string
	binary, xtime, pprof string // absolute
	args                 []string
	out                  string // the directory of the outputs
	expectRE             *regexp.Regexp
}

func (b *bench) path(p string) string { return filepath.Join(b.runfiles, p) }

// withOutputs returns args with {outputs} replaced by dir.
func withOutputs(args []string, dir string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = strings.ReplaceAll(arg, "{outputs}", dir)
	}
	return out
}

// splitProfile takes --profile DIR or --profile=DIR out of args.
func splitProfile(args []string) (rest []string, dir string, err error) {
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--profile":
			if i+1 == len(args) {
				return nil, "", errors.New("--profile needs a directory")
			}
			dir = args[i+1]
			i++
		case strings.HasPrefix(arg, "--profile="):
			dir = strings.TrimPrefix(arg, "--profile=")
		default:
			rest = append(rest, arg)
		}
	}
	return rest, dir, nil
}

// runMode is `bazel run NAME`: the program under xtime, in the directory
// bazel run was typed in, and with --profile its profiles.
func (b *bench) runMode(userArgs []string) error {
	args, profileDir, err := splitProfile(append(append([]string{}, b.Args...), userArgs...))
	if err != nil {
		return err
	}
	wd, err := filepath.Abs(cli.UserPath("."))
	if err != nil {
		return err
	}
	b.args = withOutputs(args, wd)
	// xtime runs the program by name, so that its report shows the command
	// line a user would type: "havlak6 -iterations=3", not the runfiles path.
	cmd := exec.Command(b.xtime, append([]string{filepath.Base(b.binary)}, b.args...)...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(b.binary)+string(filepath.ListSeparator)+os.Getenv("PATH"))
	cmd.Dir = wd
	var figures string
	if b.Profiler == "go" {
		tmp, err := os.MkdirTemp("", "runtime-metrics")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		figures = filepath.Join(tmp, runtimeMetricsFile)
		cmd.Env = append(cmd.Env, runtimemetrics.EnvVar+"="+figures)
	}
	b.isolate(cmd)
	if err := execute(cmd, os.Stdin, os.Stdout); err != nil {
		return err
	}
	if figures != "" {
		if runs, err := runtimemetrics.ReadFile(figures); err == nil && len(runs) == 1 {
			f := runs[0]
			fmt.Fprintf(os.Stderr, "%d bytes allocated in %d objects, %d GC cycles, %d bytes of heap mapped\n",
				f.AllocBytes, f.AllocObjects, f.GCCycles, f.HeapMappedBytes)
		}
	}
	if profileDir == "" {
		return nil
	}
	dir := profileDir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	b.out = filepath.Clean(dir)
	fmt.Fprintf(os.Stderr, "perf: profiling %s into %s\n", b.Benchmark.Name, b.out)
	if b.Wants("cpu") {
		if err := b.profileCPU(wd, io.Discard); err != nil {
			return err
		}
	}
	if b.Wants("heap") {
		if err := b.profileHeap(wd, io.Discard); err != nil {
			return err
		}
	}
	fmt.Fprintln(os.Stderr, "perf: open the profiles with google/pprof, e.g.")
	if b.Wants("cpu") {
		fmt.Fprintf(os.Stderr, "  tools/bazel run //tools:pprof -- -top %s/cpu.pb.gz\n", b.out)
		fmt.Fprintf(os.Stderr, "  tools/bazel run //tools:pprof -- -http=localhost:8080 %s/cpu.pb.gz\n", b.out)
	}
	if b.Wants("heap") {
		fmt.Fprintf(os.Stderr, "  tools/bazel run //tools:pprof -- -top -sample_index=alloc_space %s/heap.pb.gz\n", b.out)
	}
	return nil
}

// testOutputs is the test's undeclared outputs directory.
func testOutputs() (string, error) {
	out := os.Getenv("TEST_UNDECLARED_OUTPUTS_DIR")
	if out == "" {
		return "", errors.New("TEST_UNDECLARED_OUTPUTS_DIR: not run by bazel test")
	}
	return out, nil
}

// environment is the environment of a measurement starting now.
func (b *bench) environment() (result.Environment, error) {
	status, err := result.ParseStatus(b.path(b.Status))
	if err != nil {
		return result.Environment{}, fmt.Errorf("the build's status: %w", err)
	}
	return result.Capture(status, b.Build), nil
}

// testMode is `bazel test NAME_test`: timed runs, profiled runs, checks,
// views and result.json.
func (b *bench) testMode() error {
	var err error
	if b.out, err = testOutputs(); err != nil {
		return err
	}
	if b.Expect != "" {
		if b.expectRE, err = regexp.Compile(b.Expect); err != nil {
			return fmt.Errorf("expect: %w", err)
		}
	}
	env, err := b.environment()
	if err != nil {
		return err
	}
	b.args = withOutputs(b.Args, b.out)
	name, reps := b.Benchmark.Name, b.Benchmark.Repetitions

	// The timed runs have no profiler attached.
	fmt.Fprintf(os.Stderr, "perf: %s: %d timed run(s)\n", name, reps)
	xtimeJSON := filepath.Join(b.out, "xtime.json")
	benchTxt := filepath.Join(b.out, "bench.txt")
	cmd := exec.Command(b.xtime, append([]string{
		"-n", fmt.Sprint(reps), "-json", xtimeJSON, "-bench", name, "-benchout", benchTxt,
		filepath.Base(b.binary)}, b.args...)...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(b.binary)+string(filepath.ListSeparator)+os.Getenv("PATH"))
	if b.Profiler == "go" {
		cmd.Env = append(cmd.Env, runtimemetrics.EnvVar+"="+b.outPath(runtimeMetricsFile))
	}
	env.Setup = b.isolate(cmd) // pinned, and ASLR off if asked (pin.go)
	if err := b.runTo(cmd, "output.txt"); err != nil {
		return err
	}
	lines, err := os.ReadFile(benchTxt)
	if err != nil {
		return err
	}
	os.Stdout.Write(lines)

	// What one run prints that expect matches: every run must print the
	// same, and at least one line of it.
	perRun := 1
	if b.Wants("cpu") {
		fmt.Fprintf(os.Stderr, "perf: %s: a CPU-profiled run\n", name)
		if err := b.profileCPU(b.runfiles, nil); err != nil {
			return err
		}
		if perRun = b.matches("cpu.output.txt"); perRun == 0 {
			if err := b.checkOutput("cpu.output.txt", 1); err != nil {
				return err
			}
		}
	} else if b.expectRE != nil {
		if perRun = b.matches("output.txt") / reps; perRun == 0 {
			if err := b.checkOutput("output.txt", reps); err != nil {
				return err
			}
		}
	}
	if err := b.checkOutput("output.txt", perRun*reps); err != nil {
		return err
	}
	if b.Wants("heap") {
		fmt.Fprintf(os.Stderr, "perf: %s: a heap-profiled run\n", name)
		if err := b.profileHeap(b.runfiles, nil); err != nil {
			return err
		}
		// A -memprofile run of a Havlak stage stops after one pass, so it
		// prints fewer lines.
		if b.matches("heap.output.txt") == 0 {
			if err := b.checkOutput("heap.output.txt", 1); err != nil {
				return err
			}
		}
	}
	if b.Trace {
		fmt.Fprintf(os.Stderr, "perf: %s: a traced run\n", name)
		cmd := exec.Command(b.binary, append([]string{"-trace", filepath.Join(b.out, "trace.out")}, b.args...)...)
		if err := b.runTo(cmd, "trace.output.txt"); err != nil {
			return err
		}
		if err := b.checkOutput("trace.output.txt", perRun); err != nil {
			return err
		}
	}
	if err := b.render(); err != nil {
		return err
	}

	// The low-noise figures.
	var metrics []result.Metric
	if b.Profiler == "go" {
		metrics = append(metrics, b.goRuntimeMetrics(reps)...)
	} else if b.Wants("heap") && b.Heap == perfspec.HeapGperftools {
		metrics = append(metrics, b.tcmallocMetrics()...)
	}
	if b.Counted != nil {
		counted, err := b.countedRuns()
		if err != nil {
			return err
		}
		metrics = append(counted, metrics...)
	}
	printMetrics(metrics)

	rec, err := result.ReadXTime(xtimeJSON)
	if err != nil {
		return err
	}
	return b.writeResult(env, &rec.Timing, "", metrics)
}

// printMetrics prints the low-noise figures, a line each: median and the
// spread of the runs.
func printMetrics(metrics []result.Metric) {
	for _, m := range metrics {
		if m.Unavailable != "" {
			fmt.Fprintf(os.Stderr, "perf: %s: unavailable: %s\n", m.Name, m.Unavailable)
			continue
		}
		lo, median, hi := result.MinMedianMax(m.Values)
		fmt.Fprintf(os.Stderr, "perf: %s %.0f %s (%d runs, %.0f–%.0f, spread %.3f%%)\n",
			m.Name, median, m.Unit, len(m.Values), lo, hi, 100*result.Spread(m.Values))
	}
}

// goTestMode runs a go_test binary's benchmarks.
func (b *bench) goTestMode() error {
	var err error
	if b.out, err = testOutputs(); err != nil {
		return err
	}
	env, err := b.environment()
	if err != nil {
		return err
	}
	g := b.GoTest
	args := []string{
		"-test.run=^$",
		"-test.bench=" + g.Bench,
		"-test.benchmem",
		fmt.Sprintf("-test.count=%d", g.Count),
		"-test.cpuprofile=" + filepath.Join(b.out, "cpu.pprof"),
		"-test.memprofile=" + filepath.Join(b.out, "heap.pprof"),
	}
	if g.Benchtime != "" {
		args = append(args, "-test.benchtime="+g.Benchtime)
	}
	f, err := os.Create(filepath.Join(b.out, "bench.txt"))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := execute(exec.Command(b.binary, args...), nil, io.MultiWriter(os.Stdout, f)); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if b.matchesRE("bench.txt", regexp.MustCompile(`^Benchmark`)) == 0 {
		fmt.Fprintf(os.Stderr, "go_bench: no benchmark matched -test.bench=%s\n", g.Bench)
		return cli.ExitError{Status: 1}
	}
	for _, view := range []struct{ file, profile string }{
		{"cpu.top.txt", "cpu.pprof"},
		{"cpu.top-cum.txt", "cpu.pprof"},
		{"heap.alloc_space.txt", "heap.pprof"},
		{"heap.alloc_objects.txt", "heap.pprof"},
	} {
		if err := b.view(view.file, view.profile); err != nil {
			return err
		}
	}
	return b.writeResult(env, nil, "bench.txt", nil)
}

// runTo runs cmd with its standard output in the outputs' file name.
func (b *bench) runTo(cmd *exec.Cmd, name string) error {
	f, err := os.Create(filepath.Join(b.out, name))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := execute(cmd, nil, f); err != nil {
		return err
	}
	return f.Close()
}

// execute runs cmd with stdin and stdout, its standard error on ours. A
// run that fails ends the runner with the run's status, as a shell gives
// it: the exit code, or 128+N for signal N.
func execute(cmd *exec.Cmd, stdin io.Reader, stdout io.Writer) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return cli.ExitError{Status: 128 + int(ws.Signal())}
		}
		return cli.ExitError{Status: exit.ExitCode()}
	}
	return err
}

// matches is how many lines of the outputs' file name match expect.
func (b *bench) matches(name string) int { return b.matchesRE(name, b.expectRE) }

func (b *bench) matchesRE(name string, re *regexp.Regexp) int {
	data, _ := os.ReadFile(filepath.Join(b.out, name))
	return countMatches(data, re)
}

// countMatches counts the lines of data that re matches (every line when
// re is nil), as grep -c does.
func countMatches(data []byte, re *regexp.Regexp) int {
	n := 0
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(nil, 1<<30)
	for s.Scan() {
		if re == nil || re.Match(s.Bytes()) {
			n++
		}
	}
	return n
}

// checkOutput fails unless want lines of the outputs' file name match
// expect; without expect, it checks nothing.
func (b *bench) checkOutput(name string, want int) error {
	if b.expectRE == nil {
		return nil
	}
	if got := b.matches(name); got != want {
		fmt.Fprintf(os.Stderr, "perf: %d lines of %s match '%s', not %d:\n", got, name, b.Expect, want)
		data, _ := os.ReadFile(filepath.Join(b.out, name))
		os.Stderr.Write(data)
		return cli.ExitError{Status: 1}
	}
	return nil
}
