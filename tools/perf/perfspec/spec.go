// Package perfspec is the format of the spec perf_spec
// (tools/perf/private/spec.bzl) writes for each benchmark target: the one
// reader of what the perf rules declare about a benchmark, for the runner
// (//tools/perf/runner) and for tools that measure a benchmark themselves,
// such as //tools/bisect.
package perfspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
//
// A spec is a tagged union: a common part, and the section of the
// benchmark's kind, exactly one of Program, GoTest and Server (Decode
// refuses none, two, or one that is not Benchmark.Kind's).
type Spec struct {
	// SchemaVersion is the spec's format, SchemaVersion (1 for a spec
	// of the flat format before the sections, which Decode converts).
	SchemaVersion int `json:"schema_version"`
	Common

	// Program is a program's section (kind "program").
	Program *Program `json:"program,omitempty"`
	// GoTest is a go_test binary's section (kind "go_test").
	GoTest *GoTest `json:"go_test,omitempty"`
	// Server is a server's section (kind "server"): its load.
	Server *Server `json:"server,omitempty"`
}

// Common is the part of a spec that every kind has.
type Common struct {
	Benchmark result.Benchmark `json:"benchmark"`
	Build     result.Build     `json:"build"`
	// Status is Bazel's stable workspace status (result.ParseStatus).
	Status string `json:"status"`
	// Binary is the program, the server or the go_test binary.
	Binary string `json:"binary"`
	PProf  string `json:"pprof"`
	// Args are the program's or the server's arguments; {outputs} stands
	// for the directory of the outputs.
	Args []string `json:"args"`
	// Expect is the regular expression of the lines of a correct run's
	// output, or of a server's every answer; "" for no check.
	Expect string `json:"expect"`
}

// Program is how to run and measure a program (kind "program").
type Program struct {
	XTime string `json:"xtime"`
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
	// Counted are the runs under Cachegrind that count instructions, or
	// nil for none.
	Counted *Counted `json:"counted"`
	// PinCPU is the CPU the timed runs are pinned to with
	// taskset: a CPU number, "last" or "" for the last CPU the runner may
	// use, or "none" (ParsePinCPU; the runner's pin.go).
	PinCPU string `json:"pin_cpu"`
	// DisableASLR runs them under setarch -R.
	DisableASLR bool `json:"disable_aslr"`
	// Sweep counts the program at several workload sizes (sweep.go), or
	// is nil.
	Sweep *Sweep `json:"sweep,omitempty"`
	// ExactAllocations declares that a Go program allocates the same in
	// every counted run (the collector off) on the same input: their
	// allocation counts are gated.
	ExactAllocations bool `json:"exact_allocations,omitempty"`
	// SteadyCacheMisses declares that a Go program's own D1 misses move
	// by well under the gate's threshold from run to run: they are gated.
	SteadyCacheMisses bool `json:"steady_cache_misses,omitempty"`
}

// Counted is how to run a program for its instruction counts: on a
// workload small enough for Cachegrind (about 50 times slower than
// native), Repetitions times.
type Counted struct {
	Args        []string `json:"args"`
	Expect      string   `json:"expect"`
	Repetitions int      `json:"repetitions"`
}

// GoTest holds the flags of a go_test binary's benchmark run (kind
// "go_test").
type GoTest struct {
	Bench     string `json:"bench"`
	Count     int    `json:"count"`
	Benchtime string `json:"benchtime"` // "" for Go's default
	// CountedRepetitions is how many values the count action gives each
	// benchmark's own instructions per operation, each from three runs
	// under Cachegrind (tools/perf/cachegrind/perop); 0 for no count.
	CountedRepetitions int `json:"counted_repetitions,omitempty"`
}

// The ways a program writes a heap profile.
const (
	HeapFlag       = "flag"
	HeapEnv        = "env"
	HeapGperftools = "gperftools"
)

// Read reads and checks the spec at path.
func Read(path string) (*Spec, error) {
	// A spec is a few kilobytes; a larger file is not one.
	data, err := readFile(path, maxSize, "a spec")
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// maxSize bounds the size of a spec file.
const maxSize = 1 << 20

// readFile reads the file at path, refusing one larger than max bytes: not
// what (a spec, a manifest).
func readFile(path string, max int, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes: not %s", path, max, what)
	}
	return data, nil
}

// decodeStrict decodes data, read from the file name, into v, refusing a
// field that format (the spec's format, the manifest's) does not have.
func decodeStrict(name string, data []byte, v any, format string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("%s: unknown field %s: not in %s (package perfspec)", name, field, format)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// SchemaVersion is the version of the spec's format that perf_spec
// writes: 2, the kinds' sections.
const SchemaVersion = 2

// Decode decodes and checks the spec data, read from the file name: one
// JSON object of schema_version SchemaVersion with no field the format
// does not have, and the section of exactly one kind. Its errors name the
// file and the field. A spec with no schema_version is of the flat format
// before the sections (version 1), which older commits' builds wrote: it
// is converted.
func Decode(name string, data []byte) (*Spec, error) {
	var version struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &version); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch version.SchemaVersion {
	case 0:
		return decodeV1(name, data)
	case SchemaVersion:
	default:
		return nil, fmt.Errorf("%s: schema_version %d: want %d, or none (the flat format of version 1)", name, version.SchemaVersion, SchemaVersion)
	}
	var s Spec
	if err := decodeStrict(name, data, &s, "the spec's format"); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// v1 is the flat format of a spec before the kinds' sections (no
// schema_version): every kind's fields in one object, a program's at the
// top level.
type v1 struct {
	Common
	Program
	GoTest GoTest `json:"go_test"`
	Server Server `json:"server"`
}

// decodeV1 decodes a spec of version 1 and converts it: the fields of its
// benchmark's kind become that kind's section.
func decodeV1(name string, data []byte) (*Spec, error) {
	var old v1
	if err := json.Unmarshal(data, &old); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &Spec{SchemaVersion: 1, Common: old.Common}
	switch old.Benchmark.Kind {
	case result.KindProgram:
		s.Program = &old.Program
	case result.KindGoTest:
		s.GoTest = &old.GoTest
	case result.KindServer:
		s.Server = &old.Server
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s (schema version 1): %w", name, err)
	}
	return s, nil
}

// Kinds are the sections' names, the kinds of benchmark, in the order of
// Spec's fields.
var Kinds = []string{result.KindProgram, result.KindGoTest, result.KindServer}

// sections are the kinds whose section the spec has.
func (s *Spec) sections() []string {
	var kinds []string
	for i, present := range []bool{s.Program != nil, s.GoTest != nil, s.Server != nil} {
		if present {
			kinds = append(kinds, Kinds[i])
		}
	}
	return kinds
}

// Check tells what is wrong with the spec, if anything.
func (s *Spec) Check() error {
	switch sections := s.sections(); {
	case s.Benchmark.Name == "":
		return fmt.Errorf("benchmark.name: empty")
	case s.Binary == "" || s.PProf == "":
		return fmt.Errorf("binary %q, pprof %q: want both", s.Binary, s.PProf)
	case len(sections) != 1:
		return fmt.Errorf("sections %q: want exactly one of %q", sections, Kinds)
	case sections[0] != s.Benchmark.Kind:
		return fmt.Errorf("benchmark.kind %q with a %q section: want the section of its kind", s.Benchmark.Kind, sections[0])
	case s.GoTest != nil:
		return s.GoTest.Check()
	case s.Benchmark.Repetitions < 1:
		return fmt.Errorf("benchmark.repetitions %d: want at least 1", s.Benchmark.Repetitions)
	case s.Server != nil:
		return s.Server.Check()
	}
	return s.Program.Check()
}

// Check tells what is wrong with the program's section, if anything.
func (p *Program) Check() error {
	switch {
	case p.XTime == "":
		return fmt.Errorf("program.xtime: empty")
	case p.Profiler != "go" && p.Profiler != "cc":
		return fmt.Errorf("program.profiler %q: want go or cc", p.Profiler)
	case p.Counted != nil && p.Counted.Repetitions < 1:
		return fmt.Errorf("program.counted.repetitions %d: want at least 1", p.Counted.Repetitions)
	}
	if _, err := ParsePinCPU(p.PinCPU); err != nil {
		return fmt.Errorf("program.%w", err)
	}
	if p.Sweep != nil {
		if err := p.Sweep.Check(); err != nil {
			return err
		}
	}
	for _, profile := range p.Profiles {
		if profile != "cpu" && profile != "heap" {
			return fmt.Errorf("program.profiles: %q: want cpu or heap", profile)
		}
	}
	if p.Wants("heap") {
		switch {
		case p.Heap == HeapEnv && p.HeapEnv == "":
			return fmt.Errorf("program.heap %q without program.heap_env", p.Heap)
		case p.Heap != HeapFlag && p.Heap != HeapEnv && p.Heap != HeapGperftools:
			return fmt.Errorf("program.heap %q: want flag, env or gperftools", p.Heap)
		}
	}
	return nil
}

// Wants tells whether the program asks for profile.
func (p *Program) Wants(profile string) bool { return slices.Contains(p.Profiles, profile) }

// Check tells what is wrong with the go_test's section, if anything.
func (g *GoTest) Check() error {
	if g.Bench == "" || g.Count < 1 {
		return fmt.Errorf("go_test.bench %q, go_test.count %d: want a pattern and at least 1", g.Bench, g.Count)
	}
	if g.CountedRepetitions < 0 {
		return fmt.Errorf("go_test.counted_repetitions %d: want 0 or more", g.CountedRepetitions)
	}
	return nil
}

// Server is a server benchmark's load (kind "server").
type Server struct {
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
func (l *Server) Check() error {
	if l.Connections < 1 || l.Rate < 0 {
		return fmt.Errorf("server.connections %d, server.rate %d: want at least 1 connection and a rate of 0 or more", l.Connections, l.Rate)
	}
	for _, d := range []struct{ name, value string }{{"warmup", l.Warmup}, {"duration", l.Duration}, {"profile", l.Profile}, {"trace", l.Trace}} {
		if v, err := time.ParseDuration(d.value); err != nil || v <= 0 {
			return fmt.Errorf("server.%s %q: want a positive duration", d.name, d.value)
		}
	}
	if l.Targets == "" || !strings.HasPrefix(l.Ready, "/") {
		return fmt.Errorf("server.targets %q, server.ready %q: want a file and a path", l.Targets, l.Ready)
	}
	return nil
}

// Durations are the load's durations, parsed (Check has checked them).
func (l *Server) Durations() (warmup, duration, profile, trace time.Duration) {
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
