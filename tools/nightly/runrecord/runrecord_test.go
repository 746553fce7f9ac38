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
		Baseline: "the night failed: the baseline stays"}
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
		Reasons: []string{"the night holds no result"}}
	if err := Write(path, none); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(path); err != nil || got.Status != NoResults {
		t.Errorf("a run of no results: %+v, %v", got, err)
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
		"version":   {strings.Replace(text, `"schema_version": 1`, `"schema_version": 2`, 1), "schema_version 2: this reader knows version 1"},
		"unknown":   {strings.Replace(text, `"sharded"`, `"tests_passed": true, "sharded"`, 1), `unknown field "tests_passed"`},
		"truncated": {text[:len(text)/2], "unexpected EOF"},
		"oversized": {text[:len(text)-2] + `, "reasons": ["` + strings.Repeat("x", MaxSize) + `"]}`, "more than a run record's"},
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
	bad := failedRun()
	bad.Finished = bad.Started.Add(-time.Second)
	if err := Write(path, bad); err == nil || !strings.Contains(err.Error(), "before it started") {
		t.Errorf("a run that finished before it started: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused record was written: %v", err)
	}
}
