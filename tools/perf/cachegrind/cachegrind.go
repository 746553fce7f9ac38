// Package cachegrind counts the instructions a program executes, under
// Valgrind's Cachegrind: the lab's low-noise figure (docs/noise.md). The
// runner (//tools/perf/runner) records the counts of every benchmark with
// it, and //tools/bisect measures each commit with it, so that both count
// the same way.
package cachegrind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"havlak-lab/tools/result"

	"github.com/google/pprof/profile"
)

// The names of the counts as metrics in result.json, as tools/result
// declares them.
const (
	// MetricInstructions is every instruction of the process.
	MetricInstructions = result.MetricInstructions
	// MetricOwnInstructions leaves out the Go runtime's (Counts.Own).
	MetricOwnInstructions = result.MetricOwnInstructions
)

// GatedMetric is the count the regression gate judges: a Go program's own
// instructions, a C or C++ program's total, which is exact.
func GatedMetric(goProgram bool) string {
	if goProgram {
		return MetricOwnInstructions
	}
	return MetricInstructions
}

// GoEnv is what a Go program runs with under Cachegrind: no garbage
// collection (GOGC=off) and no heap profile sampling
// (GODEBUG=memprofilerate=0), both of which make the runtime's work depend
// on timing and chance. The counted workloads are small enough for the
// heap to hold all they allocate.
var GoEnv = []string{"GOGC=off", "GODEBUG=memprofilerate=0"}

// Counts are what one run under Cachegrind executed.
type Counts struct {
	// Total is every instruction of the process, Cachegrind's summary.
	Total uint64
	// Own leaves out the Go runtime's functions (packages runtime and
	// internal/runtime/...): its scheduler, page allocator and stack
	// unwinder do an amount of work that depends on timing and on where
	// the kernel put memory, while the program's own code, the standard
	// library included, executes the same instructions run after run.
	// For a C or C++ program it equals Total.
	Own uint64
	// Functions are the instructions of each function, by Cachegrind's
	// name for it (the function itself, not its callees).
	Functions map[string]uint64
	// FunctionEvents are the events of each function when the run
	// simulated the caches (Cache is not nil), or nil.
	FunctionEvents map[string]Events
	// Cache is the cache simulation's events, when the run simulated the
	// caches (Run.CacheSim), or nil (cachesim.go).
	Cache *Cache
}

// Metric is the count named by a Metric* constant.
func (c Counts) Metric(name string) (uint64, error) {
	switch name {
	case MetricInstructions:
		return c.Total, nil
	case MetricOwnInstructions:
		return c.Own, nil
	}
	return 0, fmt.Errorf("metric %q: Cachegrind counts %q and %q", name, MetricInstructions, MetricOwnInstructions)
}

// Valgrind finds valgrind on PATH.
func Valgrind() (string, error) {
	valgrind, err := exec.LookPath("valgrind")
	if err != nil {
		return "", errors.New("valgrind not found: install Debian's valgrind (tools/bazel test does)")
	}
	return valgrind, nil
}

// A Run is one run of a program under Cachegrind.
type Run struct {
	Valgrind string // from Valgrind()
	Program  string
	Args     []string
	// GoProgram adds GoEnv to the environment.
	GoProgram bool
	// Env is the environment, os.Environ() when nil.
	Env []string
	// Dir is the working directory, the caller's when "".
	Dir string
	// Out is Cachegrind's output file.
	Out string
	// CacheSim also simulates the caches (cachesim.go): the run takes
	// longer, and Counts.Cache has the misses.
	CacheSim bool
	// Stdout receives the program's standard output.
	Stdout io.Writer
}

// Count runs the program and reads its counts. Valgrind's chatter on
// standard error is shown only if the run fails.
func (r Run) Count() (Counts, error) {
	cmd := r.Command()
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = r.Stdout, &stderr
	if err := cmd.Run(); err != nil {
		os.Stderr.WriteString(stderr.String())
		return Counts{}, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	return ReadFile(r.Out)
}

// Command is the command that runs the program under Cachegrind, for a
// caller that starts and stops it itself (a server, stopped by a signal,
// which Valgrind passes on to it); once it has exited, ReadFile(r.Out)
// reads its counts. Its Stdout and Stderr are the caller's to set.
func (r Run) Command() *exec.Cmd {
	// A wrapper script's exec of the real program is followed: the count
	// is the program's (the last one exec'd writes the file).
	flags := []string{"--tool=cachegrind", "--cache-sim=no"}
	if r.CacheSim {
		flags = append([]string{"--tool=cachegrind", "--cache-sim=yes"}, CacheGeometry...)
	}
	flags = append(flags, "--trace-children=yes", "--cachegrind-out-file="+r.Out, r.Program)
	cmd := exec.Command(r.Valgrind, append(flags, r.Args...)...)
	cmd.Env = r.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if r.GoProgram {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], GoEnv...)
	}
	cmd.Dir = r.Dir
	return cmd
}

// Metrics are the counts of a program's runs as result.json's metrics: for
// a Go program its own instructions, gated with threshold, then its total;
// for a C or C++ program its total, gated.
func Metrics(counts []Counts, goProgram bool, source string, threshold float64) []result.Metric {
	total := result.Metric{Name: MetricInstructions, Unit: result.UnitInstructions, Source: source, Cost: result.CostWork}
	for _, c := range counts {
		total.Values = append(total.Values, float64(c.Total))
	}
	if !goProgram {
		// A C++ program's count is the same to the last instruction run
		// after run (docs/noise.md).
		total.Gated, total.Threshold, total.Exact = true, threshold, true
		return []result.Metric{total}
	}
	// A Go program's total moves with its runtime's background work: the
	// gate judges its own instructions.
	own := result.Metric{Name: MetricOwnInstructions, Unit: result.UnitInstructions, Source: source + " (outside the Go runtime)",
		Cost: result.CostWork, Gated: true, Threshold: threshold}
	for _, c := range counts {
		own.Values = append(own.Values, float64(c.Own))
	}
	return []result.Metric{own, total}
}

// CountsGoProgram tells whether r's counts are a Go program's, as Metrics
// writes them (only a Go program's have its own instructions): its lines
// and figures are then weighed leaving its runtime out.
func CountsGoProgram(r *result.Result) bool { return r.Metric(MetricOwnInstructions) != nil }

// GoRuntime tells whether a Cachegrind function name is the Go runtime's:
// the functions the own figures leave out (Counts.Own).
func GoRuntime(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/")
}

// ReadFile reads a Cachegrind output file: an "events:" line, "fn=NAME"
// lines, each followed by "LINE COUNT..." lines, one count an event, and a
// "summary: TOTAL..." line. The events are Ir alone (--cache-sim=no) or
// the cache simulation's (CacheEvents, --cache-sim=yes).
func ReadFile(path string) (Counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counts{}, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a Cachegrind output as ReadFile does; path names it in
// errors.
func Parse(r io.Reader, path string) (Counts, error) {
	return ParseLines(r, path, nil)
}

// A LineCount is one line of a Cachegrind output: the events of one
// source line within one function, by Cachegrind's names for its file
// (as the debug information gives it: "./go/havlak6/havlak.go",
// "/proc/self/cwd/cc/havlak6cc/havlak.cc", "???") and for the function.
// A line may run in several functions (inlined into each) and a function
// in several files.
type LineCount struct {
	File, Function string
	Line           uint64
	Events         Events
}

// ParseLines reads a Cachegrind output as Parse does and, when each is
// not nil, calls it with each line of counts in the file's order, so
// that a caller keeps them (package linecounts) while the counts are
// checked against the summary here, once.
func ParseLines(r io.Reader, path string, each func(LineCount)) (Counts, error) {
	c := Counts{Functions: map[string]uint64{}}
	var sum Events
	var fn, fl string
	var columns []int // the Events index of each count of a line
	summary, inRuntime := false, false
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<20)
	for line := 1; s.Scan(); line++ {
		text := s.Text()
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", path, line, why, text) }
		switch {
		case strings.HasPrefix(text, "events:"):
			var err error
			if columns, err = parseEvents(strings.TrimPrefix(text, "events:")); err != nil {
				return c, bad(err.Error())
			}
			if len(columns) > 1 {
				c.Cache = &Cache{}
				c.FunctionEvents = map[string]Events{}
			}
		case strings.HasPrefix(text, "fl="):
			fl = strings.TrimPrefix(text, "fl=")
		case strings.HasPrefix(text, "fn="):
			fn = strings.TrimPrefix(text, "fn=")
			inRuntime = GoRuntime(fn)
		case strings.HasPrefix(text, "summary:"):
			total, err := parseCounts(strings.Fields(strings.TrimPrefix(text, "summary:")), columns)
			if err != nil {
				return c, bad(err.Error())
			}
			c.Total, summary = total[Ir], true
			if c.Cache != nil {
				c.Cache.Total = total
			}
		case text != "" && text[0] >= '0' && text[0] <= '9':
			fields := strings.Fields(text)
			if len(fields) < 2 {
				return c, bad("want LINE COUNT...")
			}
			n, err := parseCounts(fields[1:], columns)
			if err != nil {
				return c, bad(err.Error())
			}
			sum.Add(n)
			if each != nil {
				at, err := strconv.ParseUint(fields[0], 10, 64)
				if err != nil {
					return c, bad("want LINE COUNT...")
				}
				each(LineCount{File: fl, Function: fn, Line: at, Events: n})
			}
			c.Functions[fn] += n[Ir]
			if c.FunctionEvents != nil {
				e := c.FunctionEvents[fn]
				e.Add(n)
				c.FunctionEvents[fn] = e
			}
			if !inRuntime {
				c.Own += n[Ir]
				if c.Cache != nil {
					c.Cache.Own.Add(n)
				}
			}
		}
	}
	if err := s.Err(); err != nil {
		return c, err
	}
	switch {
	case !summary:
		return c, fmt.Errorf("%s: no summary line: not a whole Cachegrind output", path)
	case sum[Ir] != c.Total:
		return c, fmt.Errorf("%s: the functions' counts add up to %d, the summary says %d", path, sum[Ir], c.Total)
	case c.Cache != nil && sum != c.Cache.Total:
		return c, fmt.Errorf("%s: the functions' events add up to %v, the summary says %v", path, sum, c.Cache.Total)
	}
	return c, nil
}

// Profile is the counts as a pprof profile of one sample type,
// "instructions", with a sample per function (no call stacks: Cachegrind
// without --dump-instr attributes instructions to the function that ran
// them), so that pprof's tools, -diff_base among them, read them.
func (c Counts) Profile() *profile.Profile {
	return functionProfile(result.UnitInstructions, result.UnitInstructions, c.Functions)
}

// functionProfile is a profile of one sample type with a sample per
// function of weights.
func functionProfile(sampleType, unit string, weights map[string]uint64) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: sampleType, Unit: unit}}}
	names := make([]string, 0, len(weights))
	for name := range weights {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		f := &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name}
		l := &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l}, Value: []int64{int64(min(weights[name], 1<<62))}})
	}
	return p
}
