package perfrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// A program is a benchmark of kind program being run: the program under
// xtime, its profiled runs, its counted runs.
type program struct {
	*bench
	*perfspec.Program
	xtime string // absolute
	// lineCounts is the outputs' file of the counted runs' counts per
	// line, once kept (keepLineCounts), or "".
	lineCounts string
}

func (b *bench) program() *program {
	return &program{bench: b, Program: b.Spec.Program, xtime: b.path(b.Spec.Program.XTime)}
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
func (p *program) runMode(userArgs []string) error {
	args, profileDir, err := splitProfile(append(append([]string{}, p.Args...), userArgs...))
	if err != nil {
		return err
	}
	wd, err := filepath.Abs(cli.UserPath("."))
	if err != nil {
		return err
	}
	p.args = withOutputs(args, wd)
	var figures string
	if p.Profiler == "go" {
		tmp, err := os.MkdirTemp("", "runtime-metrics")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		figures = filepath.Join(tmp, runtimeMetricsFile)
	}
	cmd, _ := p.timed(nil, figures)
	cmd.Dir = wd
	if err := execute(cmd, os.Stdin, os.Stdout); err != nil {
		return err
	}
	if figures != "" {
		if runs, err := runtimemetrics.ReadFile(figures); err == nil && len(runs) == 1 {
			f := runs[0]
			fmt.Fprintf(os.Stderr, "%d bytes allocated in %d objects, %d GC cycles, %d bytes of heap mapped\n",
				f.AllocBytes, f.AllocObjects, f.GCCycles, f.HeapMappedBytes)
		}
	} else if p.Counted != nil {
		p.printCountedRun()
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
	p.out = filepath.Clean(dir)
	fmt.Fprintf(os.Stderr, "perf: profiling %s into %s\n", p.Benchmark.Name, p.out)
	if p.Wants("cpu") {
		if err := p.profileCPU(wd, io.Discard); err != nil {
			return err
		}
	}
	if p.Wants("heap") {
		if err := p.profileHeap(wd, io.Discard); err != nil {
			return err
		}
	}
	fmt.Fprintln(os.Stderr, "perf: open the profiles with google/pprof, e.g.")
	if p.Wants("cpu") {
		fmt.Fprintf(os.Stderr, "  tools/bazel run //tools:pprof -- -top %s/cpu.pb.gz\n", p.out)
		fmt.Fprintf(os.Stderr, "  tools/bazel run //tools:pprof -- -http=localhost:8080 %s/cpu.pb.gz\n", p.out)
	}
	if p.Wants("heap") {
		fmt.Fprintf(os.Stderr, "  tools/bazel run //tools:pprof -- -top -sample_index=alloc_space %s/heap.pb.gz\n", p.out)
	}
	return nil
}

// testMode is `bazel test NAME_test`: timed runs, profiled runs, checks,
// views and result.json.
func (p *program) testMode(out string) (*result.Result, error) {
	env, err := p.startTest(out)
	if err != nil {
		return nil, err
	}
	if p.Counted == nil && p.Sweep == nil {
		return p.measure(env, false)
	}
	// Its exact counts are made where the count action makes them.
	return p.inCountPlace(out, func() (*result.Result, error) { return p.measure(env, false) })
}

// countMode is the count action of the quick workload (perf_counts): its
// exact counts alone, the same runs as testMode's but for the profiled,
// traced and rendered ones, into the directory out, and result.json of
// config counts, with no timing. The runs under xtime are made for their
// system calls and their outputs' check; their times, a shared worker's,
// are dropped. Nothing it records depends on the commit, which is not
// among the action's inputs (a count is a function of the binary, its
// declared run and the worker), so the environment has none.
func (p *program) countMode(out string) (*result.Result, error) {
	p.out = out
	env := result.Capture(result.Status{}, result.Build{CompilationMode: p.Build.CompilationMode, Config: result.ConfigCounts})
	return p.measure(env, true)
}

// The files of the timed runs: xtime's record and its lines in Go
// benchmark format.
const (
	xtimeFile = result.XTimeName
	benchFile = "bench.txt"
)

// measure makes the runs of testMode, or of countMode when counts is set,
// and writes result.json.
func (p *program) measure(env result.Environment, counts bool) (*result.Result, error) {
	p.args = withOutputs(p.Args, p.out)
	setup, err := p.timedRuns(counts)
	if err != nil {
		return nil, err
	}
	env.Setup = setup // pinned, and ASLR off if asked (pin.go)
	if err := p.checkedRuns(counts); err != nil {
		return nil, err
	}
	if !counts {
		if err := p.render(); err != nil {
			return nil, err
		}
	}

	// The low-noise figures.
	rec, err := result.ReadXTime(p.outPath(xtimeFile))
	if err != nil {
		return nil, err
	}
	if counts {
		if err := p.dropTimes(); err != nil {
			return nil, err
		}
	}
	metrics, err := p.lowNoiseMetrics(rec.Runs, counts)
	if err != nil {
		return nil, err
	}
	printMetrics(metrics)
	var sweeps []result.Sweep
	if p.Sweep != nil {
		sweep, err := p.sweep()
		if err != nil {
			return nil, err
		}
		sweeps = append(sweeps, *sweep)
	}
	r := &result.Result{Environment: env, Timing: &rec.Timing, Metrics: metrics, Sweeps: sweeps, LineCounts: p.lineCounts}
	if counts {
		r.Timing = nil
	}
	return p.writeResult(r)
}

// timedRuns makes the runs under xtime and, but for a count, passes their
// Go benchmark lines on to the test's output. The timed runs have no
// profiler attached.
func (p *program) timedRuns(counts bool) (result.Setup, error) {
	name, reps := p.Benchmark.Name, p.Benchmark.Repetitions
	fmt.Fprintf(os.Stderr, "perf: %s: %d timed run(s)\n", name, reps)
	var figures string
	if p.Profiler == "go" {
		figures = p.outPath(runtimeMetricsFile)
	}
	cmd, setup := p.timed([]string{"-n", fmt.Sprint(reps), "-json", p.outPath(xtimeFile), "-bench", name, "-benchout", p.outPath(benchFile)}, figures)
	if err := p.runTo(cmd, "output.txt"); err != nil {
		return result.Setup{}, err
	}
	if !counts {
		lines, err := os.ReadFile(p.outPath(benchFile))
		if err != nil {
			return result.Setup{}, err
		}
		os.Stdout.Write(lines)
	}
	return setup, nil
}

// checkedRuns checks the timed runs' output and makes the heap-profiled
// and traced runs, checking theirs.
func (p *program) checkedRuns(counts bool) error {
	perRun, err := p.linesPerRun(counts)
	if err != nil {
		return err
	}
	if err := p.checkOutput("output.txt", perRun*p.Benchmark.Repetitions); err != nil {
		return err
	}
	// A count needs the heap profile only for tcmalloc's allocation counts.
	if p.Wants("heap") && (!counts || p.Heap == perfspec.HeapGperftools) {
		if err := p.heapProfiledRun(); err != nil {
			return err
		}
	}
	if p.Trace && !counts {
		return p.tracedRun(perRun)
	}
	return nil
}

// linesPerRun is what one run prints that expect matches: every run must
// print the same, and at least one line of it. When a CPU profile is
// wanted, it makes the CPU-profiled run and counts what that printed.
func (p *program) linesPerRun(counts bool) (int, error) {
	name, reps := p.Benchmark.Name, p.Benchmark.Repetitions
	perRun := 1
	if p.Wants("cpu") && !counts {
		fmt.Fprintf(os.Stderr, "perf: %s: a CPU-profiled run\n", name)
		if err := p.profileCPU(p.runfiles, nil); err != nil {
			return 0, err
		}
		if perRun = p.matches("cpu.output.txt"); perRun == 0 {
			if err := p.checkOutput("cpu.output.txt", 1); err != nil {
				return 0, err
			}
		}
	} else if p.expectRE != nil {
		if perRun = p.matches("output.txt") / reps; perRun == 0 {
			if err := p.checkOutput("output.txt", reps); err != nil {
				return 0, err
			}
		}
	}
	return perRun, nil
}

// heapProfiledRun makes the heap-profiled run and checks its output.
func (p *program) heapProfiledRun() error {
	fmt.Fprintf(os.Stderr, "perf: %s: a heap-profiled run\n", p.Benchmark.Name)
	if err := p.profileHeap(p.runfiles, nil); err != nil {
		return err
	}
	// A -memprofile run of a Havlak stage stops after one pass, so it
	// prints fewer lines.
	if p.matches("heap.output.txt") == 0 {
		return p.checkOutput("heap.output.txt", 1)
	}
	return nil
}

// tracedRun makes the run under runtime/trace and checks that it printed
// perRun lines, as every timed run did.
func (p *program) tracedRun(perRun int) error {
	fmt.Fprintf(os.Stderr, "perf: %s: a traced run\n", p.Benchmark.Name)
	cmd := exec.Command(p.binary, append([]string{"-trace", p.outPath("trace.out")}, p.args...)...)
	if err := p.runTo(cmd, "trace.output.txt"); err != nil {
		return err
	}
	return p.checkOutput("trace.output.txt", perRun)
}

// dropTimes removes a shared worker's times, and its runs' runtime
// figures, which a count records nothing of: a cache must not keep them.
func (p *program) dropTimes() error {
	for _, name := range []string{xtimeFile, benchFile, runtimeMetricsFile} {
		if err := os.Remove(p.outPath(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// lowNoiseMetrics are the metrics of the timed and heap-profiled runs
// and, for a program that declares them, of its counted runs, which it
// makes.
func (p *program) lowNoiseMetrics(runs []result.Run, counts bool) ([]result.Metric, error) {
	metrics := syscallMetrics(runs)
	if p.Profiler == "go" && !counts {
		metrics = append(metrics, p.goRuntimeMetrics(p.Benchmark.Repetitions)...)
	} else if p.Wants("heap") && p.Heap == perfspec.HeapGperftools {
		metrics = append(metrics, p.tcmallocMetrics()...)
	}
	if p.Counted != nil {
		counted, err := p.countedRuns()
		if err != nil {
			return nil, err
		}
		metrics = append(counted, metrics...)
	}
	return metrics, nil
}
