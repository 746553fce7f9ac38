// Package loadgen drives a bounded HTTP load at one server and measures it:
// throughput, exact latency percentiles, a latency histogram, errors. The
// runner (//tools/perf/runner) loads a server_benchmark's server with it;
// the requests are sent by the vegeta library.
//
// A load is closed-loop by default: each of its connections sends its next
// request as soon as its last is answered, so that a slower server is
// offered less load instead of a growing queue.
package loadgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"havlak-lab/tools/result"
)

// Generator names the load generator in results.
const Generator = "vegeta v12.13.0 (library), closed loop"

// A Target is one request of a load: a method and a path on the server.
type Target struct {
	Method, Path string
}

// ReadTargets reads a targets file: "METHOD /path" a line, blank lines
// and # comments ignored.
func ReadTargets(file string) ([]Target, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var targets []Target
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		text := strings.TrimSpace(s.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		method, path, ok := strings.Cut(text, " ")
		if !ok || !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t") {
			return nil, fmt.Errorf("%s:%d: %q: want METHOD /path", file, line, text)
		}
		targets = append(targets, Target{Method: method, Path: path})
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("%s: no targets", file)
	}
	return targets, nil
}

// A Load is what a Loader sends.
type Load struct {
	// Connections is how many requests are in flight at a time.
	Connections int
	// Rate is requests per second, or 0 for a closed loop.
	Rate int
	// Expect, when not nil, must match the body of every 2xx answer;
	// an answer it does not match is an error.
	Expect *regexp.Regexp
}

// A Loader drives a load at one server, round after round, over the same
// connections.
type Loader struct {
	targets []vegeta.Target
	load    Load
	client  *http.Client
}

// New returns a loader of the server at addr (host:port), which sends the
// targets round-robin.
func New(addr string, targets []Target, load Load) *Loader {
	full := make([]vegeta.Target, len(targets))
	for i, t := range targets {
		full[i] = vegeta.Target{Method: t.Method, URL: "http://" + addr + t.Path}
	}
	// One client for every round, so that the connections stay open.
	return &Loader{targets: full, load: load, client: newClient(load.Connections, 10*time.Second)}
}

// newClient is an HTTP client of at most connections connections to the
// server, kept open from request to request.
func newClient(connections int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: connections,
			MaxConnsPerHost:     connections,
			DisableCompression:  true,
		},
	}
}

// SendInOrder sends n requests of targets to the server at addr,
// round-robin, one after another on one connection, each answer waited
// for up to timeout: what the server does is then the same from run to
// run, as a load's concurrency would not make it (the runner counts what
// a request costs this way). Every answer must be 2xx, and match expect
// when it is not nil.
func SendInOrder(addr string, targets []Target, n int, expect *regexp.Regexp, timeout time.Duration) error {
	client := newClient(1, timeout)
	defer client.CloseIdleConnections()
	for i := range n {
		t := targets[i%len(targets)]
		req, err := http.NewRequest(t.Method, "http://"+addr+t.Path, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s %s: %w", t.Method, t.Path, err)
		}
		if resp.StatusCode/100 != 2 || expect != nil && !expect.Match(body) {
			return fmt.Errorf("%s %s: %s, %.60q", t.Method, t.Path, resp.Status, body)
		}
	}
	return nil
}

// A Round is what one attack measured.
type Round struct {
	result.LoadRound
	latencies []time.Duration
	hist      *vegeta.Histogram
	metrics   vegeta.Metrics
}

// histogramBuckets are the latency histogram's buckets.
var histogramBuckets = vegeta.Buckets{0, 50 * time.Microsecond, 100 * time.Microsecond, 200 * time.Microsecond,
	500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, time.Second}

// maxErrorMessages bounds the distinct error messages a round keeps.
const maxErrorMessages = 10

// Attack drives the load for d, or until stop is closed, whichever comes
// first; progress, when not nil, gets a line a second.
func (l *Loader) Attack(name string, d time.Duration, stop <-chan struct{}, progress io.Writer) *Round {
	c := uint64(l.load.Connections)
	a := vegeta.NewAttacker(vegeta.Client(l.client), vegeta.Workers(c), vegeta.MaxWorkers(c))
	pacer := vegeta.ConstantPacer{Freq: l.load.Rate, Per: time.Second}
	r := &Round{hist: &vegeta.Histogram{Buckets: histogramBuckets}}
	r.StatusCodes = map[string]int{}
	start := time.Now()
	r.Start = start.UTC().Format(time.RFC3339Nano)
	results := a.Attack(vegeta.NewStaticTargeter(l.targets...), pacer, d, name)
	if stop != nil {
		go func() {
			select {
			case <-stop:
				a.Stop()
			case <-time.After(d):
			}
		}()
	}
	errs := map[string]bool{}
	var tick []time.Duration
	nextTick := start.Add(time.Second)
	for res := range results {
		if res.Error == "" && l.load.Expect != nil && res.Code/100 == 2 && !l.load.Expect.Match(res.Body) {
			res.Error = fmt.Sprintf("%s %s: the answer %.60q does not match %s", res.Method, res.URL, res.Body, l.load.Expect)
		}
		res.Body = nil
		r.metrics.Add(res)
		r.hist.Add(res)
		r.latencies = append(r.latencies, res.Latency)
		r.Requests++
		r.StatusCodes[fmt.Sprint(res.Code)]++
		if res.Error != "" || res.Code/100 != 2 {
			r.Errors++
			msg := res.Error
			if msg == "" {
				msg = fmt.Sprintf("status %d", res.Code)
			}
			if !errs[msg] && len(errs) < maxErrorMessages {
				errs[msg] = true
				r.ErrorMessages = append(r.ErrorMessages, msg)
			}
		}
		if progress != nil {
			tick = append(tick, res.Latency)
			if now := time.Now(); now.After(nextTick) {
				lat := Summarize(tick)
				fmt.Fprintf(progress, "  %4.0fs  %8d req/s  p50 %-9s p99 %-9s max %-9s errors %d\n",
					now.Sub(start).Seconds(), len(tick), ms(lat.P50), ms(lat.P99), ms(lat.Max), r.Errors)
				tick, nextTick = tick[:0], nextTick.Add(time.Second)
			}
		}
	}
	r.metrics.Close()
	r.Seconds = time.Since(start).Seconds()
	if r.Seconds > 0 {
		r.Throughput = float64(r.Requests-r.Errors) / r.Seconds
	}
	r.Latency = Summarize(r.latencies)
	return r
}

// Summarize gives the latencies' mean and exact percentiles (nearest
// rank); it leaves lat as it is.
func Summarize(lat []time.Duration) result.Latency {
	if len(lat) == 0 {
		return result.Latency{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	rank := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(i, 0)].Seconds()
	}
	p95 := rank(0.95)
	return result.Latency{
		Mean: sum.Seconds() / float64(len(s)),
		P50:  rank(0.50), P90: rank(0.90), P95: &p95, P99: rank(0.99),
		Max: s[len(s)-1].Seconds(),
	}
}

func ms(seconds float64) string { return fmt.Sprintf("%.3fms", seconds*1000) }

// Summary is the round's latency summary, for people.
func (r *Round) Summary() string {
	l := r.Latency
	return fmt.Sprintf("%d requests in %.1fs: %.0f req/s, errors %d; latency mean %s, p50 %s, p90 %s, p99 %s, max %s",
		r.Requests, r.Seconds, r.Throughput, r.Errors, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max))
}

// WriteReport writes vegeta's text report of the round.
func (r *Round) WriteReport(w io.Writer) error {
	return vegeta.NewTextReporter(&r.metrics).Report(w)
}

// WriteHistogram writes the round's latency histogram as a table.
func (r *Round) WriteHistogram(w io.Writer) error {
	return vegeta.NewHistogramReporter(r.hist).Report(w)
}

// A Histogram is the latency histogram of several rounds.
type Histogram struct {
	h vegeta.Histogram
}

// NewHistogram returns an empty histogram with the rounds' buckets.
func NewHistogram() *Histogram {
	return &Histogram{h: vegeta.Histogram{Buckets: histogramBuckets, Counts: make([]uint64, len(histogramBuckets))}}
}

// Add adds a round's latencies.
func (h *Histogram) Add(r *Round) {
	for i, n := range r.hist.Counts {
		h.h.Counts[i] += n
	}
	h.h.Total += r.hist.Total
}

// WriteText writes the histogram as a table.
func (h *Histogram) WriteText(w io.Writer) error {
	return vegeta.NewHistogramReporter(&h.h).Report(w)
}

// JSON is the histogram as indented JSON: its buckets, counts and total.
func (h *Histogram) JSON() ([]byte, error) {
	return json.MarshalIndent(&h.h, "", "  ")
}
