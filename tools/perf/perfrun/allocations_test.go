package perfrun

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// allocateArg, followed by a number, makes this test binary the helper of
// TestAllocationsAreCaught: it allocates as many 64-byte objects as the
// number says, records its runtime figures as a lab program does at exit,
// and prints how many it kept. An argument, not a variable: counted runs
// get PATH alone (CountEnvironment).
const allocateArg = "allocate="

var sink [][64]byte

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && strings.HasPrefix(os.Args[1], allocateArg) {
		n, err := strconv.Atoi(strings.TrimPrefix(os.Args[1], allocateArg))
		if err != nil {
			os.Exit(2)
		}
		for range n {
			sink = make([][64]byte, 1) // an object of 64 bytes a turn
		}
		fmt.Println("kept", len(sink))
		if err := runtimemetrics.Record(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A Go program that allocates 2% more objects is caught by its counted
// runs' allocations, measured as the runner measures them (under
// Cachegrind, the collector off), when its benchmark declares them exact;
// the same program measured again is not.
func TestAllocationsAreCaught(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	measure := func(objects string, runs int) []result.Metric {
		p := &program{
			bench: &bench{Spec: &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "allocate"}}},
				binary: exe, out: t.TempDir()},
			Program: &perfspec.Program{Profiler: "go", ExactAllocations: true,
				Counted: &perfspec.Counted{Args: []string{allocateArg + objects}, Expect: "^kept 1$", Repetitions: runs}},
		}
		p.bench.Spec.Program = p.Program
		metrics, err := p.countedRuns()
		if err != nil {
			t.Fatal(err)
		}
		checkLineCounts(t, p, metrics)
		return metrics
	}
	base := measure("100000", 2)
	if v := judge(t, base, measure("100000", 1), metricCountedAllocObjects); v.Outcome != verdict.Unchanged {
		t.Errorf("the same program: %v", v)
	}
	v := judge(t, base, measure("102000", 1), metricCountedAllocObjects)
	if !v.Fails() || v.Cost != result.CostMemoryManagement {
		t.Errorf("2%% more objects: %v; want a gated regression, a cost of memory management", v)
	}
	t.Logf("caught: %v", v)
}

// checkLineCounts checks that the counted runs kept their first run's
// counts per line, which add up to that run's instructions and cache
// events.
func checkLineCounts(t *testing.T, p *program, metrics []result.Metric) {
	t.Helper()
	if p.lineCounts != linecounts.FileName {
		t.Fatalf("the counted runs kept line counts in %q, want %q", p.lineCounts, linecounts.FileName)
	}
	data, err := os.ReadFile(p.outPath(p.lineCounts))
	if err != nil {
		t.Fatal(err)
	}
	f, err := linecounts.Read(bytes.NewReader(data), p.lineCounts)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Counts()
	for _, m := range metrics {
		want := map[string]uint64{"instructions": c.Total, "d1_misses": c.Cache.Own.D1Misses()}[m.Name]
		if want != 0 && m.Values[0] != float64(want) {
			t.Errorf("the first run's %s: %v, its line counts add up to %d", m.Name, m.Values[0], want)
		}
	}
}
