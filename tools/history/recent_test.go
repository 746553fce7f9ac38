package history

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/result"
)

func checkRecent(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	dir := t.TempDir()
	sum := func(c string) string { return strings.Repeat(c, 64) }
	a := &result.Identity{BinarySHA256: sum("a"), RunSHA256: sum("1"), LabSHA256: sum("2")}
	b := &result.Identity{BinarySHA256: sum("b"), RunSHA256: sum("1"), LabSHA256: sum("2")}
	nights := ingestRecentNights(t, d, dir, a, b)
	key := result.EnvironmentKey(nights[0].result().Environment)
	own := result.FigureKey{Name: "own_instructions", Unit: "instructions"}
	q := RecentQuery{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, Identity: *a, N: MaxRecent}
	got, err := d.Recent(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	// The medians of a's results, newest first, and the sweeps of those
	// that have one.
	if got.Results != 4 || !slices.Equal(got.Medians[own], []float64{104.5, 103, 102, 100}) {
		t.Errorf("recent own instructions of a: %v (%d results), want 104.5 103 102 100", got.Medians[own], got.Results)
	}
	if real := got.Medians[result.FigureKey{Name: "real_seconds", Unit: "s"}]; len(real) != 4 {
		t.Errorf("recent real times: %v, want 4 medians", real)
	}
	if ks := perLoop(got.Sweeps["own_instructions"]); len(got.Sweeps) != 1 || !slices.Equal(ks, []float64{16, 14, 11}) {
		t.Errorf("recent sweeps of a: %d figures, own instructions' %v a loop, want c6's, c4's and c1's: 16 14 11", len(got.Sweeps), ks)
	}
	if s := got.Sweeps["own_instructions"]; len(s) > 0 && (!slices.Equal(s[0].Sizes(), sweepSizes) || s[0].Unit != "instructions" || s[0].Fit.Order != complexity.ON) {
		t.Errorf("c6's sweep as the history has it: %+v", s[0])
	}
	// Bounded: the two newest.
	q.N = 2
	if got, err := d.Recent(ctx, q); err != nil || got.Results != 2 || !slices.Equal(got.Medians[own], []float64{104.5, 103}) ||
		!slices.Equal(perLoop(got.Sweeps["own_instructions"]), []float64{16, 14}) {
		t.Errorf("the 2 newest: %+v, %v", got, err)
	}
	// Other environments, another identity: none, a's one on perf-2, and
	// b's one.
	q.N = MaxRecent
	if got, err := d.Recent(ctx, RecentQuery{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: "0123456789abcdef", Identity: *a, N: 5}); err != nil || got.Results != 0 || len(got.Medians) != 0 || len(got.Sweeps) != 0 {
		t.Errorf("another environment: %+v, %v", got, err)
	}
	other := RecentQuery{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: result.EnvironmentKey(nights[7].result().Environment), Identity: *a, N: 5}
	if other.EnvKey == key {
		t.Fatal("perf-2 has perf-1's environment key")
	}
	if got, err := d.Recent(ctx, other); err != nil || got.Results != 1 || !slices.Equal(got.Medians[own], []float64{107}) ||
		!slices.Equal(perLoop(got.Sweeps["own_instructions"]), []float64{18}) {
		t.Errorf("a on perf-2: %+v, %v", got, err)
	}
	q.Identity = *b
	if got, err := d.Recent(ctx, q); err != nil || got.Results != 1 || !slices.Equal(got.Medians[own], []float64{200}) ||
		!slices.Equal(perLoop(got.Sweeps["own_instructions"]), []float64{20}) {
		t.Errorf("b: %+v, %v", got, err)
	}
	// a's binary and run measured by another version of the lab: its
	// figures are not this lab's noise, and the history is not damaged.
	otherLab := *a
	otherLab.LabSHA256 = sum("3")
	ingest(t, d, night{commit: "c8b", identity: &otherLab, started: day0.Add(time.Duration(len(nights)) * 24 * time.Hour),
		real: []float64{1}, instrs: []float64{999}, origin: nightly}.write(t, filepath.Join(dir, "otherlab")))
	q.Identity = *a
	if got, err := d.Recent(ctx, q); err != nil || got.Results != 4 || !slices.Equal(got.Medians[own], []float64{104.5, 103, 102, 100}) {
		t.Errorf("a, with a newer result of its binary and run by another lab: %+v, %v; want a's 4 alone", got, err)
	}
	q.Identity = otherLab
	if got, err := d.Recent(ctx, q); err != nil || got.Results != 1 || !slices.Equal(got.Medians[own], []float64{999}) {
		t.Errorf("the other lab's: %+v, %v; want its one result", got, err)
	}
	// Only the series' recentScan newest results count: after that many
	// of another identity (c) on the nights after, a's are too old.
	c := &result.Identity{BinarySHA256: sum("c"), RunSHA256: sum("1"), LabSHA256: sum("2")}
	for i := range recentScan {
		n := night{commit: "c9", identity: c, started: day0.Add(time.Duration(len(nights)+1+i) * 24 * time.Hour),
			real: []float64{1}, instrs: []float64{1}, origin: nightly}
		if i == recentScan-1 {
			n.identity = a // the newest: the one of a that counts
		}
		ingest(t, d, n.write(t, filepath.Join(dir, fmt.Sprint("c", i))))
	}
	q.Identity = *a
	if got, err := d.Recent(ctx, q); err != nil || got.Results != 1 || !slices.Equal(got.Medians[own], []float64{1}) {
		t.Errorf("a after %d newer results: %+v, %v; want its newest only", recentScan, got, err)
	}
	for _, bad := range []RecentQuery{{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, Identity: *a},
		{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, Identity: *a, N: MaxRecent + 1},
		{Benchmark: "havlak6", Workload: result.WorkloadStandard, EnvKey: key, N: 3}} {
		if _, err := d.Recent(ctx, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// ingestRecentNights ingests into d, under dir, checkRecent's nights of
// identities a and b, and returns them.
func ingestRecentNights(t *testing.T, d *DB, dir string, a, b *result.Identity) []night {
	// Five nights of identity a (the last one's figures of other runs),
	// one of b between them, one without an identity, one of a of
	// another benchmark and one of a on another machine. Each sweeps its
	// own instructions, but c2, at k instructions a loop: k tells whose
	// sweep it is.
	linear := func(k float64) []float64 {
		var counts []float64
		for _, n := range sweepSizes {
			counts = append(counts, k*n)
		}
		return counts
	}
	nights := []night{
		{commit: "c1", identity: a, instrs: []float64{100, 101, 99}, sweep: linear(11)},
		{commit: "c2", identity: a, instrs: []float64{102, 102, 102}},
		{commit: "c3", identity: b, instrs: []float64{200, 200, 200}, sweep: linear(20)},
		{commit: "c4", identity: a, instrs: []float64{103}, sweep: linear(14)},
		{commit: "c5", sweep: linear(15)},
		{commit: "c6", identity: a, instrs: []float64{104, 105}, sweep: linear(16)},
		{commit: "c7", identity: a, instrs: []float64{106}, benchmark: "havlak7", sweep: linear(17)},
		{commit: "c8", identity: a, instrs: []float64{107}, hostname: "perf-2", sweep: linear(18)},
	}
	for i, n := range nights {
		n.started, n.real, n.origin = day0.Add(time.Duration(i)*24*time.Hour), []float64{1, 1.1}, nightly
		if n.instrs == nil {
			n.instrs = []float64{1}
		}
		ingest(t, d, n.write(t, filepath.Join(dir, fmt.Sprint(i))))
	}
	return nights
}

// perLoop is each sweep's count a loop, newest first: whose they are.
func perLoop(sweeps []result.Sweep) []float64 {
	var ks []float64
	for _, s := range sweeps {
		ks = append(ks, s.Points[0].Value/s.Points[0].N)
	}
	return ks
}
