package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

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
	// use, or "none" (see pin.go).
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
	heapFlag       = "flag"
	heapEnv        = "env"
	heapGperftools = "gperftools"
)

// readSpec reads and checks the spec at path.
func readSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

func (s *Spec) check() error {
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
		return s.Server.check()
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
	if _, err := parsePinCPU(s.PinCPU); err != nil {
		return err
	}
	for _, p := range s.Profiles {
		if p != "cpu" && p != "heap" {
			return fmt.Errorf("profile %q: want cpu or heap", p)
		}
	}
	if s.wants("heap") {
		switch {
		case s.Heap == heapEnv && s.HeapEnv == "":
			return fmt.Errorf("heap mode env without heap_env")
		case s.Heap != heapFlag && s.Heap != heapEnv && s.Heap != heapGperftools:
			return fmt.Errorf("heap mode %q: want flag, env or gperftools", s.Heap)
		}
	}
	return nil
}

// wants tells whether the benchmark asks for profile.
func (s *Spec) wants(profile string) bool { return slices.Contains(s.Profiles, profile) }
