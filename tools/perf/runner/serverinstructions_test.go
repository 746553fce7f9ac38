package main

import (
	"context"
	"debug/elf"
	"errors"
	"net/http"
	"os"
	"strconv"
	"testing"

	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router2"
	routerserver "havlak-lab/go/router/server"
	"havlak-lab/internal/cli"
	"havlak-lab/tools/perf/loadgen"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// serveEnv makes this test binary the server of
// TestInstructionsPerRequestAreCaught: the router study's server with
// stage router2, which spins as many extra turns a request as the
// variable says.
const serveEnv = "RUNNER_TEST_SERVE_EXTRA"

// spinning is a router that does extra work before each request.
type spinning struct {
	route.Router
	turns int
}

var spun int

func (s spinning) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for i := range s.turns {
		spun += i
	}
	s.Router.ServeHTTP(w, r)
}

// serveIfAsked runs the server and exits when serveEnv is set.
func serveIfAsked() {
	extra := os.Getenv(serveEnv)
	if extra == "" {
		return
	}
	turns, err := strconv.Atoi(extra)
	if err != nil {
		os.Exit(2)
	}
	newRouter := func() route.Router { return spinning{router2.New(), turns} }
	os.Exit(cli.Report(os.Stderr, "router2", routerserver.Run(context.Background(), "router2", newRouter, os.Args[1:], os.Stdout, os.Stderr)))
}

// A real router server's own instructions per request are recorded, and
// a server that does a few percent more work a request is caught, the
// same server measured again is not.
func TestInstructionsPerRequestAreCaught(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Symbols()
	f.Close()
	if errors.Is(err, elf.ErrNoSymbols) {
		// A plain go test links its binary without symbols.
		t.Skip("this test binary has no symbols for Cachegrind to name the server's functions: build it with go test -c, or bazel test")
	}
	targets := []loadgen.Target{
		{Method: "GET", Path: "/users/0"}, {Method: "GET", Path: "/repos/o2/r2/contents/src/pkg2/file2.go"},
		{Method: "GET", Path: "/static/js/app3.js"}, {Method: "GET", Path: "/healthz"},
		{Method: "GET", Path: "/blog/2021/07/post-6"}, {Method: "GET", Path: "/repos/o2/r1/pulls/7/files"},
	}
	measure := func(turns int) []result.Metric {
		t.Setenv(serveEnv, strconv.Itoa(turns))
		b := &bench{Spec: &perfspec.Spec{Common: perfspec.Common{Benchmark: result.Benchmark{Name: "router"}},
			Server: &perfspec.Server{Ready: "/healthz"}}, binary: exe, out: t.TempDir()}
		m, err := b.instructionsPerRequest(targets)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Values) != instructionRepetitions || !m.Gated || m.Cost != result.CostWork {
			t.Fatalf("%+v: want %d values, gated, a cost of work", m, instructionRepetitions)
		}
		t.Logf("%d extra turns: %v instructions/request", turns, m.Values)
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

// spinTurns is about 5% of router2's own instructions a request.
const spinTurns = 400
