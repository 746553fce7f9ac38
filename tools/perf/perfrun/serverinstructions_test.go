package perfrun

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/loadgen"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// spinServer is //tools/perf/testing/spinserver, which the BUILD file
// passes; a plain go test builds it.
var spinServer = flag.String("spinserver", "", "the spinserver binary (tools/perf/testing/spinserver)")

// spinTurns is about 5% of router2's own instructions a request.
const spinTurns = 400

// A real router server's own instructions per request are recorded, and
// the same server doing about 5% more work a request is caught; measured
// again unchanged, it is not.
func TestInstructionsPerRequestAreCaught(t *testing.T) {
	exe := *spinServer
	if dir := os.Getenv("TEST_SRCDIR"); dir != "" && exe != "" && !filepath.IsAbs(exe) {
		exe = filepath.Join(dir, os.Getenv("TEST_WORKSPACE"), exe) // a $(rootpath)
	}
	if exe == "" {
		// Built here with its symbols (a test binary has none), which
		// Cachegrind needs to tell the server's own instructions.
		exe = filepath.Join(t.TempDir(), "spinserver")
		build := exec.Command("go", "build", "-o", exe, "havlak-lab/tools/perf/testing/spinserver")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", build.Args, err, out)
		}
	}
	targets := []loadgen.Target{
		{Method: "GET", Path: "/users/0"}, {Method: "GET", Path: "/repos/o2/r2/contents/src/pkg2/file2.go"},
		{Method: "GET", Path: "/static/js/app3.js"}, {Method: "GET", Path: "/healthz"},
		{Method: "GET", Path: "/blog/2021/07/post-6"}, {Method: "GET", Path: "/repos/o2/r1/pulls/7/files"},
	}
	measure := func(turns int) []result.Metric {
		t.Setenv("SPINSERVER_TURNS", strconv.Itoa(turns))
		b := &bench{Spec: &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "spinserver"}},
			Server: &perfspec.Server{Ready: "/healthz"}}, binary: exe, out: t.TempDir()}
		m, err := b.instructionsPerRequest(targets)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Values) != instructionRepetitions || !m.Gated || m.Cost != result.CostWork || m.Unavailable != "" {
			t.Fatalf("%+v: want %d values, gated, a cost of work", m, instructionRepetitions)
		}
		t.Logf("%d extra turns: %.0f instructions/request", turns, m.Values)
		return []result.Metric{m}
	}
	base := measure(0)
	if v := judge(t, base, measure(0), metricOwnInstructionsPerRequest); v.Outcome != verdict.Unchanged {
		t.Errorf("the same server: %v", v)
	}
	v := judge(t, base, measure(spinTurns), metricOwnInstructionsPerRequest)
	if !v.Fails() || v.Cost != result.CostWork {
		t.Errorf("%d extra turns a request: %v; want a gated regression, a cost of work", spinTurns, v)
	}
	t.Logf("caught: %v", v)
}

// A server without its symbols is refused: its own instructions cannot
// be told from the runtime's.
func TestInstructionsPerRequestNeedSymbols(t *testing.T) {
	stripped := cachegrind.Counts{Total: 10, Own: 10, Functions: map[string]uint64{"???": 8, "_dl_start": 2}}
	if err := needSymbols(stripped, "server.out"); err == nil {
		t.Error("a server without symbols: no error")
	}
	named := cachegrind.Counts{Total: 10, Own: 4, Functions: map[string]uint64{"main.main": 4, "runtime.main": 6}}
	if err := needSymbols(named, "server.out"); err != nil {
		t.Error(err)
	}
}
