package night

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint/otavatest"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/nightly/shard"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
	"havlak-lab/tools/summary"
	verdictlib "havlak-lab/tools/verdict"
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
		o := gateOptions(t, baseline, filepath.Join(t.TempDir(), "artifacts"), &out)
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

// onlyRun is the one run record of the history's archive, which must
// hold it alone in its night's directory: a run refused is never
// archived with results.
func onlyRun(t *testing.T, historyDir, log string) *runrecord.Record {
	t.Helper()
	runs := archivedRuns(t, historyDir)
	if len(runs) != 1 {
		t.Fatalf("the archive holds %d run records, want the refused run's:\n%s", len(runs), log)
	}
	for name, r := range runs {
		if entries, _ := os.ReadDir(filepath.Join(historyDir, history.NightsDir, name)); len(entries) != 1 {
			t.Errorf("the refused run's night %s holds %d files, want its record alone", name, len(entries))
		}
		return r
	}
	return nil
}

// checkRefusal checks the record of a run refused before its night was
// read: failed for why, with the gate's exit status, no result counted
// (none was read) and the baseline kept.
func checkRefusal(t *testing.T, r *runrecord.Record, status int, why string) {
	t.Helper()
	if r.Status != runrecord.Failed || r.ExitStatus != status || r.Results != 0 || r.Promoted ||
		!slices.Equal(r.Reasons, []string{why + " (see the log)"}) || r.Baseline != "the baseline stays" {
		t.Errorf("the refused run's record: %+v; want failed, exit status %d, for %q, the baseline kept", r, status, why)
	}
}

// A gate that refuses its night before reading it records the run in
// the history's archive all the same, failed and why, in words without
// the agent's paths; it writes nothing into what was offered as the
// night, nor the baseline; without Otava too, in the default history,
// its record saying change points were off. With a history inside the
// night, it records nothing.
func TestGateRecordsARefusal(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	for _, c := range []struct {
		name string
		// night makes the night and the baseline's path.
		night  func(t *testing.T) (string, string)
		status int
		why    string
	}{
		{"a baseline that is a file", func(t *testing.T) (string, string) {
			baseline := filepath.Join(t.TempDir(), "baseline")
			os.WriteFile(baseline, []byte("precious"), 0o644)
			return makeNight(t, nightSpec{allocs: 1}), baseline
		}, 2, "the gate refused the baseline"},
		{"a night with a file beside its results", func(t *testing.T) (string, string) {
			night := makeNight(t, nightSpec{allocs: 1})
			os.WriteFile(filepath.Join(night, "notes.txt"), []byte("precious"), 0o644)
			return night, filepath.Join(t.TempDir(), "baseline")
		}, 1, "the gate refused the night: its directory is not a night's results alone"},
		{"no night", func(t *testing.T) (string, string) {
			return filepath.Join(t.TempDir(), "artifacts"), filepath.Join(t.TempDir(), "baseline")
		}, 2, "the gate refused the night: no directory of its results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			historyDir, withHistory := withPersonalHistory(t)
			night, baseline := c.night(t)
			nightBefore, baselineBefore := snapshot(t, night), snapshot(t, baseline)
			status, log := gateNight(t, baseline, night, withHistory)
			if status != c.status {
				t.Fatalf("exit status %d, want %d:\n%s", status, c.status, log)
			}
			checkRefusal(t, onlyRun(t, historyDir, log), c.status, c.why)
			if snapshot(t, night) != nightBefore || snapshot(t, baseline) != baselineBefore {
				t.Errorf("the night or the baseline changed")
			}
		})
	}
	t.Run("without Otava, in the default history", func(t *testing.T) {
		historyDir := t.TempDir()
		t.Setenv(history.DirEnv, historyDir)
		// Personal: a workstation's run is archived there.
		db, err := history.Create(context.Background(), history.DirDSN(historyDir), history.Personal)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		status, log := gateNight(t, filepath.Join(t.TempDir(), "baseline"), filepath.Join(t.TempDir(), "artifacts"),
			func(o *GateOptions) { o.HistoryDir, o.Otava = "", "" })
		r := onlyRun(t, historyDir, log)
		checkRefusal(t, r, status, "the gate refused the night: no directory of its results")
		if r.ChangePoints != runrecord.ChangePointsOff {
			t.Errorf("the refused run's record: change points %q, want off", r.ChangePoints)
		}
	})
	t.Run("a history inside the night", func(t *testing.T) {
		_, withHistory := withPersonalHistory(t)
		night := makeNight(t, nightSpec{allocs: 1})
		before := snapshot(t, night)
		status, log := gateNight(t, filepath.Join(t.TempDir(), "baseline"), night, withHistory,
			func(o *GateOptions) { o.HistoryDir = filepath.Join(night, "history") })
		if status != 2 || snapshot(t, night) != before || !strings.Contains(log, "The run's record is not written") {
			t.Errorf("exit status %d, want 2, the night as it was and the record not written:\n%s", status, log)
		}
	})
}

// A merge that refuses the shards records the run, sharded, in the
// history's archive, and writes nothing where the merged night was to go,
// not even its record; nor into a merged night's directory it refused for
// not being empty.
func TestMergeRecordsARefusal(t *testing.T) {
	baseline, mapFile := firstShardedNight(t)
	m, err := shard.Read(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	shards, _ := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	stray := shard.TestName(m.Shards[0].Benchmarks[0].Test)
	copyCapped(filepath.Join(shards, ShardDir(0), stray, result.ZipName), filepath.Join(shards, ShardDir(1), stray, result.ZipName))
	for _, c := range []struct {
		name string
		// dest makes where the merged night goes.
		dest func(t *testing.T) string
		// shards are the shards' results.
		shards, why string
	}{
		{"a test on the wrong shard", func(t *testing.T) string { return filepath.Join(t.TempDir(), "artifacts") },
			shards, "the merge refused the shards' results"},
		{"a merged night's directory not empty", func(t *testing.T) string { return makeNight(t, nightSpec{allocs: 1}) },
			"", refusedMergeDest},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.shards == "" {
				c.shards, _ = shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
			}
			historyDir, withHistory := withPersonalHistory(t)
			var out bytes.Buffer
			o := gateOptions(t, baseline, c.dest(t), &out)
			withHistory(&o)
			before := snapshot(t, o.Artifacts)
			status := cli.Report(&out, "nightly", MergeNight(MergeOptions{Map: mapFile, Shards: c.shards, Gate: o}))
			if status == 0 {
				t.Fatalf("a refused merge: exit status 0:\n%s", out.String())
			}
			r := onlyRun(t, historyDir, out.String())
			checkRefusal(t, r, status, c.why)
			if !r.Sharded || len(r.Shards) != 0 {
				t.Errorf("the refused merge's record: sharded %v, %d shards; want sharded, none merged", r.Sharded, len(r.Shards))
			}
			if snapshot(t, o.Artifacts) != before {
				t.Errorf("the refused merge wrote into %s:\n%s", o.Artifacts, out.String())
			}
		})
	}
}

// A night whose collect failed (--collect-failed) is gated for what
// arrived and fails as incomplete: its record says so, and it never
// becomes the baseline, however good its results.
func TestGateRecordsAFailedCollect(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir, withHistory := withPersonalHistory(t)
	night := makeNight(t, nightSpec{allocs: 1})
	baseline := filepath.Join(t.TempDir(), "baseline")
	status, log := gateNight(t, baseline, night, withHistory, func(o *GateOptions) { o.CollectFailed = true })
	if status != 1 || exists(baseline) || !strings.Contains(log, collectFailedLine) {
		t.Fatalf("a night whose collect failed: exit status %d, want 1, no baseline and the summary saying so:\n%s", status, log)
	}
	r, err := runrecord.Read(filepath.Join(night, nightdir.Run))
	if err != nil {
		t.Fatalf("no run record: %v\n%s", err, log)
	}
	if r.Status != runrecord.Failed || r.Results != 8 || r.Promoted || !slices.Contains(r.Reasons, collectFailedLine) ||
		slices.ContainsFunc(r.Reasons, func(s string) bool { return strings.Contains(s, "shards") }) {
		t.Errorf("the record: %+v; want failed, its 8 results, for the collect, no shard named", r)
	}
	if runs := archivedRuns(t, historyDir); len(runs) != 1 {
		t.Errorf("the archive holds %d run records, want the night's", len(runs))
	}
}

// A shared history's archive takes a refused run's record only from a
// scheduled build of main, as it takes any run's: a workstation's
// refusal is said, not archived.
func TestSharedHistoryTakesNoUntrustedRefusal(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir, withHistory := withPersonalHistory(t)
	shared := "sqlite:" + filepath.Join(t.TempDir(), "shared.sqlite")
	db, err := history.Create(context.Background(), shared, history.Shared)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	baseline := filepath.Join(t.TempDir(), "baseline")
	os.WriteFile(baseline, []byte("precious"), 0o644)
	status, log := gateNight(t, baseline, makeNight(t, nightSpec{allocs: 1}), withHistory,
		func(o *GateOptions) { o.History = shared })
	if status != 2 || !strings.Contains(log, "The run's record is not archived: a run outside CI") {
		t.Errorf("exit status %d, want 2 and the record not archived:\n%s", status, log)
	}
	if runs := archivedRuns(t, historyDir); len(runs) != 0 {
		t.Errorf("the shared history's archive holds %d run records, want none", len(runs))
	}
}

// A night whose history could not be opened archives its run's record
// alone, in the directory its results will have: the gate run again on
// the same night, with the history back, must still archive and ingest
// its results, not take the record's directory for the night's archive.
func TestGateArchivesANightRecordedWithoutItsHistory(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir, withHistory := withPersonalHistory(t)
	night := makeNight(t, nightSpec{allocs: 1, commit: "0123456789abcdef0123456789abcdef01234567",
		started: time.Date(2026, 11, 6, 2, 0, 0, 0, time.UTC)})
	broken := filepath.Join(t.TempDir(), "broken.sqlite")
	if err := os.WriteFile(broken, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(t.TempDir(), "baseline")
	status, log := gateNight(t, baseline, night, withHistory, func(o *GateOptions) { o.History = "sqlite:" + broken })
	if status == 0 {
		t.Fatalf("a history that cannot be opened: exit status 0:\n%s", log)
	}
	name := "20261106T020000Z-0123456789ab"
	if _, ok := archivedRuns(t, historyDir)[name]; !ok {
		t.Fatalf("the failed night's record is not archived in %s:\n%s", name, log)
	}

	status, log = gateNight(t, baseline, night, withHistory)
	if status != 0 {
		t.Fatalf("the night gated again with its history: exit status %d:\n%s", status, log)
	}
	if !isFile(filepath.Join(historyDir, history.NightsDir, name, "explodepath_test", result.ZipName)) {
		t.Errorf("the night's results are not archived in %s:\n%s", name, log)
	}
	db, err := history.Open(context.Background(), history.DirDSN(historyDir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if count, err := db.Count(context.Background()); err != nil || count != 8 {
		t.Errorf("the history holds %d results (%v), want the night's 8:\n%s", count, err, log)
	}
	if r := archivedRuns(t, historyDir)[name]; r == nil || r.Status != runrecord.Passed {
		t.Errorf("the archived record: %+v, want the second run's, passed", r)
	}
}

// A night's directory in the archive that the lab did not write is never
// taken for the night's archive, nor written into: the night fails.
func TestGateRefusesAForeignArchiveDirectory(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	historyDir, withHistory := withPersonalHistory(t)
	night := makeNight(t, nightSpec{allocs: 1, commit: "0123456789abcdef0123456789abcdef01234567",
		started: time.Date(2026, 11, 6, 2, 0, 0, 0, time.UTC)})
	dir := filepath.Join(historyDir, history.NightsDir, "20261106T020000Z-0123456789ab")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("precious"), 0o644)
	before := snapshot(t, dir)
	status, log := gateNight(t, filepath.Join(t.TempDir(), "baseline"), night, withHistory)
	if status == 0 || !strings.Contains(log, "archiving the night") {
		t.Errorf("a foreign directory where the night's archive goes: exit status %d, want it refused:\n%s", status, log)
	}
	if snapshot(t, dir) != before {
		t.Errorf("the gate wrote into a directory the lab did not write:\n%s", log)
	}
}

// An archive made before the lab's marker (some results and the report,
// no marker) is completed, its results kept as they were, and marked; a
// directory with a stray file is refused and left as it was.
func TestArchiveCompletesOnlyTheJobsDirectory(t *testing.T) {
	started := time.Date(2026, 11, 6, 2, 0, 0, 0, time.UTC)
	found := foundOf(t, makeNight(t, nightSpec{allocs: 1, commit: "0123456789abcdef0123456789abcdef01234567", started: started}))
	n := &night{history: &historyConfig{dir: t.TempDir()}}
	dir := n.nightDir(started, "0123456789abcdef0123456789abcdef01234567")
	kept := filepath.Join(dir, result.Test(found[0]), result.ZipName)
	os.MkdirAll(filepath.Dir(kept), 0o755)
	os.WriteFile(kept, []byte("archived before"), 0o644)
	os.MkdirAll(filepath.Join(dir, nightdir.Report), 0o755)
	os.WriteFile(filepath.Join(dir, nightdir.Report, "index.html"), []byte("report"), 0o644)

	zips, err := n.archive(found)
	if err != nil {
		t.Fatal(err)
	}
	for _, zip := range zips {
		if !isFile(zip) {
			t.Errorf("%s: not archived", zip)
		}
	}
	if data, _ := os.ReadFile(kept); string(data) != "archived before" {
		t.Errorf("%s was replaced: the history may point at it", kept)
	}
	if state, err := checkArchive(dir); state != labdir.Marked || err != nil {
		t.Errorf("the completed archive: state %v (%v), want marked", state, err)
	}

	n = &night{history: &historyConfig{dir: t.TempDir()}}
	dir = n.nightDir(started, "0123456789abcdef0123456789abcdef01234567")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("precious"), 0o644)
	before := snapshot(t, dir)
	if _, err := n.archive(found); err == nil || n.archivedNight != "" {
		t.Errorf("a directory with a stray file: archived (%v) in %q, want it refused", err, n.archivedNight)
	}
	if snapshot(t, dir) != before {
		t.Errorf("the refused directory was written into")
	}
}

// A run killed while it completed a night's archive leaves the temporary
// files of what it was writing there (a result, its record, the marker):
// the next run removes them, says so, and completes the archive; a file
// of another name is still a stranger's, and refused.
func TestArchiveRemovesAKilledRunsTemporaries(t *testing.T) {
	started := time.Date(2026, 11, 6, 2, 0, 0, 0, time.UTC)
	commit := "0123456789abcdef0123456789abcdef01234567"
	found := foundOf(t, makeNight(t, nightSpec{allocs: 1, commit: commit, started: started}))
	var log strings.Builder
	n := &night{history: &historyConfig{dir: t.TempDir()}, stdout: &log}
	dir := n.nightDir(started, commit)
	test := filepath.Join(dir, result.Test(found[0]))
	left := []string{
		filepath.Join(test, "."+result.ZipName+".tmp-4021"),
		filepath.Join(dir, "."+labdir.Marker+".tmp-17"),
		filepath.Join(dir, "."+nightdir.Run+".tmp-9"),
	}
	for _, path := range left {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("half"), 0o644)
	}
	if _, err := n.archive(found); err != nil {
		t.Fatalf("archiving after a killed run: %v\n%s", err, log.String())
	}
	for _, path := range left {
		if _, err := os.Lstat(path); err == nil || !strings.Contains(log.String(), "Removed "+path+", which an interrupted archive left behind.") {
			t.Errorf("%s: not removed, or not said:\n%s", path, log.String())
		}
	}
	if state, err := checkArchive(dir); state != labdir.Marked || err != nil {
		t.Errorf("the completed archive: state %v (%v), want marked", state, err)
	}

	n = &night{history: &historyConfig{dir: t.TempDir()}, stdout: &log}
	dir = n.nightDir(started, commit)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, ".notes.txt.tmp-1"), []byte("precious"), 0o644)
	before := snapshot(t, dir)
	if _, err := n.archive(found); err == nil {
		t.Errorf("a directory with another file's temporary: archived, want it refused")
	}
	if snapshot(t, dir) != before {
		t.Errorf("the refused directory was written into")
	}
}

// The run's record names what each benchmark failed on, by verdict's
// outcomes, never "a benchmark regressed" for all alike: a benchmark
// gone, a gated figure missing of one measured, an inconsistent
// measurement and a regression each by its own name; an accepted
// regression and a retired benchmark not at all; a benchmark of another
// environment as not compared, failing nothing. With the night's alerts
// deciding, a figure fails only by a failing alert of it, and a failing
// alert of no benchmark's figure (a change point) is a reason of its own.
func TestRecordNamesWhatFailed(t *testing.T) {
	gated := verdictlib.Rule{Gated: true}
	j := judged{reported: true, all: &summary.Summary{Tool: "report", Benchmarks: []summary.Benchmark{
		{Name: "gone", Outcome: verdictlib.Missing, Note: "the baseline has it (/agent/baseline/gone_test/outputs.zip), tonight has no result of it"},
		{Name: "retired", Outcome: verdictlib.Missing, Retired: true},
		{Name: "lost", Workload: "quick", Outcome: verdictlib.Missing, Figures: []verdictlib.Verdict{
			{Figure: "instructions", Unit: "instructions", Outcome: verdictlib.Missing, Rule: gated},
			{Figure: "real_seconds", Unit: "s", Outcome: verdictlib.Regressed, Rule: gated}}},
		{Name: "broken", Workload: "quick", Outcome: verdictlib.Inconsistent, Figures: []verdictlib.Verdict{
			{Figure: "own_instructions", Unit: "instructions", Outcome: verdictlib.Inconsistent}}},
		{Name: "moved", Workload: "quick", Outcome: verdictlib.NotComparable, EnvironmentChanges: []string{`toolchains.go: "go1.27.4" → "go1.99"`}},
		{Name: "intended", Workload: "quick", Outcome: verdictlib.Regressed, Figures: []verdictlib.Verdict{
			{Figure: "real_seconds", Unit: "s", Outcome: verdictlib.Regressed, Rule: gated}},
			Accepted: []verdictlib.Acceptance{{Benchmark: "intended", Figure: "real_seconds", Reason: "a pass more"}}},
	}}}
	// Worst first, as the comparison's table orders them: the
	// inconsistent, then the gone, then the regressed.
	want := []runrecord.Benchmark{
		{Name: "broken", Workload: "quick", Figure: "own_instructions", Unit: "instructions", Outcome: verdictlib.Inconsistent, Fails: true},
		{Name: "gone", Outcome: verdictlib.Missing, Fails: true},
		{Name: "lost", Workload: "quick", Figure: "instructions", Unit: "instructions", Outcome: verdictlib.Missing, Fails: true},
		{Name: "lost", Workload: "quick", Figure: "real_seconds", Unit: "s", Outcome: verdictlib.Regressed, Fails: true},
		{Name: "moved", Workload: "quick", Outcome: verdictlib.NotComparable},
	}
	got := judgedBenchmarks(j, false, nil)
	if !slices.Equal(got, want) {
		t.Errorf("the gates deciding: %+v\nwant %+v", got, want)
	}
	wantReasons := []string{
		"inconsistent (the same binary and run measured apart beyond one measurement's noise): broken own_instructions (instructions)",
		"missing: gone (no result tonight), lost instructions (instructions)",
		"regressed: lost real_seconds (s)",
	}
	if reasons := failingReasons(got); !slices.Equal(reasons, wantReasons) {
		t.Errorf("the reasons: %q\nwant %q", reasons, wantReasons)
	}

	// The alerts deciding: gone's missing alert fails; lost's regression
	// is acknowledged, and fails nothing; a new change point of another
	// figure is a reason of its own.
	known := []alert.Change{{State: alert.Acknowledged, By: "ann"}}
	tonight := []alert.Alert{
		{ID: 1, Finding: alert.Finding{Kind: alert.Missing, Series: alert.Series{Benchmark: "gone", Workload: "quick"}}},
		{ID: 2, Finding: alert.Finding{Kind: alert.Regression, Series: alert.Series{Benchmark: "lost", Figure: "real_seconds", Unit: "s", Workload: "quick"}}, Changes: known},
		{ID: 3, Finding: alert.Finding{Kind: alert.ChangePoint, Series: alert.Series{Benchmark: "lost", Figure: "instructions", Unit: "instructions", Workload: "quick"}}},
	}
	got = judgedBenchmarks(j, true, tonight)
	var failing []string
	for _, b := range got {
		if b.Fails {
			failing = append(failing, b.Name+" "+b.Figure)
		}
	}
	if !slices.Equal(failing, []string{"gone "}) {
		t.Errorf("the alerts deciding, failing: %q; want gone alone", failing)
	}
	if reasons := slices.Concat(failingReasons(got), alertReasons(tonight, got)); !slices.Equal(reasons, []string{
		"missing: gone (no result tonight)", "alert 3, new change point: lost instructions (quick)"}) {
		t.Errorf("the alerts deciding, the reasons: %q", reasons)
	}
	// What the record says is what it checks: a failing benchmark, a
	// failed night.
	started := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	r := &runrecord.Record{Started: started, Finished: started.Add(time.Hour), Results: 5, Status: runrecord.Failed, ExitStatus: 1,
		Reasons: failingReasons(got), Benchmarks: got, ChangePoints: runrecord.ChangePointsOn}
	if _, err := runrecord.Marshal(r); err != nil {
		t.Errorf("the record does not check: %v", err)
	}
}
