package night

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/changepoint/otavatest"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightly/nightdir"
	"havlak-lab/tools/nightly/runrecord"
	"havlak-lab/tools/nightly/shard"
)

// withPersonalHistory gives the gate a personal history in a new
// directory, which it returns: its archive takes every run's record.
func withPersonalHistory(t *testing.T) (string, func(o *GateOptions)) {
	t.Helper()
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "history.sqlite")
	db, err := history.Create(context.Background(), dsn, history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	otava := otavatest.Command(t, filepath.Join("..", "..", "ci", "tools.sh"))
	return dir, func(o *GateOptions) { o.Otava, o.HistoryDir, o.History = otava, dir, dsn }
}

// archivedRuns reads the run records of the history's archive, by night.
func archivedRuns(t *testing.T, historyDir string) map[string]*runrecord.Record {
	t.Helper()
	records, _ := filepath.Glob(filepath.Join(historyDir, history.NightsDir, "*", nightdir.Run))
	runs := map[string]*runrecord.Record{}
	for _, path := range records {
		r, err := runrecord.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		runs[filepath.Base(filepath.Dir(path))] = r
	}
	return runs
}

// nightly gate records its run: a good night's record, in its artifacts
// and beside its archived results, says it passed, with every result,
// its commit, no shard, and that it became the baseline.
func TestGateRecordsTheRun(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir, withHistory := withPersonalHistory(t)
	night := makeNight(t, nightSpec{allocs: 1, commit: "0123456789abcdef0123456789abcdef01234567"})
	status, log := gateNight(t, filepath.Join(t.TempDir(), "baseline"), night, withHistory)
	if status != 0 {
		t.Fatalf("the night: exit status %d:\n%s", status, log)
	}
	r, err := runrecord.Read(filepath.Join(night, nightdir.Run))
	if err != nil {
		t.Fatalf("the night's artifacts hold no run record: %v\n%s", err, log)
	}
	if r.Status != runrecord.Passed || r.ExitStatus != 0 || r.Results != 8 || r.Unreadable != 0 || r.Sharded ||
		!r.Promoted || r.Commit != "0123456789abcdef0123456789abcdef01234567" || r.Duration() < 0 {
		t.Errorf("the record: %+v; want passed, 8 results, unsharded, promoted, its commit", r)
	}
	runs := archivedRuns(t, historyDir)
	if len(runs) != 1 {
		t.Fatalf("the archive holds %d run records, want 1:\n%s", len(runs), log)
	}
	for name, archived := range runs {
		if !strings.HasSuffix(name, "-0123456789ab") || archived.Status != runrecord.Passed || !archived.Finished.Equal(r.Finished) {
			t.Errorf("the archived record %s: %+v, want the artifacts' %+v", name, archived, r)
		}
		if !isFile(filepath.Join(historyDir, history.NightsDir, name, "explodepath_test", "outputs.zip")) {
			t.Errorf("the record is not beside the night's archived results in %s", name)
		}
	}
	// The gate run again on the same artifacts takes its record for its own.
	if status, log := gateNight(t, filepath.Join(t.TempDir(), "baseline"), night, withHistory); status != 0 {
		t.Errorf("the night gated again: exit status %d:\n%s", status, log)
	}
}

// nightly merge records which shards reported, which failed and which
// never did, naming their benchmarks without a result; and a night whose
// every shard failed, which archived nothing, is recorded in the archive
// all the same: no results, failed.
func TestMergeRecordsTheShards(t *testing.T) {
	baseline, mapFile := firstShardedNight(t)
	m, err := shard.Read(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	historyDir, withHistory := withPersonalHistory(t)
	merge := func(shards string) (int, string, string) {
		t.Helper()
		var out bytes.Buffer
		o := gateOptions(baseline, filepath.Join(t.TempDir(), "artifacts"), &out)
		withHistory(&o)
		status := cli.Report(&out, "nightly", MergeNight(MergeOptions{Map: mapFile, Shards: shards, Gate: o}))
		return status, out.String(), o.Artifacts
	}

	shards, _ := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	os.RemoveAll(filepath.Join(shards, ShardDir(2)))
	writeStatus(t, shards, 1, 3)
	lost := m.Shards[1].Benchmarks[0]
	os.RemoveAll(filepath.Join(shards, ShardDir(1), shard.TestName(lost.Test)))
	status, log, merged := merge(shards)
	if status == 0 {
		t.Fatalf("a failed shard: exit status 0:\n%s", log)
	}
	r, err := runrecord.Read(filepath.Join(merged, nightdir.Run))
	if err != nil {
		t.Fatalf("no run record: %v\n%s", err, log)
	}
	if r.Status != runrecord.Failed || r.ExitStatus != 1 || !r.Sharded || len(r.Shards) != 3 || r.Reported() != 1 || r.Promoted ||
		!slices.Contains(r.Reasons, "the night is incomplete: 2 shards failed or never reported") {
		t.Fatalf("the record: %+v; want failed, 3 shards, 1 reported, not promoted", r)
	}
	want := []runrecord.Shard{
		{Index: 0, State: runrecord.Reported, Expected: len(m.Shards[0].Benchmarks), Results: len(m.Shards[0].Benchmarks)},
		{Index: 1, State: runrecord.ShardFailed, Why: "its tests ended TESTS_FAILED (exit status 3)", Expected: len(m.Shards[1].Benchmarks),
			Results: len(m.Shards[1].Benchmarks) - 1, Missing: []string{lost.Name}},
		{Index: 2, State: runrecord.Missing, Why: "never reported", Expected: len(m.Shards[2].Benchmarks)},
	}
	for _, b := range m.Shards[2].Benchmarks {
		want[2].Missing = append(want[2].Missing, b.Name)
	}
	for i, s := range r.Shards {
		if s.Index != want[i].Index || s.State != want[i].State || s.Why != want[i].Why || s.Expected != want[i].Expected ||
			s.Results != want[i].Results || !slices.Equal(s.Missing, want[i].Missing) {
			t.Errorf("shard %d: %+v, want %+v", i, s, want[i])
		}
	}
	if runs := archivedRuns(t, historyDir); len(runs) != 1 {
		t.Errorf("the archive holds %d run records, want the failed night's:\n%s", len(runs), log)
	}

	// Every shard failed: nothing merged, nothing archived but the record.
	shards, _ = shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	for k := range 3 {
		os.RemoveAll(filepath.Join(shards, ShardDir(k)))
	}
	t.Setenv("BUILDKITE_COMMIT", "fedcba9876543210fedcba9876543210fedcba98")
	status, log, _ = merge(shards)
	if status == 0 {
		t.Fatalf("no shard reported: exit status 0:\n%s", log)
	}
	runs := archivedRuns(t, historyDir)
	var empty *runrecord.Record
	var name string
	for n, r := range runs {
		if r.Results == 0 {
			empty, name = r, n
		}
	}
	if len(runs) != 2 || empty == nil {
		t.Fatalf("the archive holds %d run records, none of no results:\n%s", len(runs), log)
	}
	entries, _ := os.ReadDir(filepath.Join(historyDir, history.NightsDir, name))
	if empty.Status != runrecord.NoResults || empty.Reported() != 0 || empty.Commit != "fedcba9876543210fedcba9876543210fedcba98" ||
		!strings.HasSuffix(name, "-fedcba987654") || len(entries) != 1 {
		t.Errorf("the night of no results, %s (%d files): %+v; want no results, no shard reported, the checkout's commit, the record alone", name, len(entries), empty)
	}
}
