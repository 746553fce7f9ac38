package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serverExample is a valid result of a server benchmark.
func serverExample() *Result {
	r := example()
	r.Benchmark.Name, r.Benchmark.Kind, r.Benchmark.Counterpart = "router3", KindServer, ""
	r.Timing = nil
	round := func(throughput, p99 float64) LoadRound {
		return LoadRound{
			Start: "2026-11-23T08:00:00Z", Seconds: 2, Requests: 100, Throughput: throughput,
			Latency:     Latency{Mean: 0.001, P50: 0.001, P90: 0.002, P99: p99, Max: 0.01},
			StatusCodes: map[string]int{"200": 100},
		}
	}
	r.Server = &Server{
		Load:   Load{Generator: "vegeta", Connections: 8, Targets: 256, DurationSeconds: 2},
		Rounds: []LoadRound{round(50, 0.004), round(40, 0.003), round(60, 0.005)},
		Exit:   ServerExit{Signal: "SIGTERM", Clean: true},
	}
	r.Files = []File{{Name: "mutex.pb.gz", Role: RoleProfile, Profile: "mutex"}, {Name: "latency.hist.txt", Role: RoleData}}
	return r
}

func TestServerRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := serverExample()
	writeFiles(t, dir, want)
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	got, _, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Server == nil || len(got.Server.Rounds) != 3 || got.Server.Rounds[2].Latency.P99 != 0.005 ||
		!got.Server.Exit.Clean || got.Find(RoleProfile, "mutex") != "mutex.pb.gz" {
		t.Errorf("read back %+v", got.Server)
	}
	m := got.Server.Median()
	if m.Throughput != 50 || m.Latency.P99 != 0.004 || m.Requests != 300 || m.StatusCodes["200"] != 300 {
		t.Errorf("Median = %+v", m)
	}
}

// TestServerFieldsAreOptional: results of the other kinds, written before
// the server fields existed, still read and validate.
func TestServerFieldsAreOptional(t *testing.T) {
	data := `{"schema_version":1,"benchmark":{"name":"wc1","kind":"program","study":"Word count","stage":1,
		"language":"Go","workload":{"name":"quick"},"repetitions":1},"environment":{},
		"timing":{"command":"wc1","runs":[{"start":"2026-11-20T10:00:00Z","exit_status":0}]},"files":[]}`
	r, err := Decode([]byte(data), "old.json")
	if err != nil || r.Server != nil {
		t.Errorf("Decode of an older result: %v, server %+v", err, r.Server)
	}
}

func TestServerValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*Result)
		want   string
	}{
		"no server":       {func(r *Result) { r.Server = nil }, "server is missing"},
		"no rounds":       {func(r *Result) { r.Server.Rounds = nil }, "server.rounds is empty"},
		"connections":     {func(r *Result) { r.Server.Load.Connections = 0 }, "server.load.connections: 0, want 1 to 1048576"},
		"order":           {func(r *Result) { r.Server.Rounds[1].Latency.P90 = 1 }, "rounds[1]: latency percentiles out of order"},
		"errors":          {func(r *Result) { r.Server.Rounds[0].Errors = 101 }, "server.rounds[0].errors: 101, want 0 to 100"},
		"negative time":   {func(r *Result) { r.Server.Rounds[2].Latency.Mean = -1 }, "server.rounds[2].latency_seconds.mean: -1"},
		"negative rate":   {func(r *Result) { r.Server.Load.Rate = -5 }, "server.load.rate: -5, want 0 to 1e+09"},
		"targets":         {func(r *Result) { r.Server.Load.Targets = -1 }, "server.load.targets: -1"},
		"a year's warmup": {func(r *Result) { r.Server.Load.WarmupSeconds = 365 * 86400 }, "server.load.warmup_seconds: 3.1536e+07, want 0 to 604800"},
		"block rate":      {func(r *Result) { r.Server.Rates.BlockProfileRate = -1 }, "server.profile_rates.block_profile_rate: -1"},
		"status count":    {func(r *Result) { r.Server.Rounds[0].StatusCodes = map[string]int{"200": -3} }, `server.rounds[0].status_codes["200"]: -3`},
		"error messages":  {func(r *Result) { r.Server.Rounds[0].ErrorMessages = make([]string, 11) }, "server.rounds[0].error_messages: 11, over the limit of 10"},
		"p95 negative":    {func(r *Result) { r.Server.Rounds[1].Latency.P95 = ptr(-0.5) }, "server.rounds[1].latency_seconds.p95: -0.5"},
		"p95 above p99":   {func(r *Result) { r.Server.Rounds[0].Latency.P95 = ptr(0.0045) }, "rounds[0]: latency percentiles out of order"},
		"p95 below p90":   {func(r *Result) { r.Server.Rounds[2].Latency.P95 = ptr(0.0015) }, "rounds[2]: latency percentiles out of order"},
	} {
		r := serverExample()
		if err := r.Validate(); err != nil {
			t.Fatalf("the example: %v", err)
		}
		tc.change(r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v, want %q", name, err, tc.want)
		}
	}
}

func ptr(v float64) *float64 { return &v }

// A round's p95 latency is optional: written and read back when a round
// has it, absent (nil, not 0) from a round that does not, as from every
// older record.
func TestLatencyP95IsOptional(t *testing.T) {
	dir := t.TempDir()
	want := serverExample()
	want.Server.Rounds[0].Latency.P95 = ptr(0.003)
	writeFiles(t, dir, want)
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"p95"`); n != 1 {
		t.Errorf("result.json has %d p95 keys, want the one round's:\n%s", n, data)
	}
	got, _, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p95 := got.Server.Rounds[0].Latency.P95; p95 == nil || *p95 != 0.003 || got.Server.Rounds[1].Latency.P95 != nil {
		t.Errorf("read back the rounds' p95: %v, %v", p95, got.Server.Rounds[1].Latency.P95)
	}
}

// A server's metric that is a time declares its class: it is written,
// read back and made a figure of that class; a metric declaring none is
// still a count.
func TestMetricClassRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := serverExample()
	want.Metrics = []Metric{
		{Name: "mutex_wait_per_cpu_second", Unit: "s/cpu-s", Source: "the server's runtime/metrics", Values: []float64{0.01, 0.012, 0.011},
			Class: ClassTiming, Cost: CostContention},
		{Name: "alloc_objects_per_request", Unit: "objects/request", Values: []float64{20.7, 20.7, 20.8}, Gated: true, Threshold: 0.01},
	}
	writeFiles(t, dir, want)
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil || !strings.Contains(string(data), `"class": "timing"`) || strings.Count(string(data), `"class"`) != 1 {
		t.Errorf("result.json %v: want one class, timing, written\n%s", err, data)
	}
	got, out, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Figures(got, out)
	if err != nil {
		t.Fatal(err)
	}
	if f := figs[0]; f.Class != ClassTiming || f.Cost != CostContention || f.Better != LowerIsBetter || len(f.Values) != 3 {
		t.Errorf("the contention metric as a figure: %+v", f)
	}
	if f := figs[1]; f.Class != ClassCount {
		t.Errorf("a metric declaring no class: %+v, want a count", f)
	}
}
