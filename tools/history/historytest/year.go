// Package historytest fills histories for tests and benchmarks: a year of
// nightly results of a suite the size of a team's (Year), with alerts, to
// measure the dashboard's pages on.
//
// Fill inserts the results either through the history's own ingest path
// (history.DB.IngestOutputs, one transaction per result) or, for a big
// history, in bulk: the same rows, computed by the same functions
// (result.Figures, result.EnvironmentKey, the sha256 of the same
// result.json), written many to a statement and many statements to a
// transaction. TestBulkIsIngest checks that both leave the same tables.
// The alerts always go through the history (RecordAlerts, ChangeAlert).
package historytest

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
)

// Version is the generator's: a cached history (Cached) made by another
// version is made again. 4: the history's schema version 6.
const Version = 4

// seed seeds the results' noise: the numbers of Version 3, kept so that a
// figure measured on a history of one Version and of another (of another
// schema, the same results) compare.
const seed = 3

// A Spec is the shape of a generated history: every benchmark has a result
// every night on both workloads (quick and standard) in both environments
// (two machines, so two environment keys).
type Spec struct {
	Benchmarks int
	// Figures per result, at least 5: the 5 of xtime's timed runs
	// (real_seconds, user_seconds, sys_seconds, cpu_seconds,
	// max_rss_kib), the rest exact counts (metrics with one value).
	Figures int
	Nights  int
	// Runs is how many timed runs each result has.
	Runs int
	// Alerts: one per night that has one, on a series of its own, until
	// there are this many; a third of them then acknowledged, a sixth
	// fixed.
	Alerts int
	// Trusted: the results come from the scheduled build of main
	// (result.Origin.Trusted), and Fill makes a shared history, which
	// ingest checks them against; else they are a workstation's, in a
	// personal history.
	Trusted bool
}

// Year is a year of nightly results for 40 benchmarks × 30 figures ×
// 2 workloads × 2 environment keys: 1,752,000 points (a result's figure)
// in 58,400 results, and 300 alerts.
var Year = Spec{Benchmarks: 40, Figures: 30, Nights: 365, Runs: 3, Alerts: 300}

// Scale is three years of nightly results of 75 benchmarks × 2 workloads
// × 2 environment keys (300 results a night) × 30 figures, from the
// scheduled build of main into a shared history: 9,855,000 points in
// 328,500 results, and 1,000 alerts (docs/scale.md).
var Scale = Spec{Benchmarks: 75, Figures: 30, Nights: 3 * 365, Runs: 3, Alerts: 1000, Trusted: true}

// TrustedOrigin is the origin of a trusted Spec's results: a scheduled
// build of main.
var TrustedOrigin = result.Origin{CI: "buildkite", BuildSource: "schedule", Repository: "git@example.com:lab/havlak-lab.git",
	Branch: result.TrustedBranch, Pipeline: "nightly"}

// access is the history Fill makes for s.
func (s Spec) access() history.Access {
	if s.Trusted {
		return history.Shared
	}
	return history.Personal
}

// Workloads and Machines are what every benchmark runs on, each night.
var (
	Workloads = []string{result.WorkloadQuick, result.WorkloadStandard}
	Machines  = []string{"perf-1", "perf-2"}
)

// Points is how many points (a result's figure) s makes.
func (s Spec) Points() int {
	return s.Results() * s.Figures
}

// Results is how many results s makes.
func (s Spec) Results() int {
	return s.Benchmarks * len(Workloads) * len(Machines) * s.Nights
}

// Day0 is the first night's date.
var Day0 = time.Date(2025, 1, 1, 2, 0, 0, 0, time.UTC)

// NightTime is when night n's suite started.
func NightTime(n int) time.Time { return Day0.Add(time.Duration(n) * 24 * time.Hour) }

// Commit is night n's commit.
func Commit(n int) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("night %d", n)))
	return hex.EncodeToString(sum[:])
}

// Benchmark is the name of benchmark b.
func Benchmark(b int) string { return fmt.Sprintf("bench%02d", b) }

// Figure is the name of figure m, a metric of the results (0 is
// instructions, a gated one).
func Figure(m int) string {
	names := []string{result.MetricInstructions, result.MetricD1Misses, result.MetricLLMisses, result.MetricEstimatedCycles, "branch_misses"}
	if m < len(names) {
		return names[m]
	}
	return fmt.Sprintf("event_%02d", m)
}

// EnvKey is the environment key of machine i's results.
func EnvKey(machine int) string {
	return result.EnvironmentKey(Result(Spec{Figures: 5, Runs: 1}, 0, 0, machine, 0).Environment)
}

// Result is benchmark b's result on workload w and machine m on night n.
// Its figures are flat but for noise (a tenth of a percent for counts, a
// percent for times) and one step of 3% on night (37·b) mod Nights.
func Result(s Spec, b, w, m, n int) *result.Result {
	rng := rand.New(rand.NewPCG(uint64(b)<<40|uint64(w)<<36|uint64(m)<<32|uint64(n), seed))
	step := 1.0
	if s.Nights > 0 && n >= (37*b)%s.Nights {
		step = 1.03
	}
	start := NightTime(n).Add(time.Duration(b*4+w*2+m) * time.Minute)
	language := "Go"
	if b%2 == 1 {
		language = "C++"
	}
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Identity: &result.Identity{BinarySHA256: hash(fmt.Sprintf("binary %d %d", b, n)),
			RunSHA256: hash(fmt.Sprintf("run %d %d %d", b, w, n)), LabSHA256: hash("the lab")},
		Benchmark: result.Benchmark{Name: Benchmark(b), Kind: result.KindProgram, Study: "generated", Stage: b%8 + 1,
			Language: language, Workload: result.Workload{Name: Workloads[w], Description: Workloads[w] + " workload"},
			Repetitions: s.Runs},
		Environment: result.Environment{
			Machine: result.Machine{Hostname: Machines[m], OS: "linux", Arch: "amd64", Kernel: "6.1.0-18-amd64",
				CPUModel: "AMD EPYC 7B13", Cores: 2, MemoryBytes: 24 << 30,
				CPUState: result.CPUState{GovernorNote: "no cpufreq", TurboNote: "none", SMT: "notsupported"}},
			Toolchains: result.Toolchains{Go: "go1.27.4", GCC: "gcc 12.2.0", Bazel: "4.2.3"},
			Source:     result.Source{Commit: Commit(n)},
			Build:      result.Build{CompilationMode: "opt", Config: result.ConfigPerf},
			Started:    start.Format(time.RFC3339),
		},
		Timing: &result.Timing{Command: Benchmark(b), Args: []string{"-workload", Workloads[w]}},
		Files: []result.File{{Name: "cpu.pprof", Role: result.RoleProfile, Profile: "cpu"},
			{Name: "cpu.svg", Role: result.RoleView, Profile: "cpu"}},
	}
	if s.Trusted {
		r.Environment.Origin = TrustedOrigin
		r.Environment.Origin.BuildURL = fmt.Sprintf("https://ci.example.com/nightly/builds/%d", 1000+n)
	}
	real := (0.5 + 0.05*float64(b)) * float64(1+3*w) * step
	for i := range s.Runs {
		v := real * (1 + 0.01*rng.NormFloat64())
		r.Timing.Runs = append(r.Timing.Runs, result.Run{Start: start.Add(time.Duration(i) * 2 * time.Second).Format(time.RFC3339),
			Usage: result.Usage{RealSeconds: v, UserSeconds: v * 0.95, SysSeconds: 0.01 * v, MaxRSSKiB: int64(50000 + 1000*b)}})
	}
	for i := range s.Figures - 5 {
		base := 1e8 * float64(1+b) * float64(1+w) / float64(1+i)
		v := math.Round(base * step * (1 + 0.001*rng.NormFloat64()))
		metric := result.Metric{Name: Figure(i), Unit: "count", Source: "cachegrind", Exact: true, Values: []float64{v}}
		if i == 0 {
			metric.Unit, metric.Gated, metric.Threshold = result.UnitInstructions, true, 0.01
		}
		r.Metrics = append(r.Metrics, metric)
	}
	return r
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Source is where result (b, w, m, n) is said to be: a night's archive.
func Source(b, w, m, n int) string {
	return fmt.Sprintf("/var/cache/havlak-lab/history/nights/%s/%s-%s-%s", NightTime(n).Format("2006-01-02"),
		Benchmark(b), Workloads[w], Machines[m])
}

// memOutputs are a generated result's files, in memory.
type memOutputs map[string][]byte

func outputsOf(r *result.Result) (memOutputs, error) {
	doc, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	out := memOutputs{result.FileName: append(doc, '\n')}
	for _, f := range r.Files {
		out[f.Name] = []byte("generated " + f.Name)
	}
	return out, nil
}

func (o memOutputs) ReadFile(name string) ([]byte, error) {
	data, ok := o[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return data, nil
}

func (o memOutputs) OpenFile(name string) (io.ReadCloser, error) {
	data, err := o.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (o memOutputs) Path(name string) string { return "generated:" + name }
func (o memOutputs) Close() error            { return nil }

// night calls fn with every result of s on night n.
func (s Spec) night(n int, fn func(b, w, m int, r *result.Result) error) error {
	for b := range s.Benchmarks {
		for w := range Workloads {
			for m := range Machines {
				if err := fn(b, w, m, Result(s, b, w, m, n)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Ingest adds s's results to db through its ingest path, one result and
// one transaction at a time, as the nightly job does.
func Ingest(ctx context.Context, db *history.DB, s Spec) error {
	for n := range s.Nights {
		err := s.night(n, func(b, w, m int, r *result.Result) error {
			out, err := outputsOf(r)
			if err != nil {
				return err
			}
			_, err = db.IngestOutputs(ctx, out, Source(b, w, m, n))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// RecordAlerts enters s's alerts through the history (RecordAlerts, then
// ChangeAlert): a regression of one series a night, on nights 10, 11, ...,
// a third of them acknowledged and a sixth fixed.
func RecordAlerts(ctx context.Context, db *history.DB, s Spec) error {
	envs := []string{EnvKey(0), EnvKey(1)}
	for i := range s.Alerts {
		n := 10 + i%max(1, s.Nights-10)
		b, f := i%s.Benchmarks, (i/s.Benchmarks)%(s.Figures-5)
		w, m := (i/2)%len(Workloads), i%len(Machines)
		night := alert.Night{Time: NightTime(n), Commit: Commit(n), By: "nightly"}
		unit := "count"
		if f == 0 {
			unit = result.UnitInstructions
		}
		finding := alert.Finding{Kind: alert.Regression,
			Series: alert.Series{Benchmark: Benchmark(b), Figure: Figure(f), Unit: unit, Workload: Workloads[w], EnvKey: envs[m]},
			Size:   0.03, Before: 1e8, After: 1.03e8, Evidence: fmt.Sprintf("generated alert %d", i),
			Range: alert.Range{From: Commit(n - 1), To: Commit(n), FromTime: NightTime(n - 1), ToTime: NightTime(n)}}
		recorded, err := db.RecordAlerts(ctx, night, []alert.Finding{finding}, func(alert.Alert) string { return "" })
		if err != nil {
			return err
		}
		for _, a := range recorded {
			var c alert.Change
			switch i % 6 {
			case 0, 3:
				c = alert.Change{State: alert.Acknowledged, By: "ann", At: night.Time.Add(time.Hour), Note: "looking"}
			case 5:
				c = alert.Change{State: alert.Fixed, By: "bob", At: night.Time.Add(2 * time.Hour), Note: "reverted"}
			default:
				continue
			}
			if _, err := db.ChangeAlert(ctx, a.ID, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Fill makes a history at dsn (history.Create: shared when s is Trusted,
// else personal) and fills it with s: the results in bulk (Bulk), the
// alerts through the history.
func Fill(ctx context.Context, dsn string, s Spec) error {
	db, err := history.Create(ctx, dsn, s.access())
	if err != nil {
		return err
	}
	// Bulk writes through a connection of its own, which on SQLite sets
	// the file's journal: no other may be open meanwhile.
	if err := db.Close(); err != nil {
		return err
	}
	if err := Bulk(ctx, dsn, s); err != nil {
		return err
	}
	if db, err = history.Open(ctx, dsn); err != nil {
		return err
	}
	defer db.Close()
	return RecordAlerts(ctx, db, s)
}

// WriteNight writes night n's results of s as the nightly job's archive
// keeps a night: dir/TEST/outputs.zip, each a result.json and the files it
// lists, TEST naming the benchmark, workload and machine. It returns the
// zips' paths, for history.DB.Ingest.
func WriteNight(dir string, s Spec, n int) ([]string, error) {
	var zips []string
	err := s.night(n, func(b, w, m int, r *result.Result) error {
		out, err := outputsOf(r)
		if err != nil {
			return err
		}
		test := filepath.Join(dir, fmt.Sprintf("%s_%s_%s_test", Benchmark(b), Workloads[w], Machines[m]))
		if err := os.MkdirAll(test, 0o755); err != nil {
			return err
		}
		path := result.NightZip(dir, filepath.Base(test))
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		zw := zip.NewWriter(f)
		for _, name := range slices.Sorted(maps.Keys(out)) {
			w, err := zw.Create(name)
			if err == nil {
				_, err = w.Write(out[name])
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		if err := zw.Close(); err != nil {
			f.Close()
			return err
		}
		zips = append(zips, path)
		return f.Close()
	})
	return zips, err
}
