package runrecord

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/verdict"
)

// failedRun is a sharded run whose shard 1 failed and whose shard 2 never
// reported.
func failedRun() *Record {
	started := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	return &Record{Started: started, Finished: started.Add(47 * time.Minute), Commit: "0123456789abcdef",
		Sharded: true, Shards: []Shard{
			{Index: 0, State: Reported, Expected: 3, Results: 3},
			{Index: 1, State: ShardFailed, Why: "its tests ended TESTS_FAILED (exit status 3)", Expected: 3, Results: 2, Missing: []string{"havlak7"}},
			{Index: 2, State: Missing, Why: "never reported", Expected: 2, Missing: []string{"havlak1", "havlak2"}},
		},
		Results: 5, Status: Failed, ExitStatus: 1, Reasons: []string{"the night is incomplete"},
		Benchmarks: []Benchmark{
			{Name: "havlak7", Outcome: verdict.Missing, Fails: true},
			{Name: "havlak6", Workload: "full", Figure: "instructions", Unit: "instructions", Outcome: verdict.Inconsistent, Fails: true},
			{Name: "havlak6", Workload: "full", Figure: "real_seconds", Unit: "s", Outcome: verdict.Regressed},
			{Name: "havlak1", Outcome: verdict.NotComparable},
		},
		ChangePoints: ChangePointsOff, LayoutUnknown: []string{"havlak6cc: the baseline keeps no layout variants of it"},
		NotMeasured: []NotMeasured{{Name: "bigsim", Why: "no quick workload: its perf_benchmark gives no quick_args"}},
		Baseline:    "the night failed: the baseline stays"}
}

// A record written is the record read back, whole, with its duration and
// its shards; Write leaves no temporary file.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	want := failedRun()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	if got.Duration() != 47*time.Minute || got.Reported() != 1 || got.SchemaVersion != Version {
		t.Errorf("duration %v, %d shards reported, version %d; want 47m, 1, %d", got.Duration(), got.Reported(), got.SchemaVersion, Version)
	}
	if failing := got.Failing(); len(failing) != 2 || failing[0].Outcome != verdict.Missing || failing[1].Outcome != verdict.Inconsistent {
		t.Errorf("failing: %+v, want havlak7 missing and havlak6's instructions inconsistent", failing)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only %s", len(entries), FileName)
	}
	// Through a file system (the dashboard's os.Root), the same.
	if got, err := ReadFS(os.DirFS(dir), FileName); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadFS: %+v, %v", got, err)
	}
	if _, err := ReadFS(os.DirFS(dir), "nothing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a record not there: %v, want fs.ErrNotExist", err)
	}
	// A run that collected nothing is a record too, and fails.
	none := &Record{Started: want.Started, Finished: want.Finished, Status: NoResults, ExitStatus: 1,
		Reasons: []string{"the night holds no result"}, ChangePoints: ChangePointsOn}
	if err := Write(path, none); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(path); err != nil || got.Status != NoResults {
		t.Errorf("a run of no results: %+v, %v", got, err)
	}
}

// A record of version 1, from before change points and benchmarks were
// recorded, is read as it was written: neither is known.
func TestReadsVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	v1 := `{"schema_version": 1, "started": "2026-11-20T02:00:00Z", "finished": "2026-11-20T02:47:00Z", "sharded": false,
"results": 8, "unreadable": 0, "status": "failed", "exit_status": 1, "reasons": ["a benchmark regressed"], "promoted": false}`
	if err := os.WriteFile(path, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != 1 || r.ChangePoints != "" || r.Benchmarks != nil || r.Status != Failed || r.Reasons[0] != "a benchmark regressed" {
		t.Errorf("a record of version 1: %+v", r)
	}
	// Written again, it is of this version, and must say what it lacks.
	if err := Write(path, r); err == nil || !strings.Contains(err.Error(), "change_points") {
		t.Errorf("a version 1 record written as version %d without change points: %v, want it refused", Version, err)
	}
}

// Another version, an unknown field, a record cut short, more than MaxSize
// bytes, two values, and a record that does not check are refused, the
// file named; Write refuses a record that does not check, and writes
// nothing.
func TestRefuses(t *testing.T) {
	good, err := Marshal(failedRun())
	if err != nil {
		t.Fatal(err)
	}
	text := string(good)
	for name, c := range map[string]struct {
		data, says string
	}{
		"version":   {strings.Replace(text, `"schema_version": 4`, `"schema_version": 5`, 1), "schema_version 5: this reader knows versions 1 to 4"},
		"version 0": {strings.Replace(text, `"schema_version": 4`, `"schema_version": 0`, 1), "schema_version 0: this reader knows versions 1 to 4"},
		// What came in version 2 is not in a record of version 1, nor
		// version 3's in one of version 2, nor version 4's in one of 3.
		"version 1 with version 2's fields": {strings.Replace(text, `"schema_version": 4`, `"schema_version": 1`, 1),
			"schema_version 1: change_points and benchmarks came in version 2"},
		"version 2 with version 3's fields": {strings.Replace(text, `"schema_version": 4`, `"schema_version": 2`, 1),
			"schema_version 2: layout_unknown came in version 3"},
		"version 3 with version 4's fields": {strings.Replace(text, `"schema_version": 4`, `"schema_version": 3`, 1),
			"schema_version 3: not_measured came in version 4"},
		"not measured, no why": {strings.Replace(text, `"why": "no quick workload: its perf_benchmark gives no quick_args"`, `"why": ""`, 1),
			"not_measured[0] (bigsim): no name or no why"},
		"no change points": {strings.Replace(text, `"change_points": "off"`, `"change_points": ""`, 1), `change_points "": want on or off`},
		"outcome":          {strings.Replace(text, `"outcome": "regressed"`, `"outcome": "improved"`, 1), `benchmarks[2] (havlak6): outcome "improved"`},
		"unnamed":          {strings.Replace(text, `"name": "havlak7"`, `"name": ""`, 1), "benchmarks[0]: no name"},
		"not compared, failing": {strings.Replace(text, `"outcome": "not_comparable",
      "fails": false`, `"outcome": "not_comparable",
      "fails": true`, 1), "benchmarks[3] (havlak1): not compared, yet it fails the night"},
		"unknown":   {strings.Replace(text, `"sharded"`, `"tests_passed": true, "sharded"`, 1), `unknown field "tests_passed"`},
		"truncated": {text[:len(text)/2], "unexpected EOF"},
		"oversized": {text[:len(text)-2] + `, "reasons": ["` + strings.Repeat("x", MaxSize) + `"]}`, "larger than a run record may be"},
		"two":       {text + text, "more than one JSON value"},
		"status":    {strings.Replace(text, `"status": "failed"`, `"status": "fine"`, 1), `status "fine"`},
		"passed":    {strings.Replace(text, `"status": "failed"`, `"status": "passed"`, 1), "status passed, with exit status 1"},
		"reasonless": {strings.Replace(text, `"reasons": [
    "the night is incomplete"
  ],`, "", 1), "status failed, with no reason"},
		"shard": {strings.Replace(text, `"state": "missing"`, `"state": "late"`, 1), `shards[2] (shard 2): state "late"`},
	} {
		path := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %+v, %v; want an error naming %s and saying %q", name, r, err, path, c.says)
		}
	}
	// A directory (or a named pipe) where the record should be is refused
	// before it is opened.
	dir := filepath.Join(t.TempDir(), FileName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory named %s: %v, want it refused", FileName, err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	passed := failedRun()
	passed.Status, passed.ExitStatus, passed.Reasons = Passed, 0, nil
	if err := Write(path, passed); err == nil || !strings.Contains(err.Error(), "benchmarks[0] (havlak7): fails a night that passed") {
		t.Errorf("a passed night with a failing benchmark: %v", err)
	}
	bad := failedRun()
	bad.Finished = bad.Started.Add(-time.Second)
	if err := Write(path, bad); err == nil || !strings.Contains(err.Error(), "before it started") {
		t.Errorf("a run that finished before it started: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused record was written: %v", err)
	}
}
