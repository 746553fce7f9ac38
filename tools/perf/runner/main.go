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
//		(package havlak-lab/tools/perf/loadgen): run shows a live run and
//		its latency summary; test measures rounds of load, fetches the
//		profiles and a trace over HTTP under load, stops the server and
//		checks its clean exit.
//	runner count SPEC WORKER INPUTS OUT
//		(the action of perf_counts, NAME_counts) counts a program's quick
//		workload and nothing else: the runs of test but for the profiled,
//		traced and rendered ones, with no timing in result.json (config
//		counts); INPUTS lays out the action's inputs as the runfiles tree
//		SPEC's paths are relative to (perfrun.StageInputs); the count is
//		made only on the worker WORKER declares (result.CountWorker); OUT
//		is the outputs' zip, result.json among them.
//	runner gotest SPEC
//		(bazel test NAME_test of a go_benchmark) runs a go_test binary's
//		benchmarks with -test.benchmem and CPU and heap profiles, keeps
//		their lines in Go benchmark format (bench.txt) and pprof's views,
//		and writes result.json.
//
// The timed runs, bazel run's and the test's, are pinned to one CPU with
// taskset (the spec's pin_cpu: the last CPU the runner may use by default)
// and, with the spec's disable_aslr, run under setarch -R; result.json's
// environment.setup records it.
//
// The spec's paths are relative to the working directory, the runfiles
// root, where pprof -list also looks for the program's sources. In the
// program's arguments {outputs} stands for the directory of the outputs:
// the test's undeclared outputs, or where bazel run was typed.
//
// Exit status: a failing run's own (128+N when signal N killed it); 1 when
// an output does not match the spec's expect or a profile cannot be read
// or rendered; 2 for a usage error.
//
// The work is package havlak-lab/tools/perf/perfrun's; this command reads
// the spec, picks the mode and reports the error.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/perf/perfrun"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

const usage = "usage: runner run|test|gotest SPEC [ARGS...] | runner count SPEC WORKER INPUTS OUT"

func main() {
	os.Exit(cli.Report(os.Stderr, "perf", run(os.Args[1:])))
}

// run reads the spec and runs the mode asked for, if the benchmark's kind
// has it.
func run(args []string) error {
	if len(args) == 5 && args[0] == "count" {
		return count(args[1], args[2], args[3], args[4])
	}
	if len(args) < 2 {
		return cli.Usagef("%s", usage)
	}
	mode, specPath, args := args[0], args[1], args[2:]
	spec, b, err := load(specPath)
	if err != nil {
		return err
	}
	// The spec has the section of its kind, and only that one (Read).
	switch {
	case mode == "run" && (spec.Program != nil || spec.Server != nil):
		return b.Run(args)
	case len(args) == 0 && (mode == "test" && (spec.Program != nil || spec.Server != nil) ||
		mode == "gotest" && spec.GoTest != nil):
		out := os.Getenv("TEST_UNDECLARED_OUTPUTS_DIR")
		if out == "" {
			return errors.New("TEST_UNDECLARED_OUTPUTS_DIR: not run by bazel test")
		}
		_, err := b.Test(out) // the result is in out, result.json
		return err
	}
	return cli.Usagef("mode %q with %d arguments for a benchmark of kind %q\n%s", mode, len(args), spec.Benchmark.Kind, usage)
}

// count is the count action: in a runfiles tree of the action's inputs,
// the counts of SPEC's quick workload, zipped into OUT.
func count(specPath, workerPath, inputs, out string) error {
	worker, err := result.ReadCountWorker(workerPath)
	if err != nil {
		return err
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	tmp, err := perfrun.CountDir()
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root, err := perfrun.StageInputs(inputs, tmp)
	if err != nil {
		return err
	}
	outputs := filepath.Join(tmp, "outputs")
	if err := os.Mkdir(outputs, 0o755); err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	environment := perfrun.CountEnvironment(os.Environ())
	os.Clearenv()
	for _, kv := range environment {
		name, value, _ := strings.Cut(kv, "=")
		os.Setenv(name, value)
	}
	// Bazel shows what a successful action prints: the runs' progress and
	// output go to count.log among the outputs, shown only on failure.
	log, err := os.Create(filepath.Join(outputs, "count.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = log, log
	err = countIn(specPath, tmp, outputs, worker)
	os.Stdout, os.Stderr = stdout, stderr
	if err != nil {
		fmt.Fprintf(stderr, "perf: the count failed; its log, %s:\n", log.Name())
		if data, rerr := os.ReadFile(log.Name()); rerr == nil {
			stderr.Write(data[max(0, len(data)-8192):])
		}
		return err
	}
	return result.WriteZip(outputs, out)
}

// countIn counts the spec's benchmark from the count place, into the
// directory outputs.
func countIn(specPath, place, outputs string, worker result.CountWorker) error {
	_, b, err := load(specPath)
	if err != nil {
		return err
	}
	_, err = b.Count(place, outputs, worker)
	return err
}

// load reads the spec and prepares its benchmark to run.
func load(specPath string) (*perfspec.Spec, *perfrun.Benchmark, error) {
	spec, err := perfspec.Read(specPath)
	if err != nil {
		return nil, nil, err
	}
	b, err := perfrun.New(spec)
	return spec, b, err
}
