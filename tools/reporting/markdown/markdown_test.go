package markdown

import (
	"strings"
	"testing"

	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
)

// table.md of a made-up study of two benchmarks: its caption, its
// workload, and the figures of each row.
func TestWriteTable(t *testing.T) {
	var results []*model.Result
	for i, name := range []string{"slow", "fast"} {
		r := &model.Result{Benchmark: result.Benchmark{
			Name: name, Kind: result.KindProgram, Study: "Made-up", Language: "Go", Reference: "slow",
			Workload: result.Workload{Name: result.WorkloadStandard, Description: "a made-up input"},
		}}
		for _, real := range []float64{2, 3, 4} {
			r.Runs = append(r.Runs, result.Run{Usage: result.Usage{RealSeconds: real / float64(i+1), UserSeconds: 1, SysSeconds: 0.5, MaxRSSKiB: 2048}})
		}
		var err error
		if r.Side, err = summary.NewSide(&result.Result{Benchmark: r.Benchmark, Timing: &result.Timing{Runs: r.Runs}}, nil, name); err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	var b strings.Builder
	WriteTable(&b, model.New(&model.Set{Workload: result.WorkloadStandard, Results: results}))
	want := `**Made-up**

Standard workload: a made-up input.

| benchmark | language | real s, median (min–max) | user s | sys s | max RSS MiB | speed-up over slow |
|---|---|---:|---:|---:|---:|---:|
| slow | Go | 3.00 (2.00–4.00) | 1.00 (1.00–1.00) | 0.50 (0.50–0.50) | 2 (2–2) | 1.00× |
| fast | Go | 1.50 (1.00–2.00) | 1.00 (1.00–1.00) | 0.50 (0.50–0.50) | 2 (2–2) | 2.00× |
`
	if b.String() != want {
		t.Errorf("table.md:\n%s\nwant\n%s", b.String(), want)
	}
}
