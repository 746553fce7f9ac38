package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/history/cmd/history/console"
	"havlak-lab/tools/result"
)

// writeNight writes a havlak6 result of commit into dir, with the origin
// of the nightly job when trusted.
func writeNight(t *testing.T, dir, commit, started string, trusted bool, real ...float64) {
	t.Helper()
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark: result.Benchmark{Name: "havlak6", Kind: result.KindProgram, Study: "Havlak loop finding", Stage: 6,
			Language: "Go", Workload: result.Workload{Name: result.WorkloadStandard}},
		Environment: result.Environment{
			Machine:    result.Machine{Hostname: "perf-1", CPUModel: "EPYC", Cores: 2},
			Toolchains: result.Toolchains{Go: "go1.27.4"},
			Source:     result.Source{Commit: commit},
			Build:      result.Build{CompilationMode: "opt", Config: result.ConfigPerf},
			Started:    started,
		},
		Timing: &result.Timing{Command: "havlak6"},
		Files:  []result.File{{Name: "cpu.pb.gz", Role: result.RoleProfile, Profile: "cpu"}},
	}
	if trusted {
		r.Environment.Origin = result.Origin{CI: "buildkite", BuildSource: "schedule", Branch: "main"}
	}
	for _, v := range real {
		r.Timing.Runs = append(r.Timing.Runs, result.Run{Usage: result.Usage{RealSeconds: v}})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu.pb.gz"), []byte("profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := result.Write(dir, r); err != nil {
		t.Fatal(err)
	}
}

func runHistory(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errs strings.Builder
	status = cli.Report(&errs, "history", run(context.Background(), args, &out, &errs))
	return out.String(), errs.String(), status
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "h.db")
	nights := filepath.Join(dir, "nights")
	writeNight(t, filepath.Join(nights, "2", "artifacts", "havlak6_test"), "c2", "2026-11-21T02:00:00Z", true, 2.0, 2.2)
	writeNight(t, filepath.Join(nights, "1", "artifacts", "havlak6_test"), "c1", "2026-11-20T02:00:00Z", true, 1.0, 1.1, 1.2)
	mine := filepath.Join(dir, "mine")
	writeNight(t, mine, "c3", "2026-11-22T09:00:00Z", false, 0.5)

	if out, errs, status := runHistory(t, "ingest", db, nights); status != 1 || !strings.Contains(errs, "history init") {
		t.Errorf("ingest before init: status %d, %s%s; want 1 and a pointer to history init", status, out, errs)
	}
	if out, errs, status := runHistory(t, "init", db); status != 0 || !strings.Contains(out, "a shared results database") {
		t.Fatalf("init: status %d, %s%s", status, out, errs)
	}
	out, errs, status := runHistory(t, "backfill", db, nights)
	if status != 0 || !strings.Contains(out, "2 results: 2 added, 0 already there, 0 untrusted, 0 refused") ||
		!strings.Contains(errs, "[1] added havlak6 at c1, 2026-11-20 02:00Z") {
		t.Errorf("backfill: status %d\n%s%s", status, out, errs)
	}
	// Again, with the untrusted one: refused by the shared database.
	out, errs, status = runHistory(t, "ingest", db, nights, mine)
	if status != 1 || !strings.Contains(out, "3 results: 0 added, 2 already there, 1 untrusted") ||
		!strings.Contains(errs, "history init --personal") {
		t.Errorf("ingest: status %d\n%s%s", status, out, errs)
	}
	out, errs, status = runHistory(t, "series", db, "--benchmark", "havlak6", "--figure", "real_seconds")
	if status != 0 {
		t.Fatalf("series: status %d\n%s%s", status, out, errs)
	}
	t.Logf("history series:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "havlak6 real_seconds (s, lower is better, gated; xtime)") ||
		!strings.Contains(lines[1], "perf-1, EPYC × 2, go1.27.4, opt") ||
		strings.Join(strings.Fields(lines[3]), " ") != "2026-11-20 02:00Z c1 3 1.1 1 1.2 18.18%" ||
		strings.Join(strings.Fields(lines[4]), " ") != "2026-11-21 02:00Z c2 2 2.1 2 2.2 9.52%" {
		t.Errorf("series printed:\n%s", out)
	}

	personal := filepath.Join(dir, "mine.db")
	if _, errs, status := runHistory(t, "init", "--personal", personal); status != 0 {
		t.Fatalf("init --personal: %s", errs)
	}
	if out, errs, status := runHistory(t, "ingest", personal, filepath.Join(mine, result.FileName)); status != 1 {
		t.Errorf("ingest of a result.json, not its directory: status %d\n%s%s", status, out, errs)
	}
	if out, errs, status := runHistory(t, "ingest", personal, mine); status != 0 || !strings.Contains(out, "1 added") {
		t.Errorf("personal ingest: status %d\n%s%s", status, out, errs)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"init"},
		{"init", "a.db", "b.db"},
		{"ingest", "a.db"},
		{"backfill", "a.db", "x", "y"},
		{"series"},
		{"series", "a.db", "--nosuchflag"},
	} {
		if _, errs, status := runHistory(t, args...); status != 2 || !strings.Contains(errs, "usage") {
			t.Errorf("history %q: status %d, %s; want 2 and the usage", args, status, errs)
		}
	}
	if _, _, status := runHistory(t, "series", "-h"); status != 0 {
		t.Errorf("history series -h: status %d, want 0", status)
	}
}

// Text from results reaches the terminal printed, not obeyed: an escape
// sequence in a host name is shown as one.
func TestSeriesEscapesTerminalSequences(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "h.db")
	night := filepath.Join(dir, "night")
	writeNight(t, night, "c1", "2026-11-20T02:00:00Z", false, 1.0)
	doc := filepath.Join(night, result.FileName)
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(doc, []byte(strings.Replace(string(data), `"perf-1"`, `"perf-1\u001b]0;pwned\u0007\u001b[2J"`, 1)), 0o644)
	for _, args := range [][]string{{"init", "--personal", db}, {"ingest", db, night}} {
		if out, errs, status := runHistory(t, args...); status != 0 {
			t.Fatalf("%v: status %d\n%s%s", args, status, out, errs)
		}
	}
	out, errs, status := runHistory(t, "series", db, "--benchmark", "havlak6")
	if status != 0 || strings.ContainsAny(out+errs, "\x1b\x07") || !strings.Contains(out, `perf-1\x1b]0;pwned\a\x1b[2J`) {
		t.Errorf("series: status %d, want the escape sequence shown, not sent:\n%q", status, out+errs)
	}
}

// A series nobody has is named with what the history has instead: the
// benchmarks, or a known benchmark's figures, escaped and at most
// console.MaxKnown.
func TestSeriesOfUnknownNames(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "h.db")
	if out, errs, status := runHistory(t, "init", "--personal", db); status != 0 {
		t.Fatalf("init: status %d\n%s%s", status, out, errs)
	}
	if _, errs, status := runHistory(t, "series", db, "--benchmark", "nope"); status != 1 ||
		!strings.Contains(errs, "no series: the history has no figure with values yet") {
		t.Errorf("series of an empty history: status %d, %s", status, errs)
	}
	// bench00 ... bench13, each with one night.
	for i := range console.MaxKnown + 2 {
		night := filepath.Join(dir, "nights", strconv.Itoa(i))
		writeNight(t, night, "c1", "2026-11-20T02:00:00Z", false, 1.0)
		doc := filepath.Join(night, result.FileName)
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		renamed := strings.Replace(string(data), `"havlak6"`, fmt.Sprintf(`"bench%02d"`, i), 1)
		if err := os.WriteFile(doc, []byte(renamed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, errs, status := runHistory(t, "ingest", db, filepath.Join(dir, "nights")); status != 0 {
		t.Fatalf("ingest: status %d\n%s%s", status, out, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--benchmark", "nope"}, `no series for benchmark "nope" (known: bench00, bench01, ` +
			`bench02, bench03, bench04, bench05, bench06, bench07, bench08, bench09, bench10, bench11, … 2 more)`},
		{[]string{"--benchmark", "bench03", "--figure", "nope"},
			`no series for figure "nope" of benchmark "bench03" (known: `},
		// --metric: the deprecated name of --figure, still read.
		{[]string{"--metric", "real_seconds", "--workload", "quick"},
			`no series for workload "quick" of figure "real_seconds" (known: standard)`},
		{[]string{"--benchmark", "\x1b]0;pwned\a"}, `no series for benchmark "\x1b]0;pwned\a" (known: `},
	} {
		out, errs, status := runHistory(t, append([]string{"series", db}, c.args...)...)
		if status != 1 || out != "" || !strings.Contains(errs, c.want) || strings.ContainsAny(errs, "\x1b\a") ||
			strings.Count(errs, "\n") != 1 {
			t.Errorf("series %q: status %d, stdout %q, stderr %q; want status 1 and one line with %q", c.args, status, out, errs, c.want)
		}
	}
	// A known benchmark's figures are its own, real_seconds among them.
	_, errs, _ := runHistory(t, "series", db, "--benchmark", "bench03", "--figure", "nope")
	if !strings.Contains(errs, "real_seconds") || strings.Contains(errs, "bench00") {
		t.Errorf("the figures of bench03: %s", errs)
	}
}
