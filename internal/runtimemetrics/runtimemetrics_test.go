package runtimemetrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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

// The field names readers put in messages are the JSON's own.
func TestFieldNames(t *testing.T) {
	data, err := json.Marshal(Figures{MutexWaitSeconds: new(float64), CPUSeconds: new(float64)})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FieldMutexWaitSeconds, FieldCPUSeconds} {
		if _, ok := fields[name]; !ok {
			t.Errorf("%s: not a field of %s", name, data)
		}
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

// Goroutines blocked on a held mutex show as mutex wait, and the
// process's CPU time is read. The runtime times one in 8 of a goroutine's
// waits, by a count that starts at random (and scales the times up): one
// blocked Lock may not show, and nor may a hundred of one goroutine, whose
// waits can fall in step with the count. Of 200 goroutines blocked once
// each, all are missed with a chance of (7/8)^200, about 3e-12. The
// wait's size depends on the scheduler: only its growth is asserted.
func TestReadMutexWaitAndCPU(t *testing.T) {
	before := Read()
	if before.MutexWaitSeconds == nil || before.CPUSeconds == nil {
		t.Fatalf("Read() = %+v: want the mutex wait and the CPU time", before)
	}
	const waiters = 200
	var mu sync.Mutex
	var started, finished sync.WaitGroup
	mu.Lock()
	for range waiters {
		started.Add(1)
		finished.Add(1)
		go func() {
			defer finished.Done()
			started.Done()
			mu.Lock() // blocks until the sleep below is over
			mu.Unlock()
		}()
	}
	started.Wait()
	time.Sleep(20 * time.Millisecond)
	mu.Unlock()
	finished.Wait()
	after := Read()
	if !(*after.MutexWaitSeconds > *before.MutexWaitSeconds) {
		t.Errorf("mutex wait %v then %v: want it grown by %d blocked Locks", *before.MutexWaitSeconds, *after.MutexWaitSeconds, waiters)
	}
	if *after.CPUSeconds < *before.CPUSeconds {
		t.Errorf("CPU seconds %v then %v: went back", *before.CPUSeconds, *after.CPUSeconds)
	}
}

// Figures of a program built before the two times (a server that does not
// serve them) decode with them nil: not known, never zero.
func TestFiguresWithoutTheTimes(t *testing.T) {
	var f Figures
	if err := json.Unmarshal([]byte(`{"alloc_bytes": 10, "alloc_objects": 1}`), &f); err != nil {
		t.Fatal(err)
	}
	if f.MutexWaitSeconds != nil || f.CPUSeconds != nil {
		t.Errorf("decoded %+v: want no mutex wait and no CPU time", f)
	}
	zero := 0.0
	data, _ := json.Marshal(Figures{MutexWaitSeconds: &zero, CPUSeconds: &zero})
	if !strings.Contains(string(data), `"mutex_wait_seconds":0`) || !strings.Contains(string(data), `"cpu_seconds":0`) {
		t.Errorf("%s: a known zero must be written", data)
	}
}

// Each P's allocation cache holds spans whose objects the runtime counts
// only when the span leaves the cache: a figure read without flushing
// them misses the allocations since, as many as the spans cached when the
// program ends, on whichever Ps its goroutines ran (1,519 objects and
// 274 KB of havlak6's quick workload).
func TestReadCountsEveryAllocation(t *testing.T) {
	const n = 10
	before := Read()
	for range n {
		sink = append(sink, make([]byte, 40))
	}
	after := Read()
	if got := after.AllocObjects - before.AllocObjects; got < n {
		t.Errorf("%d objects allocated between two reads, %d counted", n, got)
	}
}
