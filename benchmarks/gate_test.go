// The regression gates' power and their calm, shown on real runs of the
// quick workloads: an injected regression is caught, and unchanged code
// measured again and again never fails.
package benchmarks_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var (
	runner     = flag.String("runner", "", "the perf runner")
	report     = flag.String("report", "", "the report")
	benchgate  = flag.String("benchgate", "", "benchgate")
	goBench    = flag.String("gobench", "", "a go_test binary with benchmarks")
	specsFlag  = flag.String("specs", "", "comma-separated runner specs of quick benchmarks")
	runfiles   string
	comparings = 5 // independent comparisons of unchanged code
)

// setup resolves the flags' runfiles paths; go_test runs in the package's
// directory, the runner in the runfiles root.
func setup(t *testing.T) {
	t.Helper()
	if *runner == "" || *report == "" || *specsFlag == "" {
		t.Skip("run by bazel test //benchmarks:gate_test")
	}
	runfiles = filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"))
	for _, p := range []*string{runner, report, benchgate, goBench} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(runfiles, *p)
		}
	}
}

// lean writes a copy of the spec at path that measures only what the gate
// judges, quickly: three timed runs (enough for the spread of a Go
// program's allocation figures, too few for the wall-time gate, which
// needs five), no profiles, two counted runs, and the sweep only with
// sweep; with extraPass, one more loop-finding pass in every run.
func lean(t *testing.T, path string, extraPass, sweep bool) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runfiles, path))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	// The spec's format: package tools/perf/perfspec.
	spec["benchmark"].(map[string]any)["repetitions"] = 3
	program := spec["program"].(map[string]any)
	program["profiles"] = []string{}
	counted := program["counted"].(map[string]any)
	counted["repetitions"] = 2
	if !sweep {
		delete(program, "sweep")
	}
	if extraPass {
		for _, args := range []any{spec["args"], counted["args"]} {
			list := args.([]any)
			for i, arg := range list {
				if arg == "-iterations=10" {
					list[i] = "-iterations=11"
				}
			}
		}
	}
	out, _ := json.Marshal(spec)
	file := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// profiler is the program's profiler in the spec at path: "go" for a Go
// program.
func profiler(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runfiles, path))
	if err != nil {
		t.Fatal(err)
	}
	// The spec's format: package tools/perf/perfspec.
	var spec struct{ Program struct{ Profiler string } }
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	return spec.Program.Profiler
}

// measure runs the runner's test mode with spec into a new directory.
func measure(t *testing.T, spec string) string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command(*runner, "test", spec)
	cmd.Dir = runfiles
	cmd.Env = append(os.Environ(), "TEST_UNDECLARED_OUTPUTS_DIR="+out)
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("runner test %s: %v\n%s", spec, err, log)
	}
	return out
}

// gate runs the report on new against old; it returns the exit status and
// what the report said.
func gate(t *testing.T, old, new string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(*report, "--from", new, "--baseline", old, "--out", t.TempDir())
	cmd.Stderr = &stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

func TestInjectedRegressionIsCaught(t *testing.T) {
	setup(t)
	for _, spec := range strings.Split(*specsFlag, ",") {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			// The extra pass is in the counted runs, not in the sweep's.
			base := measure(t, lean(t, spec, false, false))
			slower := measure(t, lean(t, spec, true, false))
			status, said := gate(t, base, slower)
			t.Logf("the gate on one more pass:\n%s", said)
			if status != 1 || !strings.Contains(said, "instructions +") || !strings.Contains(said, "REGRESSED") {
				t.Errorf("one more loop-finding pass: exit status %d, want 1 with the instruction count named:\n%s", status, said)
			}
		})
	}
}

// checkSweep checks the sweep the result in dir recorded: the gated count
// at each of the quick sweep's four sizes, fitted as near-linear, O(N) or
// O(N log N), as Havlak's algorithm is (docs/regressions.md).
func checkSweep(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	// result.json's format: package tools/result (Sweep).
	var r struct {
		Sweeps []struct {
			Figure string
			Points []struct{ N, Value float64 }
			Fit    struct {
				Order string
				RMS   float64
			}
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Sweeps) != 1 || len(r.Sweeps[0].Points) != 4 {
		t.Fatalf("result.json's sweeps: %+v, want one of 4 sizes", r.Sweeps)
	}
	s := r.Sweeps[0]
	if s.Fit.Order != "O(N)" && s.Fit.Order != "O(N log N)" {
		t.Errorf("%s grows as %s (RMS %.3f%%), want O(N) or O(N log N): %+v", s.Figure, s.Fit.Order, 100*s.Fit.RMS, s.Points)
	}
	t.Logf("%s grows as %s, RMS %.4f%%", s.Figure, s.Fit.Order, 100*s.Fit.RMS)
}

func TestUnchangedCodeNeverFails(t *testing.T) {
	setup(t)
	for _, spec := range strings.Split(*specsFlag, ",") {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			// A Go program's runs sweep too, so that how its cost grows is
			// judged as well: its own instructions move by up to 0.01%
			// from run to run, and that must not pass for another growth.
			// A C++ program's counts are exact: its sweeps would be the
			// same each time.
			goProgram := profiler(t, spec) == "go"
			lean := lean(t, spec, false, goProgram)
			previous := measure(t, lean)
			if goProgram {
				checkSweep(t, previous)
			}
			for i := 1; i <= comparings; i++ {
				next := measure(t, lean)
				if status, said := gate(t, previous, next); status != 0 {
					t.Errorf("comparison %d of the same binary: exit status %d:\n%s", i, status, said)
				}
				previous = next
			}
		})
	}
}

// benchgate on a Go package's benchmarks measured again and again: its
// time gate (15% and the noise) and its exact allocation gate stay quiet.
func TestUnchangedGoBenchmarksNeverFail(t *testing.T) {
	setup(t)
	dir := t.TempDir()
	run := func(i int) string {
		path := filepath.Join(dir, fmt.Sprintf("bench%d.txt", i))
		cmd := exec.Command(*goBench, "-test.run=^$", "-test.bench=.", "-test.benchmem", "-test.count=6", "-test.benchtime=20ms")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", *goBench, err)
		}
		os.WriteFile(path, out, 0o644)
		return path
	}
	previous := run(0)
	for i := 1; i <= comparings; i++ {
		next := run(i)
		cmd := exec.Command(*benchgate, previous, next)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("comparison %d of the same benchmarks: %v\n%s", i, err, out)
		}
		previous = next
	}
}
