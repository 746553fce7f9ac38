package web

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/complexity"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
	"havlak-lab/tools/result/resulttest"
)

// hostile is a name no page may take for markup.
const hostile = `<img src=x onerror=alert(1)>`

// nights is how many nights the test history holds; the last one is
// slower: havlak6's real time rises by half, its instructions by 5%.
const nights = 6

func commitOf(night int) string { return fmt.Sprintf("c%c%038x", 'a'+night, 0xc0ffee00+night) }

func nightTime(night int) time.Time {
	return time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC).Add(time.Duration(night) * 24 * time.Hour)
}

// program is one night's result of a program benchmark, as the runner
// writes it (tools/result); identity is the binary's sha256, "" for none.
func program(name string, stage, night int, real, instructions float64, identity string, extra ...result.Metric) *result.Result {
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: name, Kind: result.KindProgram, Study: "Havlak loop finding", Stage: stage, Language: "Go",
			Workload: result.Workload{Name: result.WorkloadQuick, Description: "the quick one"}, Repetitions: 5},
		Environment: result.Environment{
			Machine: result.Machine{Hostname: "perf-1", OS: "linux", Arch: "amd64", Kernel: "6.1", CPUModel: "EPYC", Cores: 2,
				MemoryBytes: 1 << 34, CPUState: result.CPUState{GovernorNote: "no cpufreq", TurboNote: "none", SMT: "notsupported"}},
			Toolchains: result.Toolchains{Go: "go1.27.4", GCC: "gcc 12.2.0", Bazel: "4.2.3"},
			Source:     result.Source{Commit: commitOf(night)},
			Build:      result.Build{CompilationMode: "opt", Config: result.ConfigPerf},
			Started:    nightTime(night).Format(time.RFC3339),
		},
		Timing: &result.Timing{Command: name},
		Metrics: append([]result.Metric{{Name: "own_instructions", Unit: "instructions", Source: "cachegrind", Exact: true,
			Cost: result.CostWork, Values: []float64{instructions}, Gated: true, Threshold: 0.01}}, extra...),
	}
	if identity != "" {
		r.Identity = &result.Identity{BinarySHA256: identity, RunSHA256: strings.Repeat("ab", 32), LabSHA256: strings.Repeat("1a", 32)}
	}
	for i := range 5 {
		v := real * (1 + 0.01*float64(i-2))
		r.Timing.Runs = append(r.Timing.Runs, result.Run{Start: nightTime(night).Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			Usage: result.Usage{RealSeconds: v, UserSeconds: v * 0.9, SysSeconds: 0.01, MaxRSSKiB: 1000}})
	}
	return r
}

// sweepOf is a gated sweep of figure (instructions) with counts at sizes,
// fitted.
func sweepOf(t testing.TB, figure string, sizes, counts []float64) result.Sweep {
	t.Helper()
	s := result.Sweep{Figure: figure, Unit: "instructions", N: "loops", Source: "cachegrind", Gated: true, Threshold: 0.01}
	for i, n := range sizes {
		s.Points = append(s.Points, result.SweepPoint{N: n, Value: counts[i]})
	}
	fit, _, err := complexity.Best(sizes, counts)
	if err != nil {
		t.Fatal(err)
	}
	s.Fit = fit
	return s
}

// testHistory makes an SQLite history of nights nights: havlak6 (with a
// figure named hostile), which slows down on the last night; havlak6cc,
// whose binary is the same on the last three nights, which sweep its count
// (its history calibrates its thresholds, its growth's too); a benchmark
// named
// hostile, whose name is forged in the database (tools/result refuses
// such a name, the dashboard must not trust the history for it); and
// alerts, one of them acknowledged with a hostile note.
func testHistory(t testing.TB) (*history.DB, string) {
	t.Helper()
	ctx := context.Background()
	// The history's directory is also the nightly job's archive, as the
	// nightly job keeps them (history.LocalDir): the dashboard serves it
	// (serve).
	path := filepath.Join(t.TempDir(), "history.sqlite")
	db, err := history.Create(ctx, path, history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ingest := func(r *result.Result) { ingestResult(t, db, r) }
	profiles := fixtureProfiles(t)
	for n := range nights {
		real, instructions := 1.0+0.002*float64(n%2), 1.69e8
		if n == nights-1 {
			real, instructions = 1.5, 1.69e8*1.05
		}
		archive(t, db, program("havlak6", 6, n, real, instructions, fmt.Sprintf("%064x", n),
			result.Metric{Name: hostile, Unit: "count", Source: "test", Values: []float64{7}}), profiles["havlak6"])
		binary := fmt.Sprintf("%064x", 100+n)
		if n >= nights-3 {
			binary = fmt.Sprintf("%064x", 100+nights-3)
		}
		cc := program("havlak6cc", 6, n, 0.8, 2.3e8, binary)
		cc.Benchmark.Language = "C++"
		if n >= nights-3 {
			cc.Sweeps = []result.Sweep{sweepOf(t, "own_instructions", []float64{1000, 2000, 4000, 8000}, []float64{2.31e6, 4.61e6, 9.21e6, 1.841e7})}
		}
		archive(t, db, cc, profiles["havlak6cc"])
		if n < 3 {
			forged := program("forged", 1, n, 2, 3e8, "")
			forged.Benchmark.Study = "Word count"
			ingest(forged)
		}
	}
	// The forged name, written into the database behind the history's back.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, table := range []string{"results", "series"} {
		if _, err := raw.Exec(`UPDATE `+table+` SET benchmark = ? WHERE benchmark = 'forged'`, hostile); err != nil {
			t.Fatal(err)
		}
	}

	last := alert.Night{Time: nightTime(nights - 1), Commit: commitOf(nights - 1), By: "nightly"}
	series := alert.Series{Benchmark: "havlak6", Figure: "real_seconds", Unit: "s", Workload: result.WorkloadQuick,
		EnvKey: result.EnvironmentKey(program("havlak6", 6, 0, 1, 1, "").Environment)}
	findings := []alert.Finding{
		{Kind: alert.Regression, Series: series, Size: 0.5, Before: 1, After: 1.5, Evidence: "1 → 1.5 s",
			Report: nightReport, ProfileDiffs: []string{archivedDiff},
			Range: alert.Range{From: commitOf(nights - 2), To: commitOf(nights - 1), FromTime: nightTime(nights - 2), ToTime: nightTime(nights - 1)}},
		{Kind: alert.Stale, Series: alert.Series{Benchmark: hostile, Workload: result.WorkloadQuick, EnvKey: series.EnvKey},
			LastPoint: nightTime(2)},
	}
	recorded, err := db.RecordAlerts(ctx, last, findings, func(alert.Alert) string { return "" })
	if err != nil || len(recorded) != 2 {
		t.Fatalf("recording alerts: %v (%d recorded)", err, len(recorded))
	}
	for _, a := range recorded {
		if a.Kind == alert.Stale {
			if _, err := db.ChangeAlert(ctx, a.ID, alert.Change{State: alert.Acknowledged, By: "ann", At: last.Time,
				Note: `<script>alert(2)</script> known`}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db, path
}

// The last night's report and havlak6's profile diff in the night's
// archive, as the nightly job records them with its alerts.
const (
	nightReport  = "/var/lab/history/nights/20261106T020000Z-cf0000000000/report/index.html"
	archivedDiff = "/var/lab/history/nights/20261106T020000Z-cf0000000000/report/stages/havlak6/cpu-diff.svg"
)

// newHistory is an empty SQLite history of the test's own, closed when it
// ends.
func newHistory(t testing.TB) *history.DB {
	t.Helper()
	db, err := history.Create(context.Background(), filepath.Join(t.TempDir(), "history.sqlite"), history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// serve serves the dashboard over db for the test, and the nightly
// job's archive beside it (testHistory).
func serve(t *testing.T, db *history.DB) *httptest.Server {
	t.Helper()
	s, err := New(db, Options{Archive: filepath.Dir(db.Name())})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// ingestResult enters r into db as history ingest does: written out, then
// read back from its directory.
func ingestResult(t testing.TB, db *history.DB, r *result.Result) {
	t.Helper()
	dir := t.TempDir()
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Ingest(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
}

// fixtureResults are the report's fixtures: real results of one quick run
// of the suite, with real profiles (//tools/report:fixtures).
const fixtureResults = "../../report/testdata/results"

// fixtureProfiles are the profiles (role profile: cpu.pb.gz, heap.pb.gz)
// of havlak6's and havlak6cc's results among the report's fixtures, by
// benchmark, each file by its result.File.
func fixtureProfiles(t testing.TB) map[string]map[result.File][]byte {
	t.Helper()
	out := map[string]map[result.File][]byte{}
	for _, benchmark := range []string{"havlak6", "havlak6cc"} {
		r, files, err := result.Read(filepath.Join(fixtureResults, benchmark+"_quick_test", result.ZipName))
		if err != nil {
			t.Fatal(err)
		}
		out[benchmark] = map[result.File][]byte{}
		for _, f := range r.FilesWith(result.RoleProfile) {
			data, err := files.ReadFile(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			out[benchmark][f] = data
		}
		files.Close()
		if len(out[benchmark]) < 2 {
			t.Fatalf("%s's fixture keeps %d profiles, want cpu and heap", benchmark, len(out[benchmark]))
		}
	}
	return out
}

// archivedNight is the directory of the archive in which the nightly job
// keeps the night of r (tools/nightly/night: when it started, and its
// commit).
func archivedNight(db *history.DB, r *result.Result) string {
	started, _ := time.Parse(time.RFC3339, r.Environment.Started)
	return filepath.Join(filepath.Dir(db.Name()), history.NightsDir,
		started.UTC().Format("20060102T150405Z")+"-"+gitwork.Short(r.Environment.Source.Commit))
}

// archive enters r, with the profiles given, into the nightly job's
// archive beside db, as the nightly job does: its outputs.zip in the
// night's directory, ingested from there; and the night's report, a page
// that runs a script.
func archive(t testing.TB, db *history.DB, r *result.Result, profiles map[result.File][]byte) {
	t.Helper()
	dir := t.TempDir()
	for f, data := range profiles {
		if err := os.WriteFile(filepath.Join(dir, f.Name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		r.Files = append(r.Files, f)
	}
	slices.SortFunc(r.Files, func(a, b result.File) int { return strings.Compare(a.Name, b.Name) })
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	night := archivedNight(db, r)
	zipPath := filepath.Join(night, r.Benchmark.Name+"_quick_test", result.ZipName)
	resulttest.ZipDir(t, dir, zipPath)
	if _, err := db.Ingest(context.Background(), zipPath); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(night, nightdir.Report, "index.html")
	if err := os.MkdirAll(filepath.Dir(report), 0o755); err != nil {
		t.Fatal(err)
	}
	page := "<!DOCTYPE html><title>night</title><h1 id=night-report>The night of " + r.Environment.Source.Commit + "</h1>" +
		"<script>document.title = 'ran ' + document.domain;</script>"
	if err := os.WriteFile(report, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
}
