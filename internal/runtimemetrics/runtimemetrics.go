// Package runtimemetrics records what a Go program's run cost its runtime:
// the bytes and objects it allocated, its garbage collections, and the
// heap it mapped. Unlike times, the allocation figures do not depend on
// the machine's load: the perf rules gate on them. It also records two
// times, which do depend on it: how long goroutines waited for locks, and
// the CPU time the process used, whose ratio a server's contention figure
// is (tools/perf/perfrun's servermetrics.go).
//
// A program records them by calling Record as it exits (internal/cli's
// Exit does); the perf runner asks for them by naming a file in the
// environment variable EnvVar, and each run appends one JSON line to it.
package runtimemetrics

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"
)

// EnvVar names the file the figures of each run are appended to.
const EnvVar = "HAVLAK_LAB_RUNTIME_METRICS"

// The JSON names of the fields a reader may find missing (a server
// built before them): for its messages, as the tags below spell them.
const (
	FieldMutexWaitSeconds = "mutex_wait_seconds"
	FieldCPUSeconds       = "cpu_seconds"
)

// Figures are one run's, as runtime/metrics reports them at its end.
type Figures struct {
	AllocBytes   uint64 `json:"alloc_bytes"`   // /gc/heap/allocs:bytes
	AllocObjects uint64 `json:"alloc_objects"` // /gc/heap/allocs:objects
	GCCycles     uint64 `json:"gc_cycles"`     // /gc/cycles/total:gc-cycles
	// HeapMappedBytes is the heap's memory mapped from the OS at the end
	// (/memory/classes/heap/*): the runtime seldom returns it, so it is
	// close to the run's peak heap.
	HeapMappedBytes uint64 `json:"heap_mapped_bytes"`
	// MutexWaitSeconds is how long goroutines have waited, blocked, for a
	// sync.Mutex, a sync.RWMutex or a lock of the runtime's own
	// (/sync/mutex/wait/total:seconds); nil when this Go does not report
	// it, so that a reader tells "no wait" from "not known". A pointer for
	// a server's reader, too: a server built before the field sends none.
	MutexWaitSeconds *float64 `json:"mutex_wait_seconds,omitempty"`
	// CPUSeconds is the user and system CPU time of the process so far
	// (getrusage), which the kernel measures to the microsecond; nil when
	// it cannot be read.
	CPUSeconds *float64 `json:"cpu_seconds,omitempty"`
}

var heapClasses = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
}

// mutexWait is the runtime/metrics name of Figures.MutexWaitSeconds.
const mutexWait = "/sync/mutex/wait/total:seconds"

// Read returns this process's figures now.
func Read() Figures {
	names := append([]string{
		"/gc/heap/allocs:bytes",
		"/gc/heap/allocs:objects",
		"/gc/cycles/total:gc-cycles",
	}, heapClasses...)
	names = append(names, mutexWait)
	samples := make([]metrics.Sample, len(names))
	for i, name := range names {
		samples[i].Name = name
	}
	// The runtime counts a small object when the span it came from leaves
	// a P's allocation cache, so what the caches hold at the end, which
	// depends on the Ps the goroutines ran on, would go uncounted: havlak6's
	// counted runs moved by up to 0.6% (docs/noise.md). ReadMemStats stops
	// the world and flushes every P's cache first: then the figures count
	// every allocation.
	var flushed runtime.MemStats
	runtime.ReadMemStats(&flushed)
	metrics.Read(samples)
	value := func(i int) uint64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0 // not supported by this Go
		}
		return samples[i].Value.Uint64()
	}
	f := Figures{AllocBytes: value(0), AllocObjects: value(1), GCCycles: value(2)}
	for i := range heapClasses {
		f.HeapMappedBytes += value(3 + i)
	}
	if wait := samples[len(samples)-1].Value; wait.Kind() == metrics.KindFloat64 {
		f.MutexWaitSeconds = ptr(wait.Float64())
	}
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) == nil {
		f.CPUSeconds = ptr((time.Duration(usage.Utime.Nano()) + time.Duration(usage.Stime.Nano())).Seconds())
	}
	return f
}

func ptr(x float64) *float64 { return &x }

// Record appends this run's figures to the file $HAVLAK_LAB_RUNTIME_METRICS
// names; without it, it does nothing.
func Record() error {
	path := os.Getenv(EnvVar)
	if path == "" {
		return nil
	}
	line, err := json.Marshal(Read())
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("$%s: %w", EnvVar, err)
	}
	// One write of a whole line: runs that append at once do not mix.
	_, err = f.Write(append(line, '\n'))
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// ReadFile reads the figures of every run recorded in path, in order.
func ReadFile(path string) ([]Figures, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var all []Figures
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		var fig Figures
		if err := json.Unmarshal(s.Bytes(), &fig); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		all = append(all, fig)
	}
	return all, s.Err()
}
