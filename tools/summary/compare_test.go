package summary

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// program is a program's side: its gated instruction count (three equal
// runs) and its real time over six runs.
func program(name string, instructions, seconds float64) Side {
	return Side{Benchmark: result.Benchmark{Name: name, Kind: result.KindProgram, Workload: result.Workload{Name: result.WorkloadQuick}},
		Side: verdict.Side{Source: name + "/outputs.zip", Figures: []result.Figure{
			{Name: "instructions", Unit: "instructions", Gated: true, Exact: true, Class: result.ClassCount, Better: result.LowerIsBetter,
				Values: []float64{instructions, instructions, instructions}},
			{Name: "real_seconds", Unit: "s", Class: result.ClassTiming, Better: result.LowerIsBetter,
				Values: []float64{seconds, seconds * 1.01, seconds * 0.99, seconds * 1.02, seconds * 0.98, seconds}},
		}}}
}

// server is a server's side: its throughput over six rounds, which the
// lab's policy gates.
func server(name string, throughput float64) Side {
	return Side{Benchmark: result.Benchmark{Name: name, Kind: result.KindServer, Workload: result.Workload{Name: result.WorkloadQuick}},
		Side: verdict.Side{Source: name + "/outputs.zip", Figures: []result.Figure{
			{Name: "throughput", Unit: "requests/s", Class: result.ClassTiming, Better: result.HigherIsBetter, Gated: true,
				Values: []float64{throughput, throughput * 1.01, throughput * 0.99, throughput * 1.02, throughput * 0.98, throughput}},
		}}}
}

func find(t *testing.T, s *Summary, name string) Benchmark {
	t.Helper()
	for _, b := range s.Benchmarks {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no benchmark %s in %+v", name, s.Benchmarks)
	return Benchmark{}
}

func TestCompare(t *testing.T) {
	base := []Side{program("havlak6", 1e9, 2), program("havlak7", 3e8, 1), server("router", 20000), program("wc1", 1e6, 1)}
	change := []Side{program("havlak6", 1.05e9, 2), program("havlak7", 3e8, 1), server("router", 10000), program("new", 1, 1)}
	opts := Options{Policy: verdict.Lab, Retire: []string{"wc1"}}
	s, err := Compare("report", "base/", base, change, opts)
	if err != nil {
		t.Fatal(err)
	}
	if b := find(t, s, "havlak6"); !b.Fails() || b.Outcome != verdict.Regressed || len(b.Failing()) != 1 || b.Failing()[0].Figure != "instructions" {
		t.Errorf("havlak6, 5%% more instructions: %+v", b)
	}
	if b := find(t, s, "havlak7"); b.Fails() || b.Outcome != verdict.Unchanged {
		t.Errorf("havlak7, unchanged: %+v", b)
	}
	if b := find(t, s, "router"); !b.Fails() || b.Failing()[0].Figure != "throughput" {
		t.Errorf("router, half the throughput: %+v", b)
	}
	if b := find(t, s, "new"); b.Fails() || b.Outcome != verdict.NotComparable || b.Note != "not in the baseline" {
		t.Errorf("new: %+v", b)
	}
	if b := find(t, s, "wc1"); b.Fails() || !b.Retired || b.Outcome != verdict.Missing {
		t.Errorf("wc1, retired: %+v", b)
	}
	if s.Status() != verdict.StatusRegressed {
		t.Errorf("status %d", s.Status())
	}
	if b := find(t, s, "havlak6"); len(b.Values) != 2 || b.Values[0].Figure != "real_seconds" {
		t.Errorf("havlak6's values, its real time first: %+v", b.Values)
	}

	// The same regressions, accepted by a commit's trailers: a server's
	// as well as a program's (the report once failed an accepted server
	// regression).
	opts.Accepted = []verdict.Acceptance{
		{Benchmark: "havlak6", Figure: "instructions", Reason: "a pass that pays for itself"},
		{Benchmark: "router", Figure: "throughput", Reason: "a lock for correctness"},
	}
	s, err = Compare("report", "base/", base, change, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"havlak6", "router"} {
		if b := find(t, s, name); b.Fails() || len(b.Accepted) != 1 || b.Outcome != verdict.Regressed {
			t.Errorf("%s, accepted: %+v", name, b)
		}
	}
	if s.Status() != verdict.StatusOK {
		t.Errorf("accepted regressions: status %d", s.Status())
	}

	// Without the retirement, wc1 is missing, and fails.
	opts.Retire = nil
	if s, err = Compare("report", "base/", base, change, opts); err != nil {
		t.Fatal(err)
	}
	if b := find(t, s, "wc1"); !b.Fails() || b.Retired || !strings.Contains(b.Note, "wc1/outputs.zip") {
		t.Errorf("wc1, missing: %+v", b)
	}
	// A retirement of a benchmark still measured is refused.
	opts.Retire = []string{"havlak7"}
	if _, err := Compare("report", "base/", base, change, opts); err == nil || !strings.Contains(err.Error(), "still measured") {
		t.Errorf("retiring a benchmark still measured: %v", err)
	}
}

func TestCompareSameIdentity(t *testing.T) {
	id := &result.Identity{BinarySHA256: strings.Repeat("a", 64), RunSHA256: strings.Repeat("b", 64)}
	base, change := program("havlak6cc", 1e9, 2), program("havlak6cc", 1e9, 2)
	base.Identity, change.Identity = id, id
	s, err := Compare("report", "", []Side{base}, []Side{change}, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Benchmarks[0]; !b.SameIdentity || b.Fails() || !strings.Contains(b.Note, "noise floor") {
		t.Errorf("the same binary and run: %+v", b)
	}
	// An exact count that differs between two measurements of the same
	// binary and run fails, and no acceptance excuses it.
	change = program("havlak6cc", 1.2e9, 2)
	change.Identity = id
	s, err = Compare("report", "", []Side{base}, []Side{change}, Options{Policy: verdict.Lab,
		Accepted: []verdict.Acceptance{{Benchmark: "havlak6cc", Figure: "instructions", Reason: "trust me"}}})
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Benchmarks[0]; !b.Fails() || b.Outcome != verdict.Inconsistent || !strings.Contains(b.Note, "inconsistent") {
		t.Errorf("an exact count differs under one identity: %+v", b)
	}
}

func TestCompareCountsOnly(t *testing.T) {
	base, change := program("havlak6", 1e9, 2), program("havlak6", 1e9, 20)
	s, err := Compare("perfcheck", "", []Side{base}, []Side{change}, Options{Policy: verdict.Lab, CountsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	b := s.Benchmarks[0]
	if b.Fails() || len(b.Figures) != 1 || b.Figures[0].Figure != "instructions" || len(b.Values) != 1 {
		t.Errorf("counts only, ten times the time: %+v", b)
	}
}

func TestCompareEnvironment(t *testing.T) {
	base, change := program("havlak6", 1e9, 2), program("havlak6", 1e9, 20)
	base.Environment = &result.Environment{Machine: result.Machine{CPUModel: "one"}}
	change.Environment = &result.Environment{Machine: result.Machine{CPUModel: "another"}}
	s, err := Compare("report", "", []Side{base}, []Side{change}, Options{Policy: verdict.Lab})
	if err != nil {
		t.Fatal(err)
	}
	b := s.Benchmarks[0]
	if !b.EnvironmentChanged() || b.Fails() || !strings.Contains(b.Note, "only the figures it cannot change") {
		t.Errorf("another machine: %+v", b)
	}
	if s.Status() != verdict.StatusNotComparable {
		t.Errorf("status %d", s.Status())
	}
}

func TestCompareRefusesTwins(t *testing.T) {
	twins := []Side{program("havlak6", 1, 1), program("havlak6", 2, 1)}
	if _, err := Compare("report", "", nil, twins, Options{Policy: verdict.Lab}); err == nil || !strings.Contains(err.Error(), "two results of benchmark havlak6") {
		t.Errorf("two results of one benchmark: %v", err)
	}
}

func TestUncompared(t *testing.T) {
	s := Uncompared("report", []Side{program("havlak6", 1e9, 2), server("router", 100)}, Options{})
	if len(s.Benchmarks) != 2 || s.Status() != verdict.StatusOK || s.Benchmarks[1].Values[0].Figure != "throughput" {
		t.Errorf("no baseline: %+v", s)
	}
}

// The regression suite's reruns are judged as changes: their noise against
// the thresholds, not the noise floor.
func TestCompareIgnoreIdentity(t *testing.T) {
	id := &result.Identity{BinarySHA256: strings.Repeat("a", 64), RunSHA256: strings.Repeat("b", 64)}
	base, change := program("havlak6cc", 1e9, 2), program("havlak6cc", 1.2e9, 2)
	base.Identity, change.Identity = id, id
	opts := Counted(nil)
	opts.IgnoreIdentity = true
	b, err := CompareOne(base, change, opts)
	if err != nil {
		t.Fatal(err)
	}
	if b.SameIdentity || b.Outcome != verdict.Regressed || !b.Fails() || len(b.Figures) != 1 {
		t.Errorf("a rerun 20%% off, judged as a change: %+v", b)
	}
}
