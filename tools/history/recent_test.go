package history

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/result"
)

func checkRecent(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	dir := t.TempDir()
	sum := func(c string) string { return strings.Repeat(c, 64) }
	a := &result.Identity{BinarySHA256: sum("a"), RunSHA256: sum("1")}
	b := &result.Identity{BinarySHA256: sum("b"), RunSHA256: sum("1")}
	// Five nights of identity a (the last one's figures of other runs),
	// one of b between them, one without an identity, and one of a of
	// another benchmark.
	nights := []night{
		{commit: "c1", identity: a, instrs: []float64{100, 101, 99}},
		{commit: "c2", identity: a, instrs: []float64{102, 102, 102}},
		{commit: "c3", identity: b, instrs: []float64{200, 200, 200}},
		{commit: "c4", identity: a, instrs: []float64{103}},
		{commit: "c5"},
		{commit: "c6", identity: a, instrs: []float64{104, 105}},
		{commit: "c7", identity: a, instrs: []float64{106}, benchmark: "havlak7"},
	}
	for i, n := range nights {
		n.started, n.real, n.origin = day0.Add(time.Duration(i)*24*time.Hour), []float64{1, 1.1}, nightly
		if n.instrs == nil {
			n.instrs = []float64{1}
		}
		ingest(t, d, n.write(t, filepath.Join(dir, fmt.Sprint(i))))
	}
	key := result.EnvironmentKey(nights[0].result().Environment)
	own := result.FigureKey{Name: "own_instructions", Unit: "instructions"}
	q := RecentQuery{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, Identity: *a, N: MaxRecent}
	got, n, err := d.Recent(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	// The medians of a's results, newest first.
	if n != 4 || !slices.Equal(got[own], []float64{104.5, 103, 102, 100}) {
		t.Errorf("recent own instructions of a: %v (%d results), want 104.5 103 102 100", got[own], n)
	}
	if real := got[result.FigureKey{Name: "real_seconds", Unit: "s"}]; len(real) != 4 {
		t.Errorf("recent real times: %v, want 4 medians", real)
	}
	// Bounded: the two newest.
	q.N = 2
	if got, n, err := d.Recent(ctx, q); err != nil || n != 2 || !slices.Equal(got[own], []float64{104.5, 103}) {
		t.Errorf("the 2 newest: %v, %d, %v", got[own], n, err)
	}
	// Another environment, another identity: none, and b's one.
	q.N = MaxRecent
	if got, n, err := d.Recent(ctx, RecentQuery{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: "0123456789abcdef", Identity: *a, N: 5}); err != nil || n != 0 || len(got) != 0 {
		t.Errorf("another environment: %v, %d, %v", got, n, err)
	}
	q.Identity = *b
	if got, n, err := d.Recent(ctx, q); err != nil || n != 1 || !slices.Equal(got[own], []float64{200}) {
		t.Errorf("b: %v, %d, %v", got[own], n, err)
	}
	for _, bad := range []RecentQuery{{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, Identity: *a},
		{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, Identity: *a, N: MaxRecent + 1},
		{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, N: 3}} {
		if _, _, err := d.Recent(ctx, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
