package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

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
	var figures string
	if b.Profiler == "go" {
		tmp, err := os.MkdirTemp("", "runtime-metrics")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		figures = filepath.Join(tmp, runtimeMetricsFile)
	}
	cmd, _ := b.timed(nil, figures)
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

// testMode is `bazel test NAME_test`: timed runs, profiled runs, checks,
// views and result.json.
func (b *bench) testMode() error {
	var err error
	if b.out, err = testOutputs(); err != nil {
		return err
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
	var figures string
	if b.Profiler == "go" {
		figures = b.outPath(runtimeMetricsFile)
	}
	cmd, setup := b.timed([]string{"-n", fmt.Sprint(reps), "-json", xtimeJSON, "-bench", name, "-benchout", benchTxt}, figures)
	env.Setup = setup // pinned, and ASLR off if asked (pin.go)
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
	return b.writeResult(&result.Result{Environment: env, Timing: &rec.Timing, Metrics: metrics})
}
