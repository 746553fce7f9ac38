package exports

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/result"
)

var benchstatCmd = flag.String("benchstat", "", "the benchstat binary (Bazel gives //tools:benchstat); built with the go command when empty")

// benchstat returns the benchstat binary: Bazel's, or one the go command
// builds at the version go.mod pins.
func benchstat(t *testing.T) string {
	t.Helper()
	if *benchstatCmd != "" {
		if dir := os.Getenv("TEST_SRCDIR"); dir != "" && !filepath.IsAbs(*benchstatCmd) {
			return filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), *benchstatCmd)
		}
		return *benchstatCmd
	}
	bin := filepath.Join(t.TempDir(), "benchstat")
	cmd := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building benchstat (or give -benchstat): %v\n%s", err, out)
	}
	return bin
}

func runBenchstat(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(benchstat(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// twoNights is the real night's havlak6 and havlak6cc, with Cachegrind's
// counts as the runner records them, and a later night where havlak6cc
// runs 2% more instructions and havlak6 a little more of its own.
func twoNights(t *testing.T) (before, after Set) {
	night := only(readNight(t, nightDir), "havlak6", "havlak6cc")
	before = withCounts(t, night, "havlak6cc", false,
		cachegrind.Counts{Total: 238961179}, cachegrind.Counts{Total: 238961179}, cachegrind.Counts{Total: 238961179})
	before = withCounts(t, before, "havlak6", true,
		cachegrind.Counts{Total: 248206000, Own: 169027100}, cachegrind.Counts{Total: 250517000, Own: 169029000},
		cachegrind.Counts{Total: 249100000, Own: 169028000})
	after = withCounts(t, withCommit(night, "feedc0de"), "havlak6cc", false,
		cachegrind.Counts{Total: 243740403}, cachegrind.Counts{Total: 243740403}, cachegrind.Counts{Total: 243740403})
	after = withCounts(t, after, "havlak6", true,
		cachegrind.Counts{Total: 248306000, Own: 169127100}, cachegrind.Counts{Total: 250617000, Own: 169129000},
		cachegrind.Counts{Total: 249200000, Own: 169128000})
	return before, after
}

// benchstat reads the export, and compares the exact counts as exact:
// their value without a confidence interval and any change a change, no
// p-value; the Unit line is what makes it so.
func TestBenchstatReadsExactCounts(t *testing.T) {
	before, after := twoNights(t)
	dir := t.TempDir()
	old := writeFile(t, dir, "old.txt", export(t, GoBench, before))
	nu := writeFile(t, dir, "new.txt", export(t, GoBench, after))
	data, err := os.ReadFile(nu)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("\nUnit instructions-exact assume=exact\n")) ||
		bytes.Contains(data, []byte("Unit instructions assume=exact")) || bytes.Contains(data, []byte("Unit own_instructions-instructions assume")) {
		t.Errorf("the Unit lines should mark exactly the C++ program's count exact:\n%s", data)
	}
	out := runBenchstat(t, "-ignore", "commit", old, nu)
	exact := row(t, out, "instructions-exact", "Havlak6cc")
	if !strings.Contains(exact, "239.0M ± 0%") || !strings.Contains(exact, "243.7M ± 0%") ||
		!strings.Contains(exact, "+2.00% (n=3)") || strings.Contains(exact, "p=") {
		t.Errorf("benchstat on the exact count: %q; want 239.0M ± 0%%, 243.7M ± 0%%, +2.00%% (n=3), no p-value\n%s", exact, out)
	}
	own := row(t, out, "own_instructions-instructions", "Havlak6")
	if !strings.Contains(own, "± ∞") || !strings.Contains(own, "~ (p=0.100 n=3)") {
		t.Errorf("benchstat on a Go program's own instructions, not exact: %q; want a U test (p=0.100 n=3)\n%s", own, out)
	}

	// Without the Unit line, benchstat assumes nothing of the same count.
	strip := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return writeFile(t, t.TempDir(), filepath.Base(path), bytes.ReplaceAll(data, []byte("Unit instructions-exact assume=exact\n"), nil))
	}
	plain := row(t, runBenchstat(t, "-ignore", "commit", strip(old), strip(nu)), "instructions-exact", "Havlak6cc")
	if !strings.Contains(plain, "p=") {
		t.Errorf("without assume=exact benchstat should run its U test: %q", plain)
	}

	// One export of both nights (as history export writes a series): a
	// column per commit.
	both := writeFile(t, dir, "both.txt", export(t, GoBench, Set{Inputs: append(slicesClone(before.Inputs), after.Inputs...)}))
	out = runBenchstat(t, "-col", "commit", both)
	if exact := row(t, out, "instructions-exact", "Havlak6cc"); !strings.Contains(exact, "+2.00% (n=3)") || strings.Contains(exact, "p=") {
		t.Errorf("benchstat -col commit on one file of both nights: %q\n%s", exact, out)
	}
}

// row returns the line of benchstat's table of unit that starts with
// benchmark.
func row(t *testing.T, out, unit, benchmark string) string {
	t.Helper()
	for _, table := range strings.Split(out, "\n\n") {
		lines := strings.Split(table, "\n")
		header := ""
		for _, line := range lines {
			if strings.HasPrefix(strings.TrimSpace(line), "│") && header == "" && strings.Contains(line, " "+unit+" ") {
				header = line
			}
			if header != "" && strings.HasPrefix(line, benchmark+" ") {
				return line
			}
		}
	}
	t.Fatalf("benchstat printed no %s row in a table of %s:\n%s", benchmark, unit, out)
	return ""
}

// Every line of the export is what benchfmt's reader takes: the
// configuration of each result, its figures, no syntax error.
func TestGoBenchIsReadBack(t *testing.T) {
	night := readNight(t, nightDir, serversDir)
	data := export(t, GoBench, night)
	reader := benchfmt.NewReader(bytes.NewReader(data), "night.txt")
	lines := map[string]int{}
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("%v", rec)
		case *benchfmt.Result:
			lines[rec.Name.String()]++
			for _, key := range []string{"commit", "machine", "go-version", "workload", "environment", "cpu"} {
				if rec.GetConfig(key) == "" {
					t.Errorf("%s: no %s configuration", rec.Name, key)
				}
			}
			if rec.Name.String() == "Router_mutex" {
				if v, ok := rec.Value("throughput-requests/s"); !ok || v != 15819.659888299733 {
					t.Errorf("router_mutex throughput %v, %v", v, ok)
				}
			}
		}
	}
	if lines["Havlak6"] != 5 || lines["Havlak1cc"] != 5 || lines["Router_mutex"] != 1 {
		t.Errorf("lines per benchmark: %v; want the 5 timed runs of each program, the server's 1 round", lines)
	}
	if got := reader.Units().GetBetter("throughput-requests/s"); got != 1 {
		t.Errorf("throughput: better %d, want higher (1)", got)
	}
	for _, key := range []string{"goos", "goarch", "cpu", "cores", "machine", "go-version", "gcc-version", "compilation-mode",
		"environment", "commit", "dirty", "study", "workload"} {
		if !validConfigKey(key) {
			t.Errorf("configuration key %q is not one the format reads", key)
		}
	}
}

// Names and units from a result are untrusted: what the format would
// misread is refused, what would break a line is made one line.
func TestGoBenchHostile(t *testing.T) {
	night := only(readNight(t, nightDir), "havlak6")
	r := *night.Inputs[0].Result
	r.Benchmark.Name = "router-2"
	if _, err := goBench(Set{Inputs: []Input{{&r, night.Inputs[0].Outputs}}}); err == nil || !strings.Contains(err.Error(), "GOMAXPROCS") {
		t.Errorf("a name ending in -2: %v", err)
	}
	r = *night.Inputs[0].Result
	r.Metrics = []result.Metric{{Name: "own instructions", Unit: "instructions", Source: "x", Values: []float64{1}}}
	if _, err := goBench(Set{Inputs: []Input{{&r, night.Inputs[0].Outputs}}}); err == nil || !strings.Contains(err.Error(), "one word") {
		t.Errorf("a unit with a space: %v", err)
	}
	r = *night.Inputs[0].Result
	r.Metrics = []result.Metric{{Name: "real_seconds-s", Unit: "count", Source: "x", Values: []float64{1}},
		{Name: "real_seconds", Unit: "s-count", Source: "y", Values: []float64{2}}}
	if _, err := goBench(Set{Inputs: []Input{{&r, night.Inputs[0].Outputs}}}); err == nil || !strings.Contains(err.Error(), "would both be unit real_seconds-s-count") {
		t.Errorf("two figures of one unit: %v", err)
	}
	r = *night.Inputs[0].Result
	r.Environment.Toolchains.GCC = "gcc 12\nBenchmarkForged 1 1 ns/op"
	data, err := goBench(Set{Inputs: []Input{{&r, night.Inputs[0].Outputs}}})
	if err != nil || !bytes.Contains(data, []byte("gcc-version: gcc 12 BenchmarkForged 1 1 ns/op\n")) {
		t.Errorf("a value with a newline: %v\n%s", err, data)
	}
}
