package perfrun

// A server's counted figures per request: what the server process spent
// over each measured round, read just before and just after it, divided
// by the round's requests. Unlike throughput and latency, they do not
// depend on how fast the machine is, only on what the server does for a
// request. Beside them, its contention: its mutex wait per CPU second
// (mutexWaitMetric), a time, and its own lock contentions per request
// (servercontention.go), both shown.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"havlak-lab/internal/runtimemetrics"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
)

// serverCounts are a server process's counts so far.
type serverCounts struct {
	syscalls   result.Syscalls
	figures    runtimemetrics.Figures
	noFigures  string // why there are no figures, or ""
	noSyscalls string // why there are no system calls, or ""
	// ownContentions are the contended releases of the program's own
	// locks in its mutex profile (servercontention.go).
	ownContentions   int64
	noOwnContentions string // why they are not known, or ""
}

// runtimeMetricsPath is where a server of the lab serves its allocation
// figures so far, on its pprof listener (go/router/server's
// RuntimeMetricsPath): part of the servers' contract (serverprocess.go).
const runtimeMetricsPath = "/debug/runtime-metrics"

// counts reads the server's system calls (/proc/PID/io) and its figures
// (runtimeMetricsPath); what cannot be read says why.
func (s *server) counts() serverCounts {
	var c serverCounts
	if calls, err := result.ReadSyscalls(s.cmd.Process.Pid); err != nil {
		c.noSyscalls = err.Error()
	} else {
		c.syscalls = *calls
	}
	c.figures, c.noFigures = readRuntimeFigures(s.pprof)
	c.ownContentions, c.noOwnContentions = readOwnContentions(s.pprof)
	return c
}

// readRuntimeFigures reads the figures a server serves on its pprof
// listener at pprof (host:port), or says why it cannot.
func readRuntimeFigures(pprof string) (runtimemetrics.Figures, string) {
	var figures runtimemetrics.Figures
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + pprof + runtimeMetricsPath)
	if err != nil {
		return figures, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return figures, fmt.Sprintf("GET %s: %s (the server does not serve its runtime figures)", runtimeMetricsPath, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&figures); err != nil {
		return figures, fmt.Sprintf("GET %s: %v", runtimeMetricsPath, err)
	}
	return figures, ""
}

// A roundCost is what the server spent over one measured round.
type roundCost struct {
	before, after serverCounts
	requests      int64
}

// The names of a server's figures per request in result.json.
const (
	metricAllocObjectsPerRequest = result.MetricAllocObjectsPerRequest
	metricAllocBytesPerRequest   = result.MetricAllocBytesPerRequest
	metricSyscallsPerRequest     = result.MetricSyscallsPerRequest
	metricMutexWait              = result.MetricMutexWait
	metricOwnContentions         = result.MetricOwnContentions
)

// The smallest changes of a server's figures per request the gate reports
// are the comparison's policy's (tools/verdict, where their measurements
// are).
const (
	serverAllocThreshold       = countThreshold
	serverSyscallThreshold     = verdict.ServerSyscallThreshold
	serverInstructionThreshold = verdict.ServerInstructionThreshold
)

// perRequestMetrics are the server's figures per request, one value per
// measured round, gated.
// fraction is the server's -mutexprofilefraction, which the own lock
// contentions are counted at.
func perRequestMetrics(rounds []roundCost, fraction int) []result.Metric {
	figure := func(name, unit, source, cost string, why func(c serverCounts) string, value func(before, after serverCounts) float64) result.Metric {
		threshold := serverAllocThreshold
		if cost == result.CostSystemCalls {
			threshold = serverSyscallThreshold
		}
		m := result.Metric{Name: name, Unit: unit, Source: source + ", each measured round, over its requests",
			Cost: cost, Gated: true, Threshold: threshold}
		for i, r := range rounds {
			if reason := why(r.before) + why(r.after); reason != "" || r.requests == 0 {
				if reason == "" {
					reason = "no requests"
				}
				m.Values, m.Gated, m.Threshold, m.Unavailable = nil, false, 0, fmt.Sprintf("round %d: %s", i+1, reason)
				return m
			}
			m.Values = append(m.Values, value(r.before, r.after)/float64(r.requests))
		}
		return m
	}
	noFigures := func(c serverCounts) string { return c.noFigures }
	noSyscalls := func(c serverCounts) string { return c.noSyscalls }
	const figures, syscalls = "the server's runtime/metrics", "the server's /proc/PID/io (syscr + syscw)"
	return append([]result.Metric{
		figure(metricAllocObjectsPerRequest, "objects/request", figures, result.CostMemoryManagement, noFigures,
			func(b, a serverCounts) float64 { return float64(a.figures.AllocObjects - b.figures.AllocObjects) }),
		figure(metricAllocBytesPerRequest, "bytes/request", figures, result.CostMemoryManagement, noFigures,
			func(b, a serverCounts) float64 { return float64(a.figures.AllocBytes - b.figures.AllocBytes) }),
		figure(metricSyscallsPerRequest, "calls/request", syscalls, result.CostSystemCalls, noSyscalls,
			func(b, a serverCounts) float64 {
				return float64(a.syscalls.Read + a.syscalls.Write - b.syscalls.Read - b.syscalls.Write)
			}),
	}, mutexWaitMetric(rounds), ownContentionsMetric(rounds, fraction))
}

// mutexWaitMetric is the server's contention, one value per measured
// round: the seconds its goroutines waited for locks (runtime/metrics'
// /sync/mutex/wait/total, sync.Mutex, sync.RWMutex and the runtime's own
// locks) per second of its CPU time (getrusage), both over the round:
// the wait per request over the CPU time per request, whose requests
// cancel. Waiting is time, and the time a lock is held shrinks with a
// faster machine as the CPU time of a request does: the ratio cancels
// the machine's speed, which the wait per request alone would not. It
// still moves with the machine's load (a holder preempted by another
// process makes every waiter wait longer, and the wait is sampled: the
// runtime times one in 8 of a goroutine's waits), so it is a timing
// (result.ClassTiming): judged by the policy's timing rule, over 5
// rounds and the U test, and calibrated from its own noise.
//
// It is recorded and shown, not gated: on the lab's 2-core runners the
// 20 runs of router_sharded with its cache in 2 shards overlapped the 20
// with 64 (docs/noise.md), the wait being mostly net/http's and the
// runtime's locks and the machine's load. A benchmark or the policy that
// gates it declares its threshold there, as for any figure; its producer
// declares none.
func mutexWaitMetric(rounds []roundCost) result.Metric {
	m := result.Metric{Name: metricMutexWait, Unit: "s/cpu-s", Class: result.ClassTiming, Cost: result.CostContention,
		Source: "the server's runtime/metrics (/sync/mutex/wait/total) over its CPU time (getrusage), each measured round"}
	for i, r := range rounds {
		var why string
		switch b, a := r.before.figures, r.after.figures; {
		case r.before.noFigures != "" || r.after.noFigures != "":
			why = r.before.noFigures + r.after.noFigures
		case b.MutexWaitSeconds == nil || a.MutexWaitSeconds == nil:
			why = "the server's " + runtimeMetricsPath + " has no " + runtimemetrics.FieldMutexWaitSeconds + " (a server built before it, or a Go that does not report it)"
		case b.CPUSeconds == nil || a.CPUSeconds == nil:
			why = "the server's " + runtimeMetricsPath + " has no " + runtimemetrics.FieldCPUSeconds + " (a server built before it, or getrusage failed)"
		case r.requests == 0:
			why = "no requests"
		case *a.MutexWaitSeconds < *b.MutexWaitSeconds || *a.CPUSeconds <= *b.CPUSeconds:
			why = fmt.Sprintf("mutex wait %gs → %gs and CPU time %gs → %gs: the CPU time did not grow, or the wait went back",
				*b.MutexWaitSeconds, *a.MutexWaitSeconds, *b.CPUSeconds, *a.CPUSeconds)
		default:
			m.Values = append(m.Values, (*a.MutexWaitSeconds-*b.MutexWaitSeconds)/(*a.CPUSeconds-*b.CPUSeconds))
			continue
		}
		m.Values, m.Unavailable = nil, fmt.Sprintf("round %d: %s", i+1, why)
		return m
	}
	return m
}
