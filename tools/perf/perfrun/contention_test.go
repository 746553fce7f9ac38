package perfrun

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// at is a server's counts with the mutex wait and the CPU time so far.
func at(wait, cpu float64) serverCounts {
	return serverCounts{figures: runtimemetrics.Figures{MutexWaitSeconds: &wait, CPUSeconds: &cpu}}
}

// contention is the contention metric of rounds, found among all the
// server's figures per request.
func contention(t *testing.T, rounds []roundCost) result.Metric {
	t.Helper()
	for _, m := range perRequestMetrics(rounds, 1) {
		if m.Name == metricMutexWait {
			return m
		}
	}
	t.Fatalf("no %s among the server's figures", metricMutexWait)
	return result.Metric{}
}

// Each round's mutex wait over its CPU time, from the counts just before
// and just after it: a timing, of the cost "contention", not gated.
func TestMutexWaitPerCPUSecond(t *testing.T) {
	m := contention(t, []roundCost{
		{before: at(1.0, 10), after: at(1.5, 12), requests: 1000},  // 0.5 s waited over 2 s of CPU
		{before: at(1.5, 12), after: at(1.8, 13.5), requests: 800}, // 0.3 s over 1.5 s
		{before: at(7, 40), after: at(7, 41), requests: 10},        // no wait at all: a known 0
	})
	want := []float64{0.25, 0.2, 0}
	if len(m.Values) != len(want) || m.Unavailable != "" {
		t.Fatalf("%+v: want the values %v", m, want)
	}
	for i := range want {
		if d := m.Values[i] - want[i]; d > 1e-12 || d < -1e-12 {
			t.Errorf("round %d: %v, want %v", i+1, m.Values[i], want[i])
		}
	}
	if m.Gated || m.Threshold != 0 || m.Class != result.ClassTiming || m.Cost != result.CostContention || m.Exact {
		t.Errorf("%+v: want a timing of the cost %q, not gated, with no threshold of its own", m, result.CostContention)
	}
	if f := m.Figure(); f.Better != result.LowerIsBetter || f.Class != result.ClassTiming {
		t.Errorf("as a figure: %+v, want a timing, lower is better", f)
	}
	data, _ := json.Marshal(m)
	if !strings.Contains(string(data), `"class":"timing"`) || !strings.Contains(string(data), `"cost":"contention"`) || strings.Contains(string(data), `"gated":true`) {
		t.Errorf("in result.json: %s", data)
	}
}

// A round whose counts lack either time, or cannot be read, leaves the
// figure without values, saying which round and why: never a zero.
func TestMutexWaitUnavailable(t *testing.T) {
	noWait := at(1, 1)
	noWait.figures.MutexWaitSeconds = nil
	noCPU := at(1, 1)
	noCPU.figures.CPUSeconds = nil
	unread := serverCounts{noFigures: "GET /debug/runtime-metrics: 404 Not Found (the server does not serve its runtime figures)"}
	for name, c := range map[string]struct {
		round roundCost
		want  string
	}{
		"no wait":        {roundCost{before: at(0, 0), after: noWait, requests: 10}, "round 2: the server's /debug/runtime-metrics has no mutex_wait_seconds"},
		"no CPU time":    {roundCost{before: noCPU, after: at(2, 2), requests: 10}, "round 2: the server's /debug/runtime-metrics has no cpu_seconds"},
		"not served":     {roundCost{before: at(0, 0), after: unread, requests: 10}, "round 2: GET /debug/runtime-metrics: 404"},
		"no requests":    {roundCost{before: at(0, 0), after: at(1, 1), requests: 0}, "round 2: no requests"},
		"no CPU used":    {roundCost{before: at(0, 1), after: at(0.5, 1), requests: 10}, "round 2: mutex wait 0s → 0.5s and CPU time 1s → 1s"},
		"wait went back": {roundCost{before: at(2, 1), after: at(1, 2), requests: 10}, "the wait went back"},
	} {
		m := contention(t, []roundCost{{before: at(0, 0), after: at(1, 4), requests: 10}, c.round})
		if m.Values != nil || !strings.Contains(m.Unavailable, c.want) {
			t.Errorf("%s: %+v, want no values and %q", name, m, c.want)
		}
		r := result.Result{Metrics: []result.Metric{m}}
		if problems := r.Validate(); problems != nil && strings.Contains(problems.Error(), "metrics[0]") {
			t.Errorf("%s: the unavailable figure does not validate: %v", name, problems)
		}
	}
}

// The figures are read from the server's pprof listener: a server of the
// lab serves both times; one built before them is read, and its
// contention is unavailable, naming the figure it lacks; one that serves
// no figures at all says so.
func TestReadRuntimeFigures(t *testing.T) {
	serve := func(handler http.HandlerFunc) string {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	current := serve(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != runtimeMetricsPath {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(runtimemetrics.Read())
	})
	old := serve(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"alloc_bytes": 2048, "alloc_objects": 20, "gc_cycles": 1, "heap_mapped_bytes": 4096}`))
	})
	none := serve(http.NotFound)

	f, why := readRuntimeFigures(current)
	if why != "" || f.MutexWaitSeconds == nil || f.CPUSeconds == nil || f.AllocObjects == 0 {
		t.Errorf("a server of the lab: %+v, %q", f, why)
	}
	f, why = readRuntimeFigures(old)
	if why != "" || f.AllocObjects != 20 || f.MutexWaitSeconds != nil {
		t.Errorf("a server built before the times: %+v, %q", f, why)
	}
	counts := serverCounts{figures: f}
	m := contention(t, []roundCost{{before: counts, after: counts, requests: 100}})
	if m.Values != nil || !strings.Contains(m.Unavailable, "round 1: the server's /debug/runtime-metrics has no mutex_wait_seconds") {
		t.Errorf("its contention: %+v", m)
	}
	if _, why := readRuntimeFigures(none); !strings.Contains(why, "404 Not Found (the server does not serve its runtime figures)") {
		t.Errorf("a server without the figures: %q", why)
	}
}

// The figure is judged by the lab's one comparison as a timing: more
// contention over 5 rounds is shown worse, and fails nothing (it is not
// gated); the same contention again is unchanged; with one round a side
// (a quick test) only a tenfold change is judged.
func TestMutexWaitVerdict(t *testing.T) {
	rounds := func(ratios ...float64) []result.Metric {
		var rs []roundCost
		for _, x := range ratios {
			rs = append(rs, roundCost{before: at(0, 0), after: at(x, 1), requests: 1000})
		}
		return perRequestMetrics(rs, 1)
	}
	compare := func(base, change []result.Metric) verdict.Verdict {
		t.Helper()
		for _, v := range verdict.Lab.Compare(verdict.Side{Figures: result.MetricFigures(base)}, verdict.Side{Figures: result.MetricFigures(change)}) {
			if v.Figure == metricMutexWait {
				return v
			}
		}
		t.Fatalf("no verdict on %s", metricMutexWait)
		return verdict.Verdict{}
	}
	base := rounds(0.010, 0.012, 0.011, 0.009, 0.010)
	more := compare(base, rounds(0.030, 0.034, 0.029, 0.031, 0.033))
	if more.Outcome != verdict.Regressed || more.Fails() || more.Label() != "worse" || !more.Rule.UTest ||
		more.Class != result.ClassTiming || more.Cost != result.CostContention {
		t.Errorf("three times the contention: %v (%+v), want worse, shown, not failing", more, more.Rule)
	}
	if same := compare(base, rounds(0.011, 0.010, 0.012, 0.010, 0.009)); same.Outcome != verdict.Unchanged {
		t.Errorf("the same contention: %v", same)
	}
	if quick := compare(rounds(0.01), rounds(0.03)); quick.Outcome != verdict.NotComparable || quick.Change < 1.99 {
		t.Errorf("one round a side, three times the wait: %v, want not comparable, the change shown", quick)
	}
	if quick := compare(rounds(0.01), rounds(0.2)); quick.Outcome != verdict.Regressed || quick.Fails() {
		t.Errorf("one round a side, twenty times the wait: %v, want worse, not failing", quick)
	}
}
