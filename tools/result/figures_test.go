package result

import (
	"strings"
	"testing"
)

func TestReadGoBench(t *testing.T) {
	data := []byte("goos: linux\n" +
		"BenchmarkNaive/path=root-2 \t 1000\t 1200 ns/op\t 64 B/op\t 2 allocs/op\n" +
		"BenchmarkNaive/path=root-2 \t 1000\t 1300 ns/op\t 64 B/op\t 2 allocs/op\n" +
		"PASS\n")
	lines, _, err := ReadGoBench(data, "bench.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	if got := lines[1].Name.String(); got != "Naive/path=root-2" {
		t.Errorf("name %q, want Naive/path=root-2", got)
	}
	if v := lines[1].Values[0]; v.Value != 1.3e-6 || v.Unit != "sec/op" {
		t.Errorf("first value %v %s, want 1.3e-06 sec/op", v.Value, v.Unit)
	}

	for what, c := range map[string]struct{ data, want string }{
		"syntax error": {"BenchmarkNaive 1000 12 ns/op 5\n", "bench.txt:1: "},
		"no lines":     {"goos: linux\nPASS\n", "bench.txt: no benchmark lines"},
	} {
		_, _, err := ReadGoBench([]byte(c.data), "bench.txt")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one starting %q", what, err, c.want)
		}
	}
}

// A program's minor faults are a figure when every run recorded them.
func TestMinorFaultsFigure(t *testing.T) {
	faults := func(n int64) *int64 { return &n }
	r := &Result{Benchmark: Benchmark{Kind: KindProgram}, Timing: &Timing{Runs: []Run{
		{Usage: Usage{RealSeconds: 1}, MinorFaults: faults(5000)},
		{Usage: Usage{RealSeconds: 1}, MinorFaults: faults(5002)},
	}}}
	figure := func() *Figure {
		figs, err := Figures(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range figs {
			if figs[i].Name == "minor_faults" {
				return &figs[i]
			}
		}
		return nil
	}
	if f := figure(); f == nil || f.Unit != "faults" || f.Class != ClassCount || f.Cost != CostMemory || len(f.Values) != 2 || f.Values[1] != 5002 {
		t.Errorf("minor_faults: %+v", f)
	}
	r.Timing.Runs[1].MinorFaults = nil
	if f := figure(); f != nil {
		t.Errorf("a run without minor faults: %+v, want no figure", f)
	}
}
