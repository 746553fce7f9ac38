package result

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
)

// KindServer is a server measured under load over HTTP (perf rule
// server_benchmark): its record is Result.Server.
const KindServer = "server"

// Server is what a server benchmark measured: the load it drove, each
// measured round of it, and how the server stopped.
type Server struct {
	Load   Load         `json:"load"`
	Rounds []LoadRound  `json:"rounds"`
	Exit   ServerExit   `json:"exit"`
	Rates  ProfileRates `json:"profile_rates"`
}

// Load is the load a server benchmark drove: closed-loop, Connections
// requests in flight at a time, each sent as soon as the last one on its
// connection was answered (or at Rate per second when Rate > 0).
type Load struct {
	Generator       string  `json:"generator"` // "vegeta v12.13.0 (library)"
	Connections     int     `json:"connections"`
	Rate            float64 `json:"rate"` // requests per second; 0: as fast as answered
	Targets         int     `json:"targets"`
	WarmupSeconds   float64 `json:"warmup_seconds"`
	DurationSeconds float64 `json:"duration_seconds"` // of each measured round
	ProfileSeconds  float64 `json:"profile_seconds"`  // the profiled round's CPU, block, mutex, allocs window
	TraceSeconds    float64 `json:"trace_seconds"`
}

// maxErrorMessages bounds a round's distinct error messages (the load
// generator keeps as many).
const maxErrorMessages = 10

// LoadRound is one measured round of load, without profilers attached.
type LoadRound struct {
	Start      string  `json:"start"` // RFC 3339
	Seconds    float64 `json:"seconds"`
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`     // transport errors and answers other than 2xx
	Throughput float64 `json:"throughput"` // successful requests per second
	// Latency of every request of the round, exact (not estimated).
	Latency     Latency        `json:"latency_seconds"`
	StatusCodes map[string]int `json:"status_codes"`
	// ErrorMessages are the round's distinct errors, at most
	// maxErrorMessages.
	ErrorMessages []string `json:"error_messages,omitempty"`
}

// Latency is a round's latency distribution, in seconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	// P95 is absent in older records: nil, not 0, so that a round that
	// did not record it is not read as one of no latency.
	P95 *float64 `json:"p95,omitempty"`
	P99 float64  `json:"p99"`
	Max float64  `json:"max"`
}

// ServerExit is how the server stopped once the load was over.
type ServerExit struct {
	Signal     string `json:"signal"` // the signal it was sent, "SIGTERM"
	ExitStatus int    `json:"exit_status"`
	Clean      bool   `json:"clean"` // it said it shut down cleanly, and exited with 0
}

// ProfileRates are the sampling rates the server ran with, for its block
// and mutex profiles.
type ProfileRates struct {
	BlockProfileRate     int `json:"block_profile_rate"`     // runtime.SetBlockProfileRate, ns
	MutexProfileFraction int `json:"mutex_profile_fraction"` // runtime.SetMutexProfileFraction
}

// Median is the median of each of the rounds' figures, each on its own
// (Requests, Errors: the totals); the zero LoadRound without rounds.
func (s *Server) Median() LoadRound {
	if s == nil || len(s.Rounds) == 0 {
		return LoadRound{}
	}
	med := func(f func(LoadRound) float64) float64 {
		v := make([]float64, len(s.Rounds))
		for i, r := range s.Rounds {
			v[i] = f(r)
		}
		sort.Float64s(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	m := LoadRound{
		Start:      s.Rounds[0].Start,
		Seconds:    med(func(r LoadRound) float64 { return r.Seconds }),
		Throughput: med(func(r LoadRound) float64 { return r.Throughput }),
		Latency: Latency{
			Mean: med(func(r LoadRound) float64 { return r.Latency.Mean }),
			P50:  med(func(r LoadRound) float64 { return r.Latency.P50 }),
			P90:  med(func(r LoadRound) float64 { return r.Latency.P90 }),
			P99:  med(func(r LoadRound) float64 { return r.Latency.P99 }),
			Max:  med(func(r LoadRound) float64 { return r.Latency.Max }),
		},
		StatusCodes: map[string]int{},
	}
	for _, r := range s.Rounds {
		m.Requests += r.Requests
		m.Errors += r.Errors
		for code, n := range r.StatusCodes {
			m.StatusCodes[code] += n
		}
	}
	return m
}

// problems lists what is wrong with a server benchmark's record.
func (s *Server) problems() []string {
	if s == nil {
		return []string{fmt.Sprintf("server is missing (kind %q)", KindServer)}
	}
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if len(s.Rounds) == 0 {
		bad("server.rounds is empty")
	}
	if s.Load.Connections < 1 || s.Load.Connections > maxConnections {
		bad("server.load.connections: %d, want 1 to %d", s.Load.Connections, maxConnections)
	}
	checkCount(bad, "server.load.rate", s.Load.Rate, maxRate)
	checkCount(bad, "server.load.targets", s.Load.Targets, maxConnections)
	checkCount(bad, "server.load.warmup_seconds", s.Load.WarmupSeconds, maxSeconds)
	checkCount(bad, "server.load.duration_seconds", s.Load.DurationSeconds, maxSeconds)
	checkCount(bad, "server.load.profile_seconds", s.Load.ProfileSeconds, maxSeconds)
	checkCount(bad, "server.load.trace_seconds", s.Load.TraceSeconds, maxSeconds)
	checkCount(bad, "server.profile_rates.block_profile_rate", s.Rates.BlockProfileRate, math.MaxInt)
	checkCount(bad, "server.profile_rates.mutex_profile_fraction", s.Rates.MutexProfileFraction, math.MaxInt)
	for i, r := range s.Rounds {
		field := fmt.Sprintf("server.rounds[%d].", i)
		l := r.Latency
		checkCount(bad, field+"seconds", r.Seconds, maxSeconds)
		checkCount(bad, field+"requests", r.Requests, math.MaxInt64)
		// At most every request failed; a negative request count is
		// refused above, and its errors are not judged against it.
		checkCount(bad, field+"errors", r.Errors, max(r.Requests, 0))
		checkCount(bad, field+"throughput", r.Throughput, maxRate)
		checkCount(bad, field+"latency_seconds.mean", l.Mean, maxSeconds)
		checkCount(bad, field+"latency_seconds.p50", l.P50, maxSeconds)
		checkCount(bad, field+"latency_seconds.p90", l.P90, maxSeconds)
		checkCount(bad, field+"latency_seconds.p99", l.P99, maxSeconds)
		checkCount(bad, field+"latency_seconds.max", l.Max, maxSeconds)
		inOrder := l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max
		if l.P95 != nil {
			checkCount(bad, field+"latency_seconds.p95", *l.P95, maxSeconds)
			inOrder = inOrder && l.P90 <= *l.P95 && *l.P95 <= l.P99
		}
		if !inOrder {
			bad("server.rounds[%d]: latency percentiles out of order", i)
		}
		for _, code := range slices.Sorted(maps.Keys(r.StatusCodes)) {
			checkCount(bad, fmt.Sprintf("%sstatus_codes[%q]", field, code), r.StatusCodes[code], math.MaxInt)
		}
		if n := len(r.ErrorMessages); n > maxErrorMessages {
			bad("%serror_messages: %d, over the limit of %d", field, n, maxErrorMessages)
		}
	}
	return p
}
