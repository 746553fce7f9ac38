// Package resulttest makes, for tests, results as the lab's jobs leave
// them.
package resulttest

import (
	"os"
	"path/filepath"
	"testing"

	"havlak-lab/tools/result"
)

// ZipDir zips the files under dir into path, making path's directory, as
// Bazel makes outputs.zip, and returns path.
func ZipDir(tb testing.TB, dir, path string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := result.WriteZip(dir, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Declared is a valid result of a benchmark of kind (result.KindProgram,
// result.KindServer), named "made_up_KIND", of the quick workload: five
// runs or rounds with every field recorded that its kind's declared
// figures (result.Declarations) read, each 1% above the one before. A
// test that iterates the table of figures measures this, and fails on a
// declared figure it lacks: a new figure's producer fills its field here.
func Declared(kind string) *result.Result {
	const started = "2026-11-20T02:00:00Z"
	r := &result.Result{SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "made_up_" + kind, Kind: kind, Study: "Made-up " + kind, Stage: 1, Language: "Go",
			Workload: result.Workload{Name: result.WorkloadQuick, Description: "a made-up input"}, Repetitions: 5},
		Environment: result.Environment{Started: started, Source: result.Source{Commit: "aaaa"}}}
	switch kind {
	case result.KindProgram:
		r.Timing = &result.Timing{Command: "made_up"}
	case result.KindServer:
		r.Server = &result.Server{Load: result.Load{Generator: "vegeta", Connections: 8, DurationSeconds: 2}}
	}
	for i := range 5 {
		k := 1 + 0.01*float64(i)
		switch kind {
		case result.KindProgram:
			faults := int64(5000 * k)
			r.Timing.Runs = append(r.Timing.Runs, result.Run{Start: started, MinorFaults: &faults,
				Usage: result.Usage{RealSeconds: 2 * k, UserSeconds: 1.5 * k, SysSeconds: 0.25 * k, MaxRSSKiB: int64(40960 * k)}})
		case result.KindServer:
			p95 := 0.0028 * k
			r.Server.Rounds = append(r.Server.Rounds, result.LoadRound{Start: started, Seconds: 2, Requests: 20000, Throughput: 10000 * k,
				Latency: result.Latency{Mean: 0.0008 * k, P50: 0.0007 * k, P90: 0.0015 * k, P95: &p95, P99: 0.003 * k, Max: 0.02 * k}})
		}
	}
	return r
}
