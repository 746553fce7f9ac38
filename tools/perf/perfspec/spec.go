// Package perfspec is the format of the spec perf_spec
// (tools/perf/private/spec.bzl) writes for each benchmark target: the one
// reader of what the perf rules declare about a benchmark, for the runner
// (//tools/perf/runner) and for tools that measure a benchmark themselves,
// such as //tools/bisect.
package perfspec

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"havlak-lab/tools/result"
)

// A Spec is what the perf rules declare about one target: the benchmark,
// as result.json records it, and how to run it. perf_spec
// (tools/perf/private/spec.bzl) writes it at analysis time; its paths are
// relative to the runfiles root, the runner's working directory.
type Spec struct {
	Benchmark result.Benchmark `json:"benchmark"`
	Build     result.Build     `json:"build"`
	// Status is Bazel's stable workspace status (result.ParseStatus).
	Status string `json:"status"`
	// Binary is the program, or for kind go_test the go_test binary.
	Binary string `json:"binary"`
	XTime  string `json:"xtime"`
	PProf  string `json:"pprof"`
	// Args are the program's arguments; {outputs} stands for the
	// directory of the outputs.
	Args []string `json:"args"`
	// Expect is the regular expression of the lines of a correct run's
	// output, or "" for no check.
	Expect string `json:"expect"`
	// Profiler is "go" (runtime/pprof's -cpuprofile) or "cc" (gperftools,
	// preloaded).
	Profiler string `json:"profiler"`
	// Profiles are the profiles to take, "cpu" and "heap".
	Profiles []string `json:"profiles"`
	// Heap is how the program writes a heap profile: "flag" (-memprofile
	// FILE), "env" (the file named by the environment variable HeapEnv) or
	// "gperftools" (tcmalloc's HEAPPROFILE).
	Heap     string   `json:"heap"`
	HeapEnv  string   `json:"heap_env"`
	HeapArgs []string `json:"heap_args"`
	// Trace adds a run with -trace FILE.
	Trace bool `json:"trace"`
	// GoTest is how to run a go_test binary's benchmarks.
	GoTest GoTest `json:"go_test"`
	// Counted are the runs under Cachegrind that count instructions, or
	// nil for none.
	Counted *Counted `json:"counted"`
	// PinCPU is the CPU the timed runs are pinned to with
	// taskset: a CPU number, "last" or "" for the last CPU the runner may
	// use, or "none" (ParsePinCPU; the runner's pin.go).
	PinCPU string `json:"pin_cpu"`
	// DisableASLR runs them under setarch -R.
	DisableASLR bool `json:"disable_aslr"`
	// Server is the load of a server benchmark (kind "server").
	Server ServerLoad `json:"server"`
}

// Counted is how to run a program for its instruction counts: on a
// workload small enough for Cachegrind (about 50 times slower than
// native), Repetitions times.
type Counted struct {
	Args        []string `json:"args"`
	Expect      string   `json:"expect"`
	Repetitions int      `json:"repetitions"`
}

// GoTest holds the flags of a go_test binary's benchmark run.
type GoTest struct {
	Bench     string `json:"bench"`
	Count     int    `json:"count"`
	Benchtime string `json:"benchtime"` // "" for Go's default
}

// The ways a program writes a heap profile.
const (
	HeapFlag       = "flag"
	HeapEnv        = "env"
	HeapGperftools = "gperftools"
)

// Read reads and checks the spec at path.
func Read(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Check tells what is wrong with the spec, if anything.
func (s *Spec) Check() error {
	switch {
	case s.Benchmark.Name == "":
		return fmt.Errorf("no benchmark name")
	case s.Binary == "" || s.PProf == "":
		return fmt.Errorf("no binary or pprof")
	case s.Benchmark.Kind == result.KindGoTest:
		if s.GoTest.Bench == "" || s.GoTest.Count < 1 {
			return fmt.Errorf("go_test: bench %q, count %d: want a pattern and at least 1", s.GoTest.Bench, s.GoTest.Count)
		}
		return nil
	case s.Benchmark.Kind == result.KindServer:
		if s.Benchmark.Repetitions < 1 {
			return fmt.Errorf("repetitions %d: want at least 1", s.Benchmark.Repetitions)
		}
		return s.Server.Check()
	case s.Benchmark.Kind != result.KindProgram:
		return fmt.Errorf("kind %q: want %q, %q or %q", s.Benchmark.Kind, result.KindProgram, result.KindGoTest, result.KindServer)
	case s.XTime == "":
		return fmt.Errorf("no xtime")
	case s.Profiler != "go" && s.Profiler != "cc":
		return fmt.Errorf("profiler %q: want go or cc", s.Profiler)
	case s.Benchmark.Repetitions < 1:
		return fmt.Errorf("repetitions %d: want at least 1", s.Benchmark.Repetitions)
	}
	if s.Counted != nil && s.Counted.Repetitions < 1 {
		return fmt.Errorf("counted repetitions %d: want at least 1", s.Counted.Repetitions)
	}
	if _, err := ParsePinCPU(s.PinCPU); err != nil {
		return err
	}
	for _, p := range s.Profiles {
		if p != "cpu" && p != "heap" {
			return fmt.Errorf("profile %q: want cpu or heap", p)
		}
	}
	if s.Wants("heap") {
		switch {
		case s.Heap == HeapEnv && s.HeapEnv == "":
			return fmt.Errorf("heap mode env without heap_env")
		case s.Heap != HeapFlag && s.Heap != HeapEnv && s.Heap != HeapGperftools:
			return fmt.Errorf("heap mode %q: want flag, env or gperftools", s.Heap)
		}
	}
	return nil
}

// Wants tells whether the benchmark asks for profile.
func (s *Spec) Wants(profile string) bool { return slices.Contains(s.Profiles, profile) }

// ServerLoad is a server benchmark's load, in its spec.
type ServerLoad struct {
	// Connections is how many requests are in flight at a time.
	Connections int `json:"connections"`
	// Rate is requests per second, or 0 for each connection's next request
	// as soon as its last is answered.
	Rate int `json:"rate"`
	// Durations, as time.ParseDuration reads them.
	Warmup   string `json:"warmup"`
	Duration string `json:"duration"` // of each measured round; repetitions rounds
	Profile  string `json:"profile"`  // the CPU, block, mutex, allocs window
	Trace    string `json:"trace"`
	// Targets is the file of the requests, "METHOD /path" a line (# comments).
	Targets string `json:"targets"`
	// Ready is the path that must answer 200 before the load starts.
	Ready                string `json:"ready"`
	BlockProfileRate     int    `json:"block_profile_rate"`
	MutexProfileFraction int    `json:"mutex_profile_fraction"`
}

// Check tells what is wrong with the load, if anything.
func (l ServerLoad) Check() error {
	if l.Connections < 1 || l.Rate < 0 {
		return fmt.Errorf("server: connections %d, rate %d: want at least 1 connection and a rate of 0 or more", l.Connections, l.Rate)
	}
	for _, d := range []struct{ name, value string }{{"warmup", l.Warmup}, {"duration", l.Duration}, {"profile", l.Profile}, {"trace", l.Trace}} {
		if v, err := time.ParseDuration(d.value); err != nil || v <= 0 {
			return fmt.Errorf("server: %s %q: want a positive duration", d.name, d.value)
		}
	}
	if l.Targets == "" || !strings.HasPrefix(l.Ready, "/") {
		return fmt.Errorf("server: targets %q, ready %q: want a file and a path", l.Targets, l.Ready)
	}
	return nil
}

// Durations are the load's durations, parsed (Check has checked them).
func (l ServerLoad) Durations() (warmup, duration, profile, trace time.Duration) {
	p := func(s string) time.Duration { d, _ := time.ParseDuration(s); return d }
	return p(l.Warmup), p(l.Duration), p(l.Profile), p(l.Trace)
}

// PinLast and PinNone are pin_cpu's words besides a number.
const (
	PinLast = "last"
	PinNone = "none"
)

// ParsePinCPU parses the spec's pin_cpu: a CPU number, -1 for the last
// CPU ("last" or ""), -2 for no pinning ("none").
func ParsePinCPU(s string) (int, error) {
	switch s {
	case "", PinLast:
		return -1, nil
	case PinNone:
		return -2, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("pin_cpu %q: want a CPU number, %q or %q", s, PinLast, PinNone)
	}
	return n, nil
}
