// Package result is the lab's result format: what one benchmark run by the
// perf rules (tools/perf) leaves behind, from the runner that measures it
// to the report, the gates and the history that read it. It is the one
// owner of that format; everything else reads and writes it through here.
//
// # The files
//
// A result is a directory (a test's undeclared outputs) or the
// outputs.zip Bazel makes of it, holding result.json, written last by the
// runner, and the files it lists. result.json is one JSON object:
//
//	schema_version   3 (SchemaVersion); a reader also reads version 2, whose
//	                 identity has no lab_sha256, and version 1, which has no
//	                 identity (Lacks says what each lacks), refuses other
//	                 versions and says which it found
//	identity         what was measured, exactly, and by what (Identity):
//	                 binary_sha256, the benchmark's binary; run_sha256, its
//	                 declared run (the spec but for the build's status, and
//	                 the data files its arguments name); lab_sha256, the
//	                 lab's version that measured it (the runner's and
//	                 xtime's binaries; version 3 on). Two results of the same
//	                 identity measured the same program the same way with the
//	                 same tools: any difference between them is noise. Two of
//	                 another lab_sha256 are not compared at all
//	                 (tools/verdict's AnotherLab)
//	benchmark        what was measured, as declared in its BUILD file:
//	  name           "havlak6"; unique in the lab
//	  kind           "program" (a program timed by xtime), "go_test" (a
//	                 Go package's Benchmark functions) or "server" (a
//	                 server under HTTP load)
//	  study          the case study's title, "Havlak loop finding"; the
//	                 report makes a section of each
//	  stage          its place in the study: 1, 2, ...; the report orders by it
//	  language       "Go", "C++", "C (GNU coreutils)", ...
//	  counterpart    the same stage in another language ("havlak6cc"), or ""
//	  reference      the benchmark its speed-up is measured against
//	                 ("havlak1"), or ""
//	  workload       name ("standard" or "quick") and description, for people
//	  repetitions    how many timed runs were asked for
//	environment      where and with what it ran:
//	  machine        hostname, os, arch, kernel, cpu_model, cores, memory_bytes,
//	                 cpu_state: the CPUs' governor (cpufreq's scaling_governor),
//	                 turbo ("on"/"off": intel_pstate/no_turbo or cpufreq/boost)
//	                 and smt (smt/control), read from sysfs; each "" when
//	                 sysfs does not say, with governor_note, turbo_note,
//	                 smt_note saying why (the lab's VMs have no cpufreq)
//	  toolchains     go (the SDK that built the Go code), gcc, bazel, and
//	                 libc and valgrind (their --version's first line;
//	                 absent when not found, and in older results)
//	  source         commit (git, "" when unknown) and dirty (uncommitted changes)
//	  build          compilation_mode ("opt", "fastbuild", "dbg") and config:
//	                 "perf" (the full-size test, --config=perf), "quick" (its
//	                 quick variant, in the default test set) or "run"
//	  started        when the measurement started, RFC 3339
//	  setup          how the runner ran the timed and counted runs:
//	                 pinned_cpu (taskset -c; null when not pinned, and then
//	                 pin_note says why) and aslr_off (setarch -R)
//	  origin         who started the run (Origin): ci ("buildkite", or absent
//	                 on a workstation), build_source ("schedule", "webhook",
//	                 ...), repository, branch, pull_request (its number) and
//	                 pull_request_repository (a fork's), pipeline, build_url;
//	                 only a scheduled build of main is trusted to move the
//	                 baseline or enter the history (Origin.Trusted)
//	timing           kind "program": xtime's record (Timing): command, args,
//	                 every run (start, exit_status, signal, user_seconds,
//	                 sys_seconds, real_seconds, max_rss_kib), and for a series
//	                 of successful runs their min, median and max
//	  runs[].counters  perf event counts of the run, by event name
//	                 ("instructions:u", "cycles:u", "branch-misses:u",
//	                 "cache-misses:u"): user space only, of the command's
//	                 process and all its threads and children, from its first
//	                 instruction (xtime -counters); absent when not counted
//	  runs[].counters_scaled  true when the kernel multiplexed the counters
//	                 and the counts are estimates
//	  runs[].counters_unavailable  why the run has no counts, with the
//	                 errno ("perf_event_open instructions:u: ENOENT (no such
//	                 file or directory): ..." on a machine without a PMU);
//	                 absent when counted or when no counting was asked for
//	  runs[].syscalls  the run's system calls, {read, write}: /proc/PID/io's
//	                 syscr and syscw, read before the command is reaped
//	                 (xtime); absent in older records, and when they could
//	                 not be read (runs[].syscalls_unavailable says why)
//	go_bench         kind "go_test": the file of Go benchmark format lines
//	                 (benchstat's input), e.g. "bench.txt"
//	metrics          the low-noise figures (Metric): each with its name
//	                 ("own_instructions"), unit, source (how it was
//	                 measured: "cachegrind", "runtime/metrics", ...), one
//	                 value per run of its source (the counted runs under
//	                 Cachegrind, the timed runs, the heap-profiled run),
//	                 whether the gate judges it and the smallest relative
//	                 change the gate reports (threshold: 0.01 is 1%);
//	                 whether it is exact (exact: the same value in every
//	                 run of the same binary on the same input, as its
//	                 producer knows, e.g. Cachegrind's count of a C++
//	                 program; the Go benchmark export marks such a unit
//	                 assume=exact for benchstat); a figure that could not
//	                 be measured has no values and says why (unavailable);
//	                 cost, the kind of cost the figure stands for ("work",
//	                 "locality", "memory management", "system calls",
//	                 ...: Costs), optional; class, how it is judged
//	                 ("count" when absent; "timing" for a metric that
//	                 moves with the machine's load, as a server's mutex
//	                 wait per CPU second does: Classes), optional
//	server           kind "server" (Server): the load (generator,
//	                 connections, rate (0: closed loop), targets,
//	                 warmup_seconds, duration_seconds of each round,
//	                 profile_seconds, trace_seconds); every measured round,
//	                 run with no profile being taken (start, seconds,
//	                 requests, errors: transport errors and answers other
//	                 than 2xx, throughput: successful requests/s,
//	                 latency_seconds: mean, p50, p90, p95 (absent in
//	                 older records), p99, max, exact; status_codes,
//	                 error_messages); profile_rates
//	                 (block_profile_rate, mutex_profile_fraction); and the
//	                 server's exit (signal sent, exit_status, clean)
//	line_counts      a count's Cachegrind counts per source line and
//	                 function, of its first counted run: the file's name
//	                 (tools/perf/cachegrind/linecounts owns its format),
//	                 relative to the result; absent when not kept (a
//	                 result of no count, or older)
//	figure_line_counts  the counts per line that explain one figure
//	                 each, where the run's line_counts cannot: a
//	                 go_test's own_instructions_per_op/NAME, whose file is
//	                 its benchmark function's lines per operation (the
//	                 count's line_counts adds up every function's); an
//	                 object from a figure, a metric of the result, to a
//	                 file's name relative to the result; absent when none
//	                 is kept (older results: a reader then has no lines for
//	                 such a figure, linecounts.OpenFigure)
//	sweeps           how counted figures grow with the workload's size
//	                 (Sweep, complexity.go): the figure at each size and
//	                 the order fitted to it; absent when not swept
//	files            every other file the result holds, each with its name
//	                 (relative to the result), role and, for a profile or a
//	                 view of one, which profile ("cpu", "heap"; a server's
//	                 also "allocs", "goroutine", "block", "mutex"):
//	                 profile (pprof proto: cpu.pb.gz, heap.pb.gz), view
//	                 (pprof's text tables), graph (SVG call graphs), trace
//	                 (runtime/trace), output (what the program printed),
//	                 data (anything else: xtime.json, an image, a latency
//	                 histogram)
//
// Fields may be added to a version (readers ignore what they do not know);
// a change of meaning, a removal or a field every result must have is a new
// version.
//
// A result is untrusted input. Its readers refuse anything but regular
// files, a zip entry whose CRC-32 is wrong, a result.json over
// MaxResultJSONBytes or giving a key twice in one object, and lists or
// counts past their limits (MaxMetrics, MaxRuns, ..., a machine's cores),
// each error naming the file, entry, line or field at fault.
package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// SchemaVersion is the version of result.json this package writes; it also
// reads OldestSchemaVersion and the versions between.
const (
	SchemaVersion       = 3
	OldestSchemaVersion = 1
)

// FileName is the name of a result's description in its directory or zip.
const FileName = "result.json"

// A Result is one benchmark's measurement.
type Result struct {
	SchemaVersion int         `json:"schema_version"`
	Identity      *Identity   `json:"identity,omitempty"`
	Benchmark     Benchmark   `json:"benchmark"`
	Environment   Environment `json:"environment"`
	Timing        *Timing     `json:"timing,omitempty"`
	GoBench       string      `json:"go_bench,omitempty"`
	Metrics       []Metric    `json:"metrics,omitempty"`
	Server        *Server     `json:"server,omitempty"`
	// LineCounts names the file of Cachegrind's counts per line
	// (package linecounts), or is "": like GoBench, a file of the result
	// that Files does not list.
	LineCounts string `json:"line_counts,omitempty"`
	// FigureLineCounts names, by figure, the file of counts per line that
	// explains that figure alone (package linecounts), as LineCounts does
	// the run's: not listed in Files either.
	FigureLineCounts map[string]string `json:"figure_line_counts,omitempty"`
	Files            []File            `json:"files"`
	// Sweeps: how counted figures grow with the workload (complexity.go).
	Sweeps []Sweep `json:"sweeps,omitempty"`

	// metricAt indexes Metrics by name, as Decode found them (Metric).
	metricAt map[string]int
}

// A Metric is one low-noise figure of a benchmark: a count that, unlike
// wall time, hardly moves between runs of the same binary, so that a small
// change of the code shows.
type Metric struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Source string    `json:"source"`
	Values []float64 `json:"values"`
	// Gated: the regression gate judges this figure; a change counts when
	// it is worse than both Threshold and the noise of the runs.
	Gated     bool    `json:"gated"`
	Threshold float64 `json:"threshold,omitempty"`
	// Exact: every run of the same binary on the same input gives the
	// same value, as the figure's producer knows from how it is measured
	// (never guessed from its values or its name): one run tells all.
	Exact bool `json:"exact,omitempty"`
	// Unavailable says why there are no values.
	Unavailable string `json:"unavailable,omitempty"`
	// Cost is the kind of cost the figure stands for (Costs: "work",
	// "locality", ...), declared by its producer; "" in results written
	// before the field.
	Cost string `json:"cost,omitempty"`
	// Class is how the figure is judged (Classes), declared by its
	// producer from how it is measured: "" is a count (ClassCount), as
	// every metric was before the field; a metric that is a time, say, is
	// ClassTiming, and tools/verdict's Policy judges it as one.
	Class Class `json:"class,omitempty"`
}

// Metric returns the metric called name, or nil. A result from Decode
// finds it by an index, so that a loop over another result's metrics is
// not quadratic; the index is only trusted where it still names the
// metric, and a name it lacks (or a result made otherwise) is looked for
// in the MaxMetrics metrics one by one.
func (r *Result) Metric(name string) *Metric {
	if i, ok := r.metricAt[name]; ok && i < len(r.Metrics) && r.Metrics[i].Name == name {
		return &r.Metrics[i]
	}
	for i := range r.Metrics {
		if r.Metrics[i].Name == name {
			return &r.Metrics[i]
		}
	}
	return nil
}

// The kinds of benchmark.
const (
	KindProgram = "program"
	KindGoTest  = "go_test"
)

// Benchmark is what was measured, as its BUILD file declares it.
type Benchmark struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Study       string   `json:"study"`
	Stage       int      `json:"stage"`
	Language    string   `json:"language"`
	Counterpart string   `json:"counterpart,omitempty"`
	Reference   string   `json:"reference,omitempty"`
	Workload    Workload `json:"workload"`
	Repetitions int      `json:"repetitions"`
}

// The workloads a benchmark is measured on.
const (
	WorkloadStandard = "standard"
	WorkloadQuick    = "quick"
)

// Workload is the input a benchmark ran on.
type Workload struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Quick tells whether the result is of the reduced workload, whose timings
// do not compare with the standard one's.
func (b Benchmark) Quick() bool { return b.Workload.Name == WorkloadQuick }

// Timing is xtime's record of a program's timed runs.
type Timing struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Runs    []Run    `json:"runs"`
	Summary *Summary `json:"summary,omitempty"`
}

// Run is one timed run.
type Run struct {
	Start      string `json:"start"`       // RFC 3339, nanoseconds
	ExitStatus int    `json:"exit_status"` // 128+N for signal N
	Signal     string `json:"signal"`      // the signal's name, or ""
	Usage
	// Counters are the run's perf event counts by event name, user space
	// only, of the command and all its threads and children; nil when
	// not counted.
	Counters map[string]int64 `json:"counters,omitempty"`
	// CountersScaled tells that the counts are estimates: the kernel
	// multiplexed the counters.
	CountersScaled bool `json:"counters_scaled,omitempty"`
	// CountersUnavailable says why there are no Counters (the errno of
	// perf_event_open, say), or is "".
	CountersUnavailable string `json:"counters_unavailable,omitempty"`
	// Syscalls are the run's system calls (/proc/PID/io), or nil when
	// not read; SyscallsUnavailable says why they could not be.
	Syscalls            *Syscalls `json:"syscalls,omitempty"`
	SyscallsUnavailable string    `json:"syscalls_unavailable,omitempty"`
	// MinorFaults are the run's page faults served without I/O
	// (getrusage's ru_minflt, of the command and its waited-for
	// children): mostly the pages it touched for the first time. Nil in
	// results from before xtime recorded them.
	MinorFaults *int64 `json:"minor_faults,omitempty"`
}

// Usage is what a run cost.
type Usage struct {
	UserSeconds float64 `json:"user_seconds"`
	SysSeconds  float64 `json:"sys_seconds"`
	RealSeconds float64 `json:"real_seconds"`
	MaxRSSKiB   int64   `json:"max_rss_kib"`
}

// Summary is the minimum, median and maximum of every column of a series
// of successful runs, each column on its own.
type Summary struct {
	Min    Usage `json:"min"`
	Median Usage `json:"median"`
	Max    Usage `json:"max"`
}

// Successful returns the runs that exited with status 0.
func (t *Timing) Successful() []Run {
	if t == nil {
		return nil
	}
	var ok []Run
	for _, run := range t.Runs {
		if run.ExitStatus == 0 {
			ok = append(ok, run)
		}
	}
	return ok
}

// The roles of a result's files.
const (
	RoleProfile = "profile"
	RoleView    = "view"
	RoleGraph   = "graph"
	RoleTrace   = "trace"
	RoleOutput  = "output"
	RoleData    = "data"
)

var roles = []string{RoleProfile, RoleView, RoleGraph, RoleTrace, RoleOutput, RoleData}

// File is one file of a result besides result.json.
type File struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	Profile string `json:"profile,omitempty"` // "cpu", "heap", ...: for a profile and its views
}

// Find returns the name of the file with role of profile (any profile when
// profile is ""), or "".
func (r *Result) Find(role, profile string) string {
	for _, f := range r.Files {
		if f.Role == role && (profile == "" || f.Profile == profile) {
			return f.Name
		}
	}
	return ""
}

// FilesWith returns the files with role, in their order.
func (r *Result) FilesWith(role string) []File {
	var files []File
	for _, f := range r.Files {
		if f.Role == role {
			files = append(files, f)
		}
	}
	return files
}

// Limits on how many of each thing a result holds. A result is untrusted
// input, and its readers go over these lists, pair them with a baseline's
// and write a line of the report for each: a small result.json of
// 200,000 metrics cost the report 442 MB and quadratic time (issue 37).
// Each limit is far above what the lab's benchmarks write.
const (
	// MaxMetrics bounds a result's metrics: the runner writes a few
	// dozen at most.
	MaxMetrics = 1000
	// MaxSweeps bounds a result's sweeps (one per counted figure swept)
	// and MaxSweepPoints a sweep's sizes (a handful each).
	MaxSweeps      = 100
	MaxSweepPoints = 1000
	// MaxRuns bounds the repetitions asked for, the timed runs, a
	// server's rounds and a metric's values (one per run of its source):
	// a benchmark is repeated a few dozen times at most.
	MaxRuns = 1000
	// MaxFiles bounds a result's files: a full-size result has about 20.
	MaxFiles = 1000
	// MaxCounters bounds the perf events counted in one run: xtime
	// counts four.
	MaxCounters = 64
)

// Bounds on the counts of a result's environment and load: past them a
// figure is a broken probe or a forged result ("-2 cores", issue 37).
const (
	// maxCores: Linux's NR_CPUS is at most 8192 on x86-64 and arm64;
	// 65536 leaves room.
	maxCores = 1 << 16
	// maxMemoryBytes: 1 PiB; the largest single machines have tens of
	// TiB.
	maxMemoryBytes = 1 << 50
	// maxSeconds: a week, for one run, one round of load, its warm-up
	// or its profile; a benchmark takes seconds.
	maxSeconds = 7 * 24 * 3600
	// maxConnections bounds a load's connections and its targets (a few
	// to hundreds).
	maxConnections = 1 << 20
	// maxRate: requests per second of a load; a billion is more than any
	// one server answers.
	maxRate = 1e9
	// maxReported bounds the problems Validate lists one by one.
	maxReported = 20
)

// checkCount refuses a count outside [0, limit], naming its field; a NaN
// is outside.
func checkCount[T int | int64 | float64](bad func(string, ...any), field string, v, limit T) {
	if !(v >= 0 && v <= limit) {
		bad("%s: %v, want 0 to %v", field, v, limit)
	}
}

// tooMany refuses the lists of r that are longer than their limit, before
// anything reads them one by one.
func (r *Result) tooMany() error {
	var over []string
	check := func(field string, n, limit int) {
		if n > limit {
			over = append(over, fmt.Sprintf("%s: %d, over the limit of %d", field, n, limit))
		}
	}
	check("metrics", len(r.Metrics), MaxMetrics)
	check("sweeps", len(r.Sweeps), MaxSweeps)
	check("files", len(r.Files), MaxFiles)
	check("figure_line_counts", len(r.FigureLineCounts), MaxMetrics)
	check("timing.runs", len(r.Timing.runs()), MaxRuns)
	if r.Server != nil {
		check("server.rounds", len(r.Server.Rounds), MaxRuns)
	}
	for i, m := range r.Metrics {
		check(fmt.Sprintf("metrics[%d].values", i), len(m.Values), MaxRuns)
	}
	for i, sw := range r.Sweeps {
		check(fmt.Sprintf("sweeps[%d].points", i), len(sw.Points), MaxSweepPoints)
	}
	for i, run := range r.Timing.runs() {
		check(fmt.Sprintf("timing.runs[%d].counters", i), len(run.Counters), MaxCounters)
	}
	if len(over) == 0 {
		return nil
	}
	return errors.New(strings.Join(over[:min(len(over), maxReported)], "; "))
}

// Validate reports everything wrong with r, or nil: the first problems
// one by one (maxReported), and how many more.
func (r *Result) Validate() error {
	if err := r.tooMany(); err != nil {
		return err
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	// The order of the checks is the order of the problems in the error.
	r.checkVersion(bad)
	r.checkDescription(bad)
	r.checkMeasurement(bad)
	r.checkMetrics(bad)
	r.checkSweeps(bad)
	r.checkFiles(bad)
	r.checkLineCounts(bad)
	switch n := len(problems); {
	case n == 0:
		return nil
	case n > maxReported:
		problems = append(problems[:maxReported], fmt.Sprintf("and %d more problems", n-maxReported))
	}
	return errors.New(strings.Join(problems, "; "))
}

// checkDescription checks benchmark and environment, what was measured
// and where; their checks interleave to keep the order of the problems
// Validate has always listed.
func (r *Result) checkDescription(bad func(string, ...any)) {
	b := r.Benchmark
	for field, name := range map[string]string{"name": b.Name, "counterpart": b.Counterpart, "reference": b.Reference} {
		if err := CheckName(name); err != nil && (field == "name" || name != "") {
			bad("benchmark.%s: %v", field, err)
		}
	}
	if err := checkTime(r.Environment.Started); err != nil && r.Environment.Started != "" {
		bad("environment.started: %v", err)
	}
	if c := r.Environment.Source.Commit; c != "" && !isCommit(c) {
		bad("environment.source.commit %q: want a git commit's name, letters and digits", c)
	}
	if b.Study == "" {
		bad("benchmark.study is empty")
	}
	if b.Language == "" {
		bad("benchmark.language is empty")
	}
	if b.Stage < 0 {
		bad("benchmark.stage is %d, negative", b.Stage)
	}
	checkCount(bad, "benchmark.repetitions", b.Repetitions, MaxRuns)
	m := r.Environment.Machine
	checkCount(bad, "environment.machine.cores", m.Cores, maxCores)
	checkCount(bad, "environment.machine.memory_bytes", m.MemoryBytes, maxMemoryBytes)
	if cpu := r.Environment.Setup.PinnedCPU; cpu != nil {
		checkCount(bad, "environment.setup.pinned_cpu", *cpu, maxCores-1)
	}
	if b.Workload.Name != WorkloadStandard && b.Workload.Name != WorkloadQuick {
		bad("benchmark.workload.name %q: want %q or %q", b.Workload.Name, WorkloadStandard, WorkloadQuick)
	}
	if b.Counterpart == b.Name && b.Name != "" {
		bad("benchmark.counterpart is the benchmark itself")
	}
}

// checkMeasurement checks the record its benchmark's kind calls for:
// timing, go_bench or server.
func (r *Result) checkMeasurement(bad func(string, ...any)) {
	switch kind := r.Benchmark.Kind; kind {
	case KindProgram:
		r.checkTiming(bad)
	case KindGoTest:
		// A count (config counts) has its own instructions per operation
		// alone: the lines of runs under Cachegrind time nothing.
		if r.GoBench == "" && r.Environment.Build.Config != ConfigCounts {
			bad("go_bench is empty (kind %q)", kind)
		}
	case KindServer:
		for _, p := range r.Server.problems() {
			bad("%s", p)
		}
	default:
		bad("benchmark.kind %q: want %q, %q or %q", kind, KindProgram, KindGoTest, KindServer)
	}
}

// checkTiming checks a program's timing: present but for a result of
// config counts, and every run in it.
func (r *Result) checkTiming(bad func(string, ...any)) {
	if r.Environment.Build.Config == ConfigCounts {
		if r.Timing != nil {
			bad("timing in a result of config %q, which counts and times nothing", ConfigCounts)
		}
	} else if r.Timing == nil {
		bad("timing is missing (kind %q)", r.Benchmark.Kind)
	} else if len(r.Timing.Runs) == 0 {
		bad("timing.runs is empty")
	}
	for i, run := range r.Timing.runs() {
		checkRun(bad, i, run)
	}
}

// checkRun checks the figures and start of timing.runs[i].
func checkRun(bad func(string, ...any), i int, run Run) {
	field := fmt.Sprintf("timing.runs[%d].", i)
	checkCount(bad, field+"user_seconds", run.UserSeconds, maxSeconds)
	checkCount(bad, field+"sys_seconds", run.SysSeconds, maxSeconds)
	checkCount(bad, field+"real_seconds", run.RealSeconds, maxSeconds)
	checkCount(bad, field+"max_rss_kib", run.MaxRSSKiB, maxMemoryBytes>>10)
	if run.MinorFaults != nil {
		checkCount(bad, field+"minor_faults", *run.MinorFaults, math.MaxInt64)
	}
	for _, event := range slices.Sorted(maps.Keys(run.Counters)) {
		checkCount(bad, fmt.Sprintf("%scounters[%q]", field, event), run.Counters[event], math.MaxInt64)
	}
	if sc := run.Syscalls; sc != nil {
		checkCount(bad, field+"syscalls.read", sc.Read, math.MaxInt64)
		checkCount(bad, field+"syscalls.write", sc.Write, math.MaxInt64)
	}
	if err := checkTime(run.Start); err != nil && run.Start != "" {
		bad("timing.runs[%d].start: %v", i, err)
	}
}

// checkMetrics checks each metric, reporting only its first problem.
func (r *Result) checkMetrics(bad func(string, ...any)) {
	seen := map[string]bool{}
	for i, m := range r.Metrics {
		switch {
		case m.Name == "" || seen[m.Name]:
			bad("metrics[%d]: name %q empty or repeated", i, m.Name)
		case len(m.Values) == 0 && m.Unavailable == "":
			bad("metrics[%d] (%s): no values, and no reason", i, m.Name)
		case m.Gated && m.Threshold <= 0:
			bad("metrics[%d] (%s): gated without a positive threshold", i, m.Name)
		case slices.ContainsFunc(m.Values, func(v float64) bool { return v < 0 }):
			bad("metrics[%d] (%s): a negative value: counts are not", i, m.Name)
		case !validCost(m.Cost):
			bad("metrics[%d] (%s): cost %q: want one of %s", i, m.Name, m.Cost, strings.Join(Costs, ", "))
		case m.Class != "" && !slices.Contains(Classes, m.Class):
			bad("metrics[%d] (%s): class %q: want one of %s", i, m.Name, m.Class, classNames())
		case m.Exact && m.Class != "" && m.Class != ClassCount:
			bad("metrics[%d] (%s): exact, but of class %q: only a count is exact", i, m.Name, m.Class)
		}
		seen[m.Name] = true
	}
}

// checkSweeps checks each sweep (Sweep.problems).
func (r *Result) checkSweeps(bad func(string, ...any)) {
	for i := range r.Sweeps {
		for _, problem := range r.Sweeps[i].problems() {
			bad("sweeps[%d] (%s): %s", i, r.Sweeps[i].Figure, problem)
		}
	}
}

// checkFiles checks that each file stays inside the result and has a
// known role.
func (r *Result) checkFiles(bad func(string, ...any)) {
	for i, f := range r.Files {
		if !insideResult(f.Name) {
			bad("files[%d].name %q: want a relative path inside the result", i, f.Name)
		}
		if !slices.Contains(roles, f.Role) {
			bad("files[%d] (%s): role %q, want one of %s", i, f.Name, f.Role, strings.Join(roles, ", "))
		}
	}
}

// checkLineCounts checks the name of the line counts' file, which its
// readers open in the result: inside it, not listed among files.
func (r *Result) checkLineCounts(bad func(string, ...any)) {
	switch {
	case r.LineCounts == "":
	case !insideResult(r.LineCounts):
		bad("line_counts %q: want a relative path inside the result", r.LineCounts)
	case r.LineCounts == r.GoBench || slices.ContainsFunc(r.Files, func(f File) bool { return f.Name == r.LineCounts }):
		bad("line_counts %q: a file of its own, not go_bench's or one of files", r.LineCounts)
	}
	seen := map[string]string{}
	for _, figure := range slices.Sorted(maps.Keys(r.FigureLineCounts)) {
		name := r.FigureLineCounts[figure]
		switch {
		case r.Metric(figure) == nil:
			bad("figure_line_counts[%q]: no metric of that name", figure)
		case !insideResult(name):
			bad("figure_line_counts[%q] %q: want a relative path inside the result", figure, name)
		case name == r.GoBench || name == r.LineCounts || seen[name] != "" ||
			slices.ContainsFunc(r.Files, func(f File) bool { return f.Name == name }):
			bad("figure_line_counts[%q] %q: a file of its own, not go_bench's, line_counts', another figure's or one of files", figure, name)
		}
		seen[name] = figure
	}
}

// insideResult tells whether name is a file's name inside a result: not
// empty, not result.json, relative and without "..".
func insideResult(name string) bool {
	return name != "" && name != FileName && !strings.HasPrefix(name, "/") && !slices.Contains(strings.Split(name, "/"), "..")
}

// MaxNameBytes bounds a benchmark's name.
const MaxNameBytes = 100

// CheckName checks a benchmark's name, which readers make into file and
// directory names (the report's stages/NAME/, a night's archive): letters,
// digits and "_-.+", not starting with a dot, at most MaxNameBytes. It is
// the one check of names: every writer that makes a path of one relies on
// it.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case len(name) > MaxNameBytes:
		return fmt.Errorf("name of %d bytes: at most %d", len(name), MaxNameBytes)
	case name[0] == '.':
		return fmt.Errorf("name %q starts with a dot", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.+", c)) {
			return fmt.Errorf("name %q: want letters, digits and _-.+ only", name)
		}
	}
	return nil
}

// The times a result may carry: later or earlier is a broken clock or a
// forged result, and would overflow nanoseconds since 1970 in an int64.
var (
	earliestTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// checkTime checks an RFC 3339 time of a result.
func checkTime(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q: want an RFC 3339 time", s)
	}
	if t.Before(earliestTime) || !t.Before(latestTime) {
		return fmt.Errorf("%s: outside %d–%d", s, earliestTime.Year(), latestTime.Year()-1)
	}
	return nil
}

// IsSHA256 tells whether s is a sha256 in hex, lower case: the form of
// an identity's sums and of a result's key in the history.
func IsSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isCommit tells whether s can be a git commit's name: up to 64 letters
// and digits (hex, in practice), nothing that makes a path of it.
func isCommit(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (t *Timing) runs() []Run {
	if t == nil {
		return nil
	}
	return t.Runs
}

// XTimeRecord is what `xtime -json FILE` writes: the timing of its runs
// and the machine they ran on.
type XTimeRecord struct {
	Timing
	Machine Machine `json:"machine"`
}

// ReadXTime reads what `xtime -json` wrote to path, a regular file of at
// most MaxFileBytes.
func ReadXTime(path string) (*XTimeRecord, error) {
	data, err := ReadFileLimited(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var rec XTimeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, jsonError(data, err))
	}
	if rec.Command == "" {
		return nil, fmt.Errorf("%s: no command: not written by xtime -json", path)
	}
	return &rec, nil
}
