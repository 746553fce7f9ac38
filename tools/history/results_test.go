package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Results selects stored results by benchmark and commit prefix, oldest
// first, bounded; a result whose files are gone still reads, and says
// where they were when one of them is asked for.
func checkResults(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	dir := t.TempDir()
	for i, commit := range []string{"aa11", "bb22", "aa33"} {
		n := night{commit: commit, started: day0.Add(time.Duration(i) * 24 * time.Hour), real: []float64{1, 1.1},
			instrs: []float64{100, 100}, origin: nightly}
		ingest(t, d, n.write(t, filepath.Join(dir, commit)))
	}
	other := night{benchmark: "havlak7", commit: "aa11", started: day0, real: []float64{0.5}, instrs: []float64{50}, origin: nightly}
	ingest(t, d, other.write(t, filepath.Join(dir, "havlak7")))

	got, err := d.Results(ctx, ResultQuery{Benchmark: "havlak6", Commit: "aa"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var commits []string
	for _, s := range got {
		commits = append(commits, s.Result.Environment.Source.Commit)
	}
	if strings.Join(commits, " ") != "aa11 aa33" || got[0].Result.Benchmark.Name != "havlak6" {
		t.Errorf("havlak6 at aa...: %v", commits)
	}
	// A night by its date: the results that started that day (UTC),
	// whatever their commit.
	nightOf := func(q ResultQuery) string {
		t.Helper()
		got, err := d.Results(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range got {
			names = append(names, s.Result.Benchmark.Name+"@"+s.Result.Environment.Source.Commit)
		}
		return strings.Join(names, " ")
	}
	second := day0.Add(24 * time.Hour)
	if got := nightOf(ResultQuery{}.Night(second.Add(20 * time.Hour))); got != "havlak6@bb22" {
		t.Errorf("the night of %s: %q, want havlak6@bb22", second.Format(time.DateOnly), got)
	}
	if got := nightOf(ResultQuery{Benchmark: "havlak7"}.Night(day0)); got != "havlak7@aa11" {
		t.Errorf("havlak7 on the night of %s: %q, want havlak7@aa11", day0.Format(time.DateOnly), got)
	}
	if got := nightOf(ResultQuery{}.Night(day0.AddDate(0, 0, -1))); got != "" {
		t.Errorf("the night before the first: %q, want none", got)
	}
	if got := nightOf(ResultQuery{Benchmark: "havlak6", From: second}); got != "havlak6@bb22 havlak6@aa33" {
		t.Errorf("havlak6 from %s on: %q", second, got)
	}
	// The commits of the newest results, newest first, each once.
	if recent, err := d.RecentCommits(ctx, 2); err != nil || len(recent) != 2 || recent[0].Name != "aa33" ||
		!recent[0].Last.Equal(day0.Add(48*time.Hour)) || recent[1].Name != "bb22" {
		t.Errorf("the 2 recent commits: %+v, %v; want aa33 (%s), bb22", recent, err, day0.Add(48*time.Hour))
	}
	if recent, err := d.RecentCommits(ctx, 10); err != nil || len(recent) != 3 || recent[2].Name != "aa11" {
		t.Errorf("the recent commits: %+v, %v; want aa33, bb22, aa11", recent, err)
	}
	// One result by its key.
	if one, err := d.Results(ctx, ResultQuery{SHA256: got[1].SHA256}, 1); err != nil || len(one) != 1 ||
		one[0].SHA256 != got[1].SHA256 || one[0].Source != got[1].Source {
		t.Errorf("the result %s: %d results, %v", got[1].SHA256, len(one), err)
	}
	if none := nightOf(ResultQuery{SHA256: strings.Repeat("0", 64)}); none != "" {
		t.Errorf("a result the history lacks: %q", none)
	}
	if _, err := d.Results(ctx, ResultQuery{}, 3); !errors.Is(err, ErrTooMany) {
		t.Errorf("4 results with a limit of 3: %v", err)
	}
	if _, err := d.Results(ctx, ResultQuery{Commit: "aa' OR 1=1 --"}, 10); err == nil || !strings.Contains(err.Error(), "letters and digits") {
		t.Errorf("a commit that is no commit: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "aa11")); err != nil {
		t.Fatal(err)
	}
	if _, err := got[0].Outputs().ReadFile("cpu.pb.gz"); err == nil || !strings.Contains(err.Error(), "no longer where they were ingested from") ||
		!strings.Contains(err.Error(), filepath.Join(dir, "aa11")) {
		t.Errorf("a read of a result whose files are gone: %v", err)
	}
}
