// Package perfrun runs one benchmark of the lab from its spec (package
// perfspec, written by perf_spec in tools/perf/private/spec.bzl): the
// command tools/perf/runner is a thin main over it.
//
// New prepares a spec; Run is what `bazel run NAME` does with it, Test
// what `bazel test NAME_test` does:
//
//   - a program (kind "program"): Run runs it once under xtime, and with
//     --profile DIR among its arguments profiles it into DIR; Test runs it
//     under xtime the spec's number of times, then profiled and traced as
//     the spec asks, checks every output against the spec's expect,
//     renders pprof's views, counts it under Cachegrind and sweeps it
//     (program.go, profile.go, metrics.go, sweep.go);
//   - a server (kind "server"): Run loads it live; Test measures rounds of
//     load, fetches its profiles and a trace under load, stops it and
//     checks its clean exit, then counts its own instructions a request
//     (server.go, serverprocess.go, servermetrics.go,
//     serverinstructions.go);
//   - a go_test's benchmarks (kind "go_test"): Test runs them with
//     -test.benchmem and CPU and heap profiles (gotest.go).
//
// The timed runs are pinned to one CPU and, as the spec asks, run with
// ASLR off (pin.go). The spec's paths are relative to the working
// directory, the runfiles root, where pprof -list also looks for the
// program's sources. In the program's arguments {outputs} stands for the
// directory of the outputs: Test's, or where bazel run was typed
// (BUILD_WORKING_DIRECTORY).
//
// Progress, the runs' own output and the figures go to the standard
// output and error, as the runner shows them. A run that fails returns a
// cli.ExitError with the run's status (128+N when signal N killed it), an
// output that does not match the spec's expect one with status 1, a bad
// argument a cli.UsageError; cli.Report turns each into the exit status.
package perfrun

import (
	"fmt"

	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// A Benchmark is a benchmark's spec prepared to run.
type Benchmark struct {
	b *bench
}

// New prepares the run of spec, whose paths are relative to the working
// directory; it fails on a spec whose expect is not a regular expression.
func New(spec *perfspec.Spec) (*Benchmark, error) {
	b, err := newBench(spec)
	if err != nil {
		return nil, err
	}
	return &Benchmark{b}, nil
}

// Run is `bazel run NAME` of a program or a server: args follow the
// spec's arguments (a program's may hold --profile DIR; a server's
// --duration D and --serve), and the run happens in the directory bazel
// run was typed in.
func (b *Benchmark) Run(args []string) error {
	switch spec := b.b.Spec; {
	case spec.Program != nil:
		return b.b.program().runMode(args)
	case spec.Server != nil:
		return b.b.serverRunMode(args)
	}
	return fmt.Errorf("%s: a benchmark of kind %q has no run", b.b.Benchmark.Name, b.b.Benchmark.Kind)
}

// Test is `bazel test NAME_test`: it measures the benchmark, checks its
// outputs, and writes everything into the directory out, result.json
// (package havlak-lab/tools/result) last; it returns that result.
func (b *Benchmark) Test(out string) (*result.Result, error) {
	switch spec := b.b.Spec; {
	case spec.Program != nil:
		return b.b.program().testMode(out)
	case spec.Server != nil:
		return b.b.serverTestMode(out)
	case spec.GoTest != nil:
		return b.b.goTestMode(out)
	}
	return nil, fmt.Errorf("%s: a benchmark of kind %q has no test", b.b.Benchmark.Name, b.b.Benchmark.Kind)
}
