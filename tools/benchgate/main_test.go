package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// benchFile writes results in Go benchmark format: count runs of each
// benchmark, with ns/op and allocs/op spread around the given values.
func benchFile(t *testing.T, name string, results map[string][2]float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example\n")
	for bench, v := range results {
		for i := 0; i < 6; i++ {
			// 1% apart: the U test sees two separate groups, or none.
			ns := v[0] * (1 + float64(i)/100)
			fmt.Fprintf(&b, "Benchmark%s-2\t1000\t%.1f ns/op\t%d B/op\t%g allocs/op\n", bench, ns, int(v[1])*16, v[1])
		}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gate(t *testing.T, args ...string) (bool, string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	sum, err := run(args, &stdout, &stderr)
	if err == nil && sum.Status() == verdict.StatusNotComparable {
		err = cli.ExitError{Status: sum.Status()} // as main says it
	}
	return sum != nil && sum.Status() == verdict.StatusRegressed, stdout.String(), stderr.String(), err
}

func TestGate(t *testing.T) {
	old := benchFile(t, "old.txt", map[string][2]float64{"Split/path=a": {100, 2}, "Split/path=b": {200, 3}})
	zero := benchFile(t, "zero.txt", map[string][2]float64{"Split/path=a": {100, 0}})
	if regressed, _, stderr, err := gate(t, zero, old); err != nil || !regressed || !strings.Contains(stderr, "Split/path=a-2 allocs/op from 0 to 2") {
		t.Errorf("from no allocation to two: regressed %v, %v, stderr %q", regressed, err, stderr)
	}
	for _, c := range []struct {
		name      string
		new       map[string][2]float64
		regressed string // in stderr, or "" for none
	}{
		{"the same", map[string][2]float64{"Split/path=a": {100, 2}, "Split/path=b": {200, 3}}, ""},
		{"3% slower: noise", map[string][2]float64{"Split/path=a": {103, 2}, "Split/path=b": {200, 3}}, ""},
		{"faster, fewer allocations", map[string][2]float64{"Split/path=a": {50, 1}, "Split/path=b": {100, 1}}, ""},
		{"20% slower", map[string][2]float64{"Split/path=a": {120, 2}, "Split/path=b": {200, 3}}, "Split/path=a-2 sec/op +20"},
		{"one more allocation", map[string][2]float64{"Split/path=a": {100, 2}, "Split/path=b": {200, 4}}, "Split/path=b-2 allocs/op +33"},
		{"a new benchmark", map[string][2]float64{"Split/path=a": {100, 2}, "Split/path=b": {200, 3}, "Split/path=c": {10, 1}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			regressed, stdout, stderr, err := gate(t, "-units=all", old, benchFile(t, "new.txt", c.new))
			if err != nil {
				t.Fatal(err)
			}
			if regressed != (c.regressed != "") || !strings.Contains(stderr, c.regressed) {
				t.Errorf("regressed %v, stderr %q; want %q\n%s", regressed, stderr, c.regressed, stdout)
			}
		})
	}
}

func TestUnitsAndRenamedBenchmarks(t *testing.T) {
	// One file, two implementations: Slow allocates more and takes longer.
	both := benchFile(t, "both.txt", map[string][2]float64{
		"Slow/path=a": {300, 4}, "Fast/path=a": {100, 1},
		"Slow/path=b": {600, 5}, "Fast/path=b": {200, 1},
	})
	regressed, stdout, _, err := gate(t, "-old-bench", "Slow", "-new-bench", "BenchmarkFast", both, both)
	if err != nil || regressed {
		t.Errorf("Slow -> Fast: regressed %v, %v\n%s", regressed, err, stdout)
	}
	if !strings.Contains(stdout, "*/path=b-2") || !strings.Contains(stdout, "better") {
		t.Errorf("Slow -> Fast should compare the sub-benchmarks by name:\n%s", stdout)
	}
	regressed, _, stderr, err := gate(t, "-old-bench", "Fast", "-new-bench", "Slow", "-units", "allocs/op", both, both)
	if err != nil || !regressed || strings.Contains(stderr, "sec/op") || !strings.Contains(stderr, "allocs/op") {
		t.Errorf("Fast -> Slow, allocs/op only: regressed %v, %v, stderr:\n%s", regressed, err, stderr)
	}
}

func TestBadInput(t *testing.T) {
	good := benchFile(t, "good.txt", map[string][2]float64{"X": {1, 1}})
	empty := filepath.Join(t.TempDir(), "empty.txt")
	os.WriteFile(empty, []byte("goos: linux\n"), 0o644)
	for _, args := range [][]string{
		{good},
		{good, filepath.Join(t.TempDir(), "missing.txt")},
		{good, empty},
		{"-old-bench", "X", good, good},
		{"-threshold=-1", good, good},
		{"-old-bench", "Y", "-new-bench", "X", good, good},
	} {
		_, _, _, err := gate(t, args...)
		if !errors.As(err, new(cli.UsageError)) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// goBenchResult writes a go_benchmark result holding the Go benchmark file
// bench, run on a machine with cores cores.
func goBenchResult(t *testing.T, bench string, cores int) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(bench)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "bench.txt"), data, 0o644)
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "explodepath", Kind: result.KindGoTest, Study: "explodePath", Language: "Go",
			Workload: result.Workload{Name: result.WorkloadStandard}},
		Environment: result.Environment{Machine: result.Machine{Cores: cores}},
		GoBench:     "bench.txt",
	}
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestResultsAsInput(t *testing.T) {
	fast := benchFile(t, "fast.txt", map[string][2]float64{"X": {100, 1}})
	slow := benchFile(t, "slow.txt", map[string][2]float64{"X": {200, 1}})
	regressed, stdout, _, err := gate(t, "-units=all", goBenchResult(t, fast, 2), goBenchResult(t, slow, 2))
	if err != nil || !regressed {
		t.Errorf("results of one machine, 2x slower: regressed %v, %v\n%s", regressed, err, stdout)
	}
	_, _, stderr, err := gate(t, goBenchResult(t, fast, 2), goBenchResult(t, fast, 64))
	if cli.Status(err) != verdict.StatusNotComparable || !strings.Contains(stderr, `machine.cores: "2" → "64"`) {
		t.Errorf("results of two machines: %v (status %d), want status %d naming the cores\n%s", err, cli.Status(err), verdict.StatusNotComparable, stderr)
	}
	regressed, _, _, err = gate(t, "-units=all", "-allow-env-change", goBenchResult(t, fast, 2), goBenchResult(t, slow, 64))
	if err != nil || !regressed {
		t.Errorf("-allow-env-change: regressed %v, %v; want the comparison made", regressed, err)
	}
	program := t.TempDir()
	os.WriteFile(filepath.Join(program, result.FileName), []byte(`{"schema_version": 1}`), 0o644)
	if _, _, _, err := gate(t, program, goBenchResult(t, fast, 2)); !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), program) {
		t.Errorf("an invalid result: %v, want a usage error naming it", err)
	}
}

// By default only the exact units are gated: time is shown.
func TestTimeIsNotGatedByDefault(t *testing.T) {
	old := benchFile(t, "old.txt", map[string][2]float64{"X": {100, 1}})
	slow := benchFile(t, "slow.txt", map[string][2]float64{"X": {300, 1}})
	regressed, stdout, _, err := gate(t, old, slow)
	if err != nil || regressed || !strings.Contains(stdout, "worse") {
		t.Errorf("3x slower, same allocations: regressed %v, %v; want shown as worse, not gated\n%s", regressed, err, stdout)
	}
}

func TestSummary(t *testing.T) {
	old := benchFile(t, "old.txt", map[string][2]float64{"Split/path=a": {100, 2}, "Split/path=b": {200, 3}})
	more := benchFile(t, "new.txt", map[string][2]float64{"Split/path=a": {100, 2}, "Split/path=b": {200, 4}})
	path := filepath.Join(t.TempDir(), summary.FileName)
	if regressed, _, _, err := gate(t, "-summary", path, old, more); err != nil || !regressed {
		t.Fatalf("one more allocation: regressed %v, %v", regressed, err)
	}
	s, err := summary.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	// A file's lines are one benchmark's figures, each line's measures
	// by unit, as a go_benchmark result's are (result.Figures).
	if s.Status() != verdict.StatusRegressed || len(s.Regressed()) != 1 || s.Regressed()[0].Name != filesBenchmark ||
		s.Regressed()[0].Failing()[0].Figure != "Split/path=b-2" {
		t.Errorf("summary: status %d, regressed %+v", s.Status(), s.Regressed())
	}

	fast := benchFile(t, "fast.txt", map[string][2]float64{"X": {100, 1}})
	gate(t, "-summary", path, goBenchResult(t, fast, 2), goBenchResult(t, fast, 64))
	if s, err = summary.Read(path); err != nil || s.Status() != verdict.StatusNotComparable || s.Benchmarks[0].Name != "explodepath" {
		t.Errorf("two machines: %+v, %v", s, err)
	}
}

// A gated unit of the baseline that tonight's lines lack is missing, and
// fails: what the gate cannot see.
func TestGatedUnitGone(t *testing.T) {
	old := benchFile(t, "old.txt", map[string][2]float64{"Split/path=a": {100, 2}})
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example\n")
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "BenchmarkSplit/path=a-2\t1000\t%.1f ns/op\n", 100*(1+float64(i)/100))
	}
	now := filepath.Join(t.TempDir(), "new.txt")
	if err := os.WriteFile(now, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	regressed, _, stderr, err := gate(t, old, now)
	if err != nil || !regressed || !strings.Contains(stderr, "Split/path=a-2 allocs/op MISSING") {
		t.Errorf("allocs/op gone: regressed %v, %v, stderr %q; want a failing MISSING", regressed, err, stderr)
	}
}
