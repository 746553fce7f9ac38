package loadgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"havlak-lab/tools/result"
)

func TestSummarize(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- { // 1 ms … 100 ms, out of order
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	got := Summarize(lat)
	want := result.Latency{Mean: 0.0505, P50: 0.050, P90: 0.090, P99: 0.099, Max: 0.100}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(got.Mean, want.Mean) || !near(got.P50, want.P50) || !near(got.P90, want.P90) || !near(got.P99, want.P99) || !near(got.Max, want.Max) {
		t.Errorf("Summarize = %+v, want %+v (nearest rank)", got, want)
	}
	if got.P95 == nil || !near(*got.P95, 0.095) {
		t.Errorf("Summarize's p95 = %v, want 0.095 (nearest rank)", got.P95)
	}
	if lat[0] != 100*time.Millisecond {
		t.Error("Summarize sorted its argument")
	}
	if got := Summarize(nil); got != (result.Latency{}) {
		t.Errorf("Summarize(nil) = %+v", got)
	}
}

func TestReadTargets(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("# comment\nGET /users/1\n\nPOST /users\n"), 0o666)
	targets, err := ReadTargets(good)
	if want := []Target{{"GET", "/users/1"}, {"POST", "/users"}}; err != nil || fmt.Sprint(targets) != fmt.Sprint(want) {
		t.Errorf("ReadTargets = %+v, %v; want %+v", targets, err, want)
	}
	for name, text := range map[string]string{
		"empty":     "# nothing\n",
		"no method": "/users\n",
		"absolute":  "GET http://example.com/\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o666)
		if _, err := ReadTargets(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: ReadTargets = %v, want an error naming the file", name, err)
		}
	}
}

// routes is a server that answers GET /a and GET /b with their path and
// counts what it was asked.
func routes(t *testing.T) (*httptest.Server, map[string]int, *sync.Mutex) {
	var mu sync.Mutex
	seen := map[string]int{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		if r.URL.Path != "/a" && r.URL.Path != "/b" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "%s %s\n", r.Method, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s, seen, &mu
}

func TestAttack(t *testing.T) {
	s, seen, mu := routes(t)
	addr := strings.TrimPrefix(s.URL, "http://")
	l := New(addr, []Target{{"GET", "/a"}, {"GET", "/b"}}, Load{Connections: 2, Expect: regexp.MustCompile(`^GET /`)})
	r := l.Attack("test", 300*time.Millisecond, nil, nil)
	if r.Requests == 0 || r.Errors != 0 || r.StatusCodes["200"] != int(r.Requests) {
		t.Fatalf("round: %d requests, %d errors (%q), status codes %v; want some, all 200", r.Requests, r.Errors, r.ErrorMessages, r.StatusCodes)
	}
	mu.Lock()
	served := seen["GET /a"] + seen["GET /b"]
	both := seen["GET /a"] > 0 && seen["GET /b"] > 0
	mu.Unlock()
	if served != int(r.Requests) || !both {
		t.Errorf("the server saw %v, the round counted %d requests: want both targets, every request counted", seen, r.Requests)
	}
	if r.Latency.Max <= 0 || r.Latency.P50 > r.Latency.Max || r.Throughput <= 0 {
		t.Errorf("round latency %+v, throughput %v", r.Latency, r.Throughput)
	}
	var report, hist strings.Builder
	if err := r.WriteReport(&report); err != nil || !strings.Contains(report.String(), "Requests") {
		t.Errorf("WriteReport: %v\n%s", err, report.String())
	}
	if err := r.WriteHistogram(&hist); err != nil || !strings.Contains(hist.String(), "Bucket") {
		t.Errorf("WriteHistogram: %v\n%s", err, hist.String())
	}

	all := NewHistogram()
	all.Add(r)
	all.Add(r)
	// The JSON maps each bucket's lower bound, in ns, to its count.
	data, err := all.JSON()
	var counts map[string]uint64
	if err == nil {
		err = json.Unmarshal(data, &counts)
	}
	var sum uint64
	for _, n := range counts {
		sum += n
	}
	if err != nil || len(counts) != len(histogramBuckets) || sum != 2*uint64(r.Requests) {
		t.Errorf("two rounds' histogram: %v, %d buckets, counts adding up to %d; want %d, %d\n%s", err, len(counts), sum, len(histogramBuckets), 2*r.Requests, data)
	}
}

func TestAttackErrors(t *testing.T) {
	s, _, _ := routes(t)
	addr := strings.TrimPrefix(s.URL, "http://")
	// /missing answers 404 (vegeta's error message is the status); /a
	// answers, but not what expect wants.
	l := New(addr, []Target{{"GET", "/missing"}, {"GET", "/a"}}, Load{Connections: 1, Expect: regexp.MustCompile(`^POST`)})
	r := l.Attack("errors", 200*time.Millisecond, nil, nil)
	if r.Requests < 2 || r.Errors != r.Requests {
		t.Errorf("%d errors of %d requests; want every request an error, both targets sent", r.Errors, r.Requests)
	}
	want := map[string]bool{"404 Not Found": true, `GET http://` + addr + `/a: the answer "GET /a\n" does not match ^POST`: true}
	for _, msg := range r.ErrorMessages {
		if !want[msg] {
			t.Errorf("error message %q; want one of %v", msg, want)
		}
		delete(want, msg)
	}
	if len(want) > 0 {
		t.Errorf("error messages %q: missing %v", r.ErrorMessages, want)
	}
}

// A round stopped early ends then: this one would last an hour.
func TestAttackStop(t *testing.T) {
	s, _, _ := routes(t)
	l := New(strings.TrimPrefix(s.URL, "http://"), []Target{{"GET", "/a"}}, Load{Connections: 1})
	stop := make(chan struct{})
	time.AfterFunc(200*time.Millisecond, func() { close(stop) })
	if r := l.Attack("stopped", time.Hour, stop, nil); r.Requests == 0 || r.Errors != 0 {
		t.Errorf("stopped round: %d requests, %d errors (%q)", r.Requests, r.Errors, r.ErrorMessages)
	}
}
