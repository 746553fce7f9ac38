package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/result"
)

// nightly is the origin of the trusted nightly job.
var nightly = result.Origin{CI: "buildkite", BuildSource: "schedule", Branch: "main", Repository: "git@example:havlak-lab.git"}

// A night is one result of a program benchmark, written with tools/result.
type night struct {
	benchmark string
	commit    string
	started   time.Time
	real      []float64 // real seconds of the timed runs
	instrs    []float64 // the gated metric's values
	origin    result.Origin
	identity  *result.Identity // nil: none recorded
	hostname  string           // "": perf-1
	// sweep has own_instructions at sweepSizes (nil: no sweep).
	sweep []float64
}

// sweepSizes are the sizes of a night's sweep.
var sweepSizes = []float64{1000, 2000, 4000, 8000}

func (n night) result() *result.Result {
	name := n.benchmark
	if name == "" {
		name = "havlak6"
	}
	hostname := n.hostname
	if hostname == "" {
		hostname = "perf-1"
	}
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Identity:      n.identity,
		Benchmark: result.Benchmark{
			Name: name, Kind: result.KindProgram, Study: "Havlak loop finding", Stage: 6, Language: "Go",
			Workload: result.Workload{Name: result.WorkloadStandard, Description: "the standard one"}, Repetitions: len(n.real),
		},
		Environment: result.Environment{
			Machine: result.Machine{Hostname: hostname, OS: "linux", Arch: "amd64", Kernel: "6.1", CPUModel: "EPYC", Cores: 2,
				MemoryBytes: 1 << 34, CPUState: result.CPUState{GovernorNote: "no cpufreq", TurboNote: "none", SMT: "notsupported"}},
			Toolchains: result.Toolchains{Go: "go1.27.4", GCC: "gcc 12.2.0", Bazel: "4.2.3"},
			Source:     result.Source{Commit: n.commit},
			Build:      result.Build{CompilationMode: "opt", Config: result.ConfigPerf},
			Started:    n.started.UTC().Format(time.RFC3339),
			Origin:     n.origin,
		},
		Timing: &result.Timing{Command: name},
		Metrics: []result.Metric{
			{Name: "own_instructions", Unit: "instructions", Source: "cachegrind", Values: n.instrs, Gated: true, Threshold: 0.01},
			{Name: "hw_instructions", Unit: "instructions", Source: "perf_event_open", Unavailable: "no PMU"},
		},
		Files: []result.File{
			{Name: "cpu.pb.gz", Role: result.RoleProfile, Profile: "cpu"},
			{Name: "heap.pb.gz", Role: result.RoleProfile, Profile: "heap"},
			{Name: "cpu.top.txt", Role: result.RoleView, Profile: "cpu"},
		},
	}
	for i, real := range n.real {
		r.Timing.Runs = append(r.Timing.Runs, result.Run{
			Start: n.started.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
			Usage: result.Usage{RealSeconds: real, UserSeconds: real * 0.9, SysSeconds: 0.01, MaxRSSKiB: 1000 + int64(i)},
		})
	}
	// A failed run is no figure.
	r.Timing.Runs = append(r.Timing.Runs, result.Run{ExitStatus: 2, Usage: result.Usage{RealSeconds: 99}})
	return r
}

// writeResult writes r and the files it lists into dir, as the runner does.
func writeResult(t *testing.T, dir string, r *result.Result, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Files {
		files[f.Name] = "contents of " + f.Name
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

// write writes the night's result, with its sweep, into dir.
func (n night) write(t *testing.T, dir string) string {
	t.Helper()
	r := n.result()
	if n.sweep != nil {
		s := result.Sweep{Figure: "own_instructions", Unit: "instructions", N: "loops", Source: "cachegrind", Gated: true, Threshold: 0.01}
		for i, v := range n.sweep {
			s.Points = append(s.Points, result.SweepPoint{N: sweepSizes[i], Value: v})
		}
		fit, _, err := complexity.Best(s.Sizes(), s.Values())
		if err != nil {
			t.Fatal(err)
		}
		s.Fit = fit
		r.Sweeps = []result.Sweep{s}
	}
	return writeResult(t, dir, r, map[string]string{})
}

// goTestResult is a go_benchmark's result with its bench.txt.
func goTestResult(t *testing.T, dir string) string {
	t.Helper()
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "explodepath", Kind: result.KindGoTest, Study: "explodePath", Language: "Go",
			Workload: result.Workload{Name: result.WorkloadStandard}},
		Environment: result.Environment{Started: "2026-11-20T02:00:00Z", Origin: nightly,
			Source: result.Source{Commit: "c0ffee"}, Build: result.Build{CompilationMode: "opt", Config: result.ConfigPerf}},
		GoBench: "bench.txt",
	}
	bench := "goos: linux\ngoarch: amd64\npkg: havlak-lab/go/explodepath\n" +
		"BenchmarkNaive-2   \t 1000000\t      1200 ns/op\t     160 B/op\t       3 allocs/op\n" +
		"BenchmarkNaive-2   \t 1000000\t      1300 ns/op\t     160 B/op\t       3 allocs/op\n" +
		"BenchmarkSplit/fields-2 \t 2000000\t       600 ns/op\t  50.5 MB/s\n"
	return writeResult(t, dir, r, map[string]string{"bench.txt": bench})
}

// serverResult is a server benchmark's result.
func serverResult(t *testing.T, dir string) string {
	t.Helper()
	round := func(tput float64) result.LoadRound {
		return result.LoadRound{Start: "2026-11-20T02:00:00Z", Seconds: 2, Requests: 100, Throughput: tput,
			Latency: result.Latency{Mean: 0.001, P50: 0.001, P90: 0.002, P99: 0.003, Max: 0.004}}
	}
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "router_mutex", Kind: result.KindServer, Study: "HTTP router", Stage: 3, Language: "Go",
			Workload: result.Workload{Name: result.WorkloadQuick}},
		Environment: result.Environment{Started: "2026-11-20T02:00:00Z", Origin: nightly,
			Source: result.Source{Commit: "c0ffee"}, Build: result.Build{CompilationMode: "opt", Config: result.ConfigQuick}},
		Server: &result.Server{Load: result.Load{Generator: "vegeta", Connections: 8},
			Rounds: []result.LoadRound{round(5000), round(5100)}, Exit: result.ServerExit{Clean: true}},
	}
	return writeResult(t, dir, r, map[string]string{})
}

var tables = []string{"history_meta", "environments", "results", "files", "figures", "figure_values", "alerts", "alert_changes"}

// dump is every row of every table, as text: two dumps are equal exactly
// when the database did not change.
func dump(t *testing.T, d *DB) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		rows, err := d.db.QueryContext(context.Background(), "SELECT * FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			lines = append(lines, fmt.Sprint(vals...))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(lines)
		fmt.Fprintf(&b, "%s: %d rows\n%s\n", table, len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}
