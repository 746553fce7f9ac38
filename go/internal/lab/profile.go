package lab

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"havlak-lab/internal/cli"
)

// HeapProfileEnv names an environment variable: when it is set, Run writes
// a heap profile to the file it names at the end of the run. The harness
// profiles the heap of stages without -memprofile (havlak1 and havlak2)
// that way, as gperftools' HEAPPROFILE does for the C++ stages.
const HeapProfileEnv = "HAVLAK_HEAPPROFILE"

// CreateProfile creates the profile file that source (a flag or an
// environment variable) names, up front, so that a bad path fails before
// the long run instead of after it.
func CreateProfile(source, path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, cli.UsageError{Err: fmt.Errorf("%s: %w", source, err)}
	}
	return f, nil
}

// StartCPUProfile starts profiling into path for the -cpuprofile flag, unless
// path is empty. The returned stop function flushes and closes the profile.
func StartCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := CreateProfile("-cpuprofile", path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// WriteHeapProfile writes a heap profile to f and closes it.
func WriteHeapProfile(f *os.File) error {
	// The profile shows the heap as of the last garbage collection.
	runtime.GC()
	err := pprof.WriteHeapProfile(f)
	return errors.Join(err, f.Close())
}
