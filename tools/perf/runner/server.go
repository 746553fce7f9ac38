package main

// A server benchmark (kind "server", rule server_benchmark): the program
// is an HTTP server, measured under load from this process.
//
// The program's contract: it takes -addr HOST:PORT (the API), -pprof
// HOST:PORT (net/http/pprof), -addrfile FILE (where it writes
// {"addr": …, "pprof": …} as JSON once both listen), -blockprofilerate N
// and -mutexprofilefraction N, and on SIGTERM it shuts down and exits with
// status 0. The runner gives it 127.0.0.1:0 for both, so the ports are
// free ones, and refuses any address that is not a loopback one: no load
// ever leaves the machine.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// generator names the load generator in results.
const generator = "vegeta v12.13.0 (library), closed loop"

// readTargets reads the targets file.
func readTargets(file string) ([]vegeta.Target, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var targets []vegeta.Target
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
		targets = append(targets, vegeta.Target{Method: method, URL: path})
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("%s: no targets", file)
	}
	return targets, nil
}

// A server is the program running under test.
type server struct {
	cmd          *exec.Cmd
	addr, pprof  string // host:port, loopback
	exited       chan struct{}
	waitErr      error
	outputPath   string
	outputCloser io.Closer
}

// startServer starts the program with args, its output in outputPath,
// and waits until it listens and answers ready with 200.
func (b *bench) startServer(args []string, outputPath string, stdout io.Writer) (*server, error) {
	tmp, err := os.MkdirTemp("", "server-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	addrFile := filepath.Join(tmp, "addrs.json")
	l := b.Server
	cmd := exec.Command(b.binary, append([]string{
		"-addr", "127.0.0.1:0", "-pprof", "127.0.0.1:0", "-addrfile", addrFile,
		fmt.Sprintf("-blockprofilerate=%d", l.BlockProfileRate),
		fmt.Sprintf("-mutexprofilefraction=%d", l.MutexProfileFraction),
	}, args...)...)
	s := &server{cmd: cmd, exited: make(chan struct{}), outputPath: outputPath}
	if stdout != nil {
		cmd.Stdout, cmd.Stderr = stdout, os.Stderr
	} else {
		f, err := os.Create(outputPath)
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr, s.outputCloser = f, f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		data, err := os.ReadFile(addrFile)
		if err == nil {
			var a struct{ Addr, PProf string }
			if err := json.Unmarshal(data, &a); err != nil {
				s.kill()
				return nil, fmt.Errorf("the server's -addrfile: %w", err)
			}
			s.addr, s.pprof = a.Addr, a.PProf
			break
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("the server exited before listening (%v); its output: %s", s.waitErr, s.output())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, errors.New("the server wrote no -addrfile within 60 s")
		}
	}
	for _, a := range []string{s.addr, s.pprof} {
		if err := loopback(a); err != nil {
			s.kill()
			return nil, err
		}
	}
	// Ready: it answers.
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		resp, err := client.Get("http://" + s.addr + l.Ready)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("the server does not answer GET %s: %v", l.Ready, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loopback fails unless addr is a loopback address.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("the server listens on %q: only loopback addresses are loaded", addr)
	}
	return nil
}

func (s *server) output() string {
	if s.outputPath == "" || s.outputCloser == nil {
		return "(on the terminal)"
	}
	data, _ := os.ReadFile(s.outputPath)
	return string(data)
}

func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.exited
	if s.outputCloser != nil {
		s.outputCloser.Close()
	}
}

// stop sends SIGTERM and waits for the exit: a clean one is status 0
// within 30 s (else SIGKILL).
func (s *server) stop() result.ServerExit {
	exit := result.ServerExit{Signal: "SIGTERM"}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
		exit.Signal = "SIGTERM, then SIGKILL after 30 s"
	}
	if s.outputCloser != nil {
		s.outputCloser.Close()
	}
	exit.ExitStatus = s.cmd.ProcessState.ExitCode()
	if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		exit.ExitStatus = 128 + int(ws.Signal())
	}
	exit.Clean = exit.ExitStatus == 0 && exit.Signal == "SIGTERM"
	return exit
}

// loader drives the load at one server.
type loader struct {
	targets  []vegeta.Target
	load     perfspec.ServerLoad
	client   *http.Client
	expectRE *regexp.Regexp
}

func newLoader(addr string, targets []vegeta.Target, load perfspec.ServerLoad, expectRE *regexp.Regexp) *loader {
	full := make([]vegeta.Target, len(targets))
	for i, t := range targets {
		full[i] = vegeta.Target{Method: t.Method, URL: "http://" + addr + t.URL}
	}
	c := load.Connections
	// One client for every round, so that the connections stay open.
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: c,
			MaxConnsPerHost:     c,
			DisableCompression:  true,
		},
	}
	return &loader{targets: full, load: load, client: client, expectRE: expectRE}
}

// A round is what one attack measured.
type round struct {
	result.LoadRound
	latencies []time.Duration
	hist      *vegeta.Histogram
	metrics   vegeta.Metrics
}

// histogramBuckets are the latency histogram's buckets.
var histogramBuckets = vegeta.Buckets{0, 50 * time.Microsecond, 100 * time.Microsecond, 200 * time.Microsecond,
	500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, time.Second}

// attack drives the load for d, or until stop is closed, whichever comes
// first; progress, when not nil, gets a line a second.
func (l *loader) attack(name string, d time.Duration, stop <-chan struct{}, progress io.Writer) *round {
	c := uint64(l.load.Connections)
	a := vegeta.NewAttacker(vegeta.Client(l.client), vegeta.Workers(c), vegeta.MaxWorkers(c))
	pacer := vegeta.ConstantPacer{Freq: l.load.Rate, Per: time.Second}
	r := &round{hist: &vegeta.Histogram{Buckets: histogramBuckets}}
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
		if res.Error == "" && l.expectRE != nil && res.Code/100 == 2 && !l.expectRE.Match(res.Body) {
			res.Error = fmt.Sprintf("%s %s: the answer %.60q does not match %s", res.Method, res.URL, res.Body, l.expectRE)
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
			if !errs[msg] && len(errs) < 10 {
				errs[msg] = true
				r.ErrorMessages = append(r.ErrorMessages, msg)
			}
		}
		if progress != nil {
			tick = append(tick, res.Latency)
			if now := time.Now(); now.After(nextTick) {
				lat := summarize(tick)
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
	r.Latency = summarize(r.latencies)
	return r
}

// summarize gives the latencies' mean and exact percentiles (nearest
// rank).
func summarize(lat []time.Duration) result.Latency {
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
	return result.Latency{
		Mean: sum.Seconds() / float64(len(s)),
		P50:  rank(0.50), P90: rank(0.90), P99: rank(0.99),
		Max: s[len(s)-1].Seconds(),
	}
}

func ms(seconds float64) string { return fmt.Sprintf("%.3fms", seconds*1000) }

// summary is a round's latency summary, for people.
func summary(r *round) string {
	l := r.Latency
	return fmt.Sprintf("%d requests in %.1fs: %.0f req/s, errors %d; latency mean %s, p50 %s, p90 %s, p99 %s, max %s",
		r.Requests, r.Seconds, r.Throughput, r.Errors, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max))
}

// serverRunMode is `bazel run NAME`: the server under a live load, its
// progress and latency summary printed; `-- --duration D` sets the load's
// length, `-- --serve` keeps the server up after it until Ctrl-C; other
// arguments go to the server.
func (b *bench) serverRunMode(userArgs []string) error {
	warmup, duration, _, _ := b.Server.Durations()
	serve := false
	var args []string
	for i := 0; i < len(userArgs); i++ {
		switch arg := userArgs[i]; {
		case arg == "--serve":
			serve = true
		case arg == "--duration" && i+1 < len(userArgs):
			i++
			d, err := time.ParseDuration(userArgs[i])
			if err != nil || d <= 0 {
				return cli.Usagef("--duration %q: want a positive duration", userArgs[i])
			}
			duration = d
		case strings.HasPrefix(arg, "--duration="):
			d, err := time.ParseDuration(strings.TrimPrefix(arg, "--duration="))
			if err != nil || d <= 0 {
				return cli.Usagef("%s: want a positive duration", arg)
			}
			duration = d
		default:
			args = append(args, arg)
		}
	}
	targets, err := readTargets(b.path(b.Server.Targets))
	if err != nil {
		return err
	}
	expectRE, err := b.compileExpect()
	if err != nil {
		return err
	}
	// Signals are the runner's to handle: the server gets its SIGTERM from
	// the runner, after the load.
	ctx, stopSignals := signalContext()
	defer stopSignals()

	s, err := b.startServer(append(append([]string{}, b.Args...), args...), "", os.Stdout)
	if err != nil {
		return err
	}
	name := b.Benchmark.Name
	fmt.Printf("perf: %s answers on http://%s/; while it is under load, profile it with\n", name, s.addr)
	for _, c := range []string{"profile?seconds=5", "heap", "mutex", "block", "goroutine"} {
		fmt.Printf("  go tool pprof http://%s/debug/pprof/%s\n", s.pprof, c)
	}
	fmt.Printf("  curl -o trace.out 'http://%s/debug/pprof/trace?seconds=2' && go tool trace trace.out\n", s.pprof)
	l := newLoader(s.addr, targets, b.Server, expectRE)
	fmt.Printf("perf: warming up for %v, then %d connections for %v (%d targets)\n", warmup, b.Server.Connections, duration, len(targets))
	l.attack("warmup", warmup, ctx.Done(), nil)
	r := l.attack("load", duration, ctx.Done(), os.Stdout)
	fmt.Printf("perf: %s: %s\n", name, summary(r))
	vegeta.NewHistogramReporter(r.hist).Report(os.Stdout)
	if serve && ctx.Err() == nil {
		fmt.Printf("perf: serving until Ctrl-C\n")
		<-ctx.Done()
	}
	exit := s.stop()
	fmt.Printf("perf: %s stopped: exit status %d (clean: %v)\n", name, exit.ExitStatus, exit.Clean)
	if !exit.Clean {
		return cli.ExitError{Status: 1}
	}
	if r.Errors > 0 {
		fmt.Fprintf(os.Stderr, "perf: %d errors: %s\n", r.Errors, strings.Join(r.ErrorMessages, "; "))
		return cli.ExitError{Status: 1}
	}
	return nil
}

func (b *bench) compileExpect() (*regexp.Regexp, error) {
	if b.Expect == "" {
		return nil, nil
	}
	re, err := regexp.Compile(b.Expect)
	if err != nil {
		return nil, fmt.Errorf("expect: %w", err)
	}
	return re, nil
}

// serverTestMode is `bazel test NAME_test`: warm-up, the measured rounds,
// a profiled round, the server stopped and checked; everything in the
// outputs, result.json last.
func (b *bench) serverTestMode() error {
	var err error
	if b.out, err = testOutputs(); err != nil {
		return err
	}
	env, err := b.environment()
	if err != nil {
		return err
	}
	targets, err := readTargets(b.path(b.Server.Targets))
	if err != nil {
		return err
	}
	if b.expectRE, err = b.compileExpect(); err != nil {
		return err
	}
	warmup, duration, profile, trace := b.Server.Durations()
	name, reps := b.Benchmark.Name, b.Benchmark.Repetitions

	s, err := b.startServer(withOutputs(b.Args, b.out), b.outPath("server.output.txt"), nil)
	if err != nil {
		return err
	}
	l := newLoader(s.addr, targets, b.Server, b.expectRE)
	fmt.Fprintf(os.Stderr, "perf: %s on %s: warm-up %v, %d round(s) of %v with %d connections, then a profiled round\n",
		name, s.addr, warmup, reps, duration, b.Server.Connections)
	l.attack("warmup", warmup, nil, nil)
	rec := &result.Server{
		Load: result.Load{
			Generator: generator, Connections: b.Server.Connections, Rate: float64(b.Server.Rate), Targets: len(targets),
			WarmupSeconds: warmup.Seconds(), DurationSeconds: duration.Seconds(),
			ProfileSeconds: profile.Seconds(), TraceSeconds: trace.Seconds(),
		},
		Rates: result.ProfileRates{BlockProfileRate: b.Server.BlockProfileRate, MutexProfileFraction: b.Server.MutexProfileFraction},
	}
	all := &vegeta.Histogram{Buckets: histogramBuckets, Counts: make([]uint64, len(histogramBuckets))}
	var report strings.Builder
	var bench strings.Builder
	for i := 1; i <= reps; i++ {
		r := l.attack(fmt.Sprintf("round%d", i), duration, nil, nil)
		rec.Rounds = append(rec.Rounds, r.LoadRound)
		for j, n := range r.hist.Counts {
			all.Counts[j] += n
		}
		all.Total += r.hist.Total
		fmt.Fprintf(os.Stderr, "perf: %s: round %d: %s\n", name, i, summary(r))
		fmt.Fprintf(&report, "# round %d\n", i)
		vegeta.NewTextReporter(&r.metrics).Report(&report)
		fmt.Fprintf(&bench, "Benchmark%s %d %.0f ns/op %.1f req/s %.0f p50-ns %.0f p90-ns %.0f p99-ns %.0f max-ns %d errors\n",
			name, r.Requests, 1e9/math.Max(r.Throughput, 1e-9), r.Throughput,
			r.Latency.P50*1e9, r.Latency.P90*1e9, r.Latency.P99*1e9, r.Latency.Max*1e9, r.Errors)
	}
	os.Stdout.WriteString(bench.String())

	fmt.Fprintf(os.Stderr, "perf: %s: a profiled round: CPU, block, mutex and allocs over %v, heap and goroutines, a %v trace\n", name, profile, trace)
	profiled, perr := b.profileUnderLoad(l, s.pprof, profile, trace)
	exit := s.stop()
	rec.Exit = exit
	fmt.Fprintf(os.Stderr, "perf: %s stopped on %s: exit status %d\n", name, exit.Signal, exit.ExitStatus)
	if perr != nil {
		return perr
	}
	if !exit.Clean {
		data, _ := os.ReadFile(b.outPath("server.output.txt"))
		os.Stderr.Write(data)
		return fmt.Errorf("%s did not shut down cleanly: %s, exit status %d", name, exit.Signal, exit.ExitStatus)
	}
	var errors int64
	for _, r := range append(rec.Rounds, profiled.LoadRound) {
		errors += r.Errors
		if r.Errors > 0 {
			fmt.Fprintf(os.Stderr, "perf: %s: %d errors: %s\n", name, r.Errors, strings.Join(r.ErrorMessages, "; "))
		}
	}
	if errors > 0 {
		return cli.ExitError{Status: 1}
	}

	var hist strings.Builder
	vegeta.NewHistogramReporter(all).Report(&hist)
	histJSON, _ := json.MarshalIndent(all, "", "  ")
	for file, data := range map[string]string{
		"bench.txt":         bench.String(),
		"load.report.txt":   report.String(),
		"latency.hist.txt":  hist.String(),
		"latency.hist.json": string(histJSON) + "\n",
	} {
		if err := os.WriteFile(b.outPath(file), []byte(data), 0o666); err != nil {
			return err
		}
	}
	if err := b.renderServer(); err != nil {
		return err
	}
	files, err := b.files("")
	if err != nil {
		return err
	}
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark:     b.Benchmark,
		Environment:   env,
		Server:        rec,
		Files:         files,
	}
	if err := result.Write(b.out, r); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "perf: %s: %s lists %d files\n", name, result.FileName, len(files))
	return nil
}

// serverProfiles are the profiles fetched under load: the delta ones over
// the profile window, at once, then the snapshots.
var (
	windowProfiles   = []string{"cpu", "block", "mutex", "allocs"}
	snapshotProfiles = []string{"heap", "goroutine"}
)

// profileUnderLoad drives a round of load while it fetches the profiles
// and the trace over HTTP from pprof.
func (b *bench) profileUnderLoad(l *loader, pprof string, window, trace time.Duration) (*round, error) {
	stop := make(chan struct{})
	done := make(chan *round)
	go func() { done <- l.attack("profiled", window+trace+30*time.Second, stop, nil) }()
	time.Sleep(200 * time.Millisecond) // the load is under way
	ctx, cancel := context.WithTimeout(context.Background(), window+trace+60*time.Second)
	defer cancel()
	seconds := func(d time.Duration) string { return fmt.Sprint(max(1, int(math.Round(d.Seconds())))) }
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for _, p := range windowProfiles {
		path := p + "?seconds=" + seconds(window)
		if p == "cpu" {
			path = "profile?seconds=" + seconds(window)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- fetch(ctx, "http://"+pprof+"/debug/pprof/"+path, b.outPath(p+".pb.gz"))
		}()
	}
	wg.Wait()
	for _, p := range snapshotProfiles {
		errs <- fetch(ctx, "http://"+pprof+"/debug/pprof/"+p, b.outPath(p+".pb.gz"))
	}
	errs <- fetch(ctx, "http://"+pprof+"/debug/pprof/trace?seconds="+fmt.Sprintf("%.3f", trace.Seconds()), b.outPath("trace.out"))
	close(stop)
	r := <-done
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return r, errors.Join(all...)
}

// fetch GETs url into the file path.
func fetch(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return f.Close()
}

// renderServer writes pprof's views of a server's profiles.
func (b *bench) renderServer() error {
	cache := os.Getenv("TEST_TMPDIR")
	if cache == "" {
		cache = os.TempDir()
	}
	os.Setenv("XDG_CACHE_HOME", filepath.Join(cache, "cache"))
	if err := b.renderCPU(); err != nil {
		return err
	}
	if err := b.renderHeap(); err != nil {
		return err
	}
	for _, v := range []struct{ file, profile string }{
		{"allocs.alloc_space.txt", "allocs.pb.gz"},
		{"mutex.top.txt", "mutex.pb.gz"},
		{"block.top.txt", "block.pb.gz"},
		{"goroutine.top.txt", "goroutine.pb.gz"},
	} {
		flags := []string{}
		if strings.HasPrefix(v.file, "allocs") {
			flags = append(flags, "-sample_index=alloc_space")
		}
		if err := b.view(v.file, v.profile, flags...); err != nil {
			return err
		}
	}
	for _, v := range []struct{ file, profile string }{
		{"mutex.top-cum.txt", "mutex.pb.gz"},
		{"block.top-cum.txt", "block.pb.gz"},
	} {
		if err := b.view(v.file, v.profile, "-cum"); err != nil {
			return err
		}
	}
	return nil
}

// signalContext is done on SIGINT or SIGTERM.
func signalContext() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
}
