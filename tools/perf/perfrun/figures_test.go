package perfrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// judge judges a figure of new against old as the gate does.
func judge(t *testing.T, old, new []result.Metric, name string) verdict.Verdict {
	t.Helper()
	for _, o := range old {
		for _, n := range new {
			if o.Name == name && n.Name == name {
				return verdict.Judge(name, n.Unit, o.Values, n.Values, verdict.CountRule(max(o.Threshold, n.Threshold), o.Gated && n.Gated)).WithCost(n.Cost)
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return verdict.Verdict{}
}

// One more write(2) per run is caught by write_syscalls, gated, naming
// the cost; the same calls run after run are not.
func TestSyscallMetrics(t *testing.T) {
	runs := func(reads, writes int64) []result.Run {
		var rs []result.Run
		for range 5 {
			rs = append(rs, result.Run{Syscalls: &result.Syscalls{Read: reads, Write: writes}})
		}
		return rs
	}
	base := syscallMetrics(runs(6, 20))
	if v := judge(t, base, syscallMetrics(runs(6, 20)), metricWriteSyscalls); v.Outcome != verdict.Unchanged {
		t.Errorf("the same calls: %v", v)
	}
	v := judge(t, base, syscallMetrics(runs(6, 21)), metricWriteSyscalls)
	if !v.Fails() || v.Cost != result.CostSystemCalls {
		t.Errorf("one more write: %v; want a gated regression, a cost of system calls", v)
	}
	// A run whose calls could not be read leaves the figures unavailable,
	// never gated on part of the runs.
	missing := runs(6, 20)
	missing[3] = result.Run{SyscallsUnavailable: "open /proc/1/io: no such file or directory"}
	for _, m := range syscallMetrics(missing) {
		if m.Gated || m.Values != nil || !strings.Contains(m.Unavailable, "timed run 4: open /proc/1/io") {
			t.Errorf("%s: %+v: want unavailable, naming the run", m.Name, m)
		}
	}
}

func TestExactSyscallsGODEBUG(t *testing.T) {
	if got := exactSyscallsGODEBUG(""); got != "GODEBUG=updatemaxprocs=0" {
		t.Errorf("no GODEBUG: %q", got)
	}
	if got := exactSyscallsGODEBUG("gctrace=1"); got != "GODEBUG=gctrace=1,updatemaxprocs=0" {
		t.Errorf("GODEBUG=gctrace=1: %q", got)
	}
}

// The counted runs' allocations are gated exactly when the benchmark
// declares them exact; 2% more objects are then caught.
func TestCountedAllocMetrics(t *testing.T) {
	measured := func(exact bool, objects ...uint64) []result.Metric {
		dir := t.TempDir()
		var lines []string
		for _, n := range objects {
			line, _ := json.Marshal(runtimemetrics.Figures{AllocBytes: 100 * n, AllocObjects: n})
			lines = append(lines, string(line))
		}
		if err := os.WriteFile(filepath.Join(dir, countedRuntimeMetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		p := &program{bench: &bench{out: dir}, Program: &perfspec.Program{ExactAllocations: exact}}
		return p.countedAllocMetrics(len(objects))
	}
	base := measured(true, 1000, 1000, 1000)
	v := judge(t, base, measured(true, 1020, 1020, 1020), metricCountedAllocObjects)
	if !v.Fails() || v.Cost != result.CostMemoryManagement {
		t.Errorf("2%% more objects: %v; want a gated regression, a cost of memory management", v)
	}
	if v := judge(t, measured(false, 1000), measured(false, 1100), metricCountedAllocObjects); v.Fails() {
		t.Errorf("not declared exact: %v; want shown, not gated", v)
	}
	// No figures recorded: unavailable, not gated.
	p := &program{bench: &bench{out: t.TempDir()}, Program: &perfspec.Program{ExactAllocations: true}}
	if got := p.countedAllocMetrics(3); got[0].Gated || !strings.Contains(got[0].Unavailable, "recorded none") {
		t.Errorf("without figures: %+v", got[0])
	}
}

// A server's figures per request: each round's difference over its
// requests; 2% more allocations per request are caught, a round whose
// counts could not be read makes them unavailable.
func TestPerRequestMetrics(t *testing.T) {
	at := func(objects uint64, calls int64) serverCounts {
		return serverCounts{figures: runtimemetrics.Figures{AllocObjects: objects, AllocBytes: 100 * objects},
			syscalls: result.Syscalls{Read: calls, Write: calls}}
	}
	rounds := func(perRequest uint64) []roundCost {
		return []roundCost{
			{before: at(500, 10), after: at(500+1000*perRequest, 10+3000), requests: 1000},
			{before: at(900000, 5000), after: at(900000+2000*perRequest, 5000+6000), requests: 2000},
		}
	}
	base := perRequestMetrics(rounds(17), 1)
	for _, m := range base[:3] { // the counts; the contention is a timing, shown (contention_test.go)
		if !m.Gated || len(m.Values) != 2 {
			t.Errorf("%s: %+v: want gated, a value a round", m.Name, m)
		}
	}
	if m := base[0]; m.Name != metricAllocObjectsPerRequest || m.Values[0] != 17 || m.Values[1] != 17 {
		t.Errorf("%+v: want 17 objects a request in both rounds", m)
	}
	if m := base[2]; m.Name != metricSyscallsPerRequest || m.Values[0] != 6 {
		t.Errorf("%+v: want 6 calls a request (3 reads, 3 writes)", m)
	}
	more := perRequestMetrics(rounds(17), 1)
	for i := range more[0].Values {
		more[0].Values[i] *= 1.02
	}
	if v := judge(t, base, more, metricAllocObjectsPerRequest); !v.Fails() || v.Cost != result.CostMemoryManagement {
		t.Errorf("2%% more objects a request: %v", v)
	}
	broken := rounds(17)
	broken[1].after.noFigures = "GET /debug/runtime-metrics: 404 Not Found"
	if m := perRequestMetrics(broken, 1)[0]; m.Gated || !strings.Contains(m.Unavailable, "round 2: GET") {
		t.Errorf("a round without figures: %+v", m)
	}
}
