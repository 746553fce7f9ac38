package perfrun

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// allocateEnv makes this test binary the helper of
// TestAllocationsAreCaught: it allocates as many 64-byte objects as its
// first argument says, records its runtime figures as a lab program does
// at exit, and prints how many it kept.
const allocateEnv = "RUNNER_TEST_ALLOCATE"

var sink [][64]byte

func TestMain(m *testing.M) {
	if os.Getenv(allocateEnv) != "" {
		n, err := strconv.Atoi(os.Args[1])
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
	t.Setenv(allocateEnv, "1")
	measure := func(objects string, runs int) []result.Metric {
		p := &program{
			bench: &bench{Spec: &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "allocate"}}},
				binary: exe, out: t.TempDir()},
			Program: &perfspec.Program{Profiler: "go", ExactAllocations: true,
				Counted: &perfspec.Counted{Args: []string{objects}, Expect: "^kept 1$", Repetitions: runs}},
		}
		p.bench.Spec.Program = p.Program
		metrics, err := p.countedRuns()
		if err != nil {
			t.Fatal(err)
		}
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
