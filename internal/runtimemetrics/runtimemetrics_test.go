package runtimemetrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sink [][]byte

func TestRecordAppendsARunEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	t.Setenv(EnvVar, path)
	if err := Record(); err != nil {
		t.Fatal(err)
	}
	const objects, size = 1000, 1024
	for i := 0; i < objects; i++ {
		sink = append(sink, make([]byte, size))
	}
	if err := Record(); err != nil {
		t.Fatal(err)
	}
	runs, err := ReadFile(path)
	if err != nil || len(runs) != 2 {
		t.Fatalf("ReadFile: %d runs, %v; want 2", len(runs), err)
	}
	// runtime/metrics counts a span's small objects as allocated when a P's
	// cache takes the span, so some of ours may have been counted before the
	// first record (up to a span of them per P): at least 95% must show.
	const wantObjects = objects * 95 / 100
	if grew := runs[1].AllocBytes - runs[0].AllocBytes; grew < wantObjects*size {
		t.Errorf("allocated %d bytes between the records, want at least %d", grew, wantObjects*size)
	}
	if runs[1].AllocObjects < runs[0].AllocObjects+wantObjects || runs[1].HeapMappedBytes == 0 {
		t.Errorf("figures %+v then %+v: objects did not grow by %d, or no heap", runs[0], runs[1], wantObjects)
	}
}

func TestRecordWithoutTheVariable(t *testing.T) {
	t.Setenv(EnvVar, "")
	if err := Record(); err != nil {
		t.Errorf("Record without $%s: %v", EnvVar, err)
	}
}

func TestReadFileNamesTheLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	os.WriteFile(path, []byte("{\"alloc_bytes\": 1}\nnot json\n"), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path+":2") {
		t.Errorf("ReadFile(a bad line) = %v, want an error naming line 2", err)
	}
}
