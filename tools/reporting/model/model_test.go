package model

import (
	"strings"
	"testing"

	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// A result of a made-up benchmark, with its real times.
func made(name, workload, description string, reals ...float64) *Result {
	r := &Result{Benchmark: result.Benchmark{
		Name: name, Kind: result.KindProgram, Study: "Made-up", Language: "Go", Reference: "a",
		Workload: result.Workload{Name: workload, Description: description},
	}}
	for _, s := range reals {
		r.Runs = append(r.Runs, result.Run{Usage: result.Usage{RealSeconds: s, MaxRSSKiB: 1024}})
	}
	r.Side, _ = summary.NewSide(&result.Result{Benchmark: r.Benchmark, Timing: &result.Timing{Runs: r.Runs}}, nil, name)
	return r
}

func TestLeftOutText(t *testing.T) {
	set := &Set{Workload: result.WorkloadStandard, LeftOut: []LeftOut{
		{Name: "b", Workload: result.WorkloadQuick},
		{Name: "a", Workload: result.WorkloadQuick},
		{Name: "b", Workload: result.WorkloadQuick},
		{Name: "c", Workload: result.WorkloadStandard, Older: true},
	}}
	want := []string{
		"Left out: 3 results of the quick workload (a, b ×2), whose timings do not compare with the standard workload's; --workload quick reports them instead.",
		"Left out: 1 result of benchmarks that have a newer result, which is reported (c).",
	}
	if got := set.LeftOutText(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("LeftOutText:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := (&Set{}).LeftOutText(); len(got) != 0 {
		t.Errorf("nothing left out: %q", got)
	}
}

// A study's caption names its own rows' workloads, each description once.
func TestStudyWorkload(t *testing.T) {
	r := New(&Set{Workload: result.WorkloadQuick, Results: []*Result{
		made("a", "quick", "small", 2, 2, 2),
		made("b", "quick", "tiny", 1, 1, 1),
		made("c", "quick", "small", 4, 4, 4),
	}})
	if len(r.Studies) != 1 || len(r.Studies[0].Rows) != 3 {
		t.Fatalf("studies: %+v", r.Studies)
	}
	if got, want := r.Studies[0].Workload(), "Quick workload: small or tiny."; got != want {
		t.Errorf("Workload() = %q, want %q", got, want)
	}
	if got := r.Studies[0].Rows[1].SpeedUp; got != 2 {
		t.Errorf("b's speed-up over a: %v, want 2", got)
	}
	if !r.Quick() || !strings.HasPrefix(r.WorkloadNote(), "Quick workloads: ") {
		t.Errorf("Quick() %v, WorkloadNote() %q", r.Quick(), r.WorkloadNote())
	}
}
