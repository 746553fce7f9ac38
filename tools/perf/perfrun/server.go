package perfrun

// A server benchmark (kind "server", rule server_benchmark): the program
// is an HTTP server (serverprocess.go), measured under a load that
// package loadgen drives from this process.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/perf/loadgen"
	"havlak-lab/tools/result"
)

// readTargets reads the spec's targets file.
func (b *bench) readTargets() ([]loadgen.Target, error) {
	return loadgen.ReadTargets(b.path(b.Server.Targets))
}

// loader is the spec's load of the server at addr.
func (b *bench) loader(addr string, targets []loadgen.Target) *loadgen.Loader {
	return loadgen.New(addr, targets, loadgen.Load{Connections: b.Server.Connections, Rate: b.Server.Rate, Expect: b.expectRE})
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
	targets, err := b.readTargets()
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
	l := b.loader(s.addr, targets)
	fmt.Printf("perf: warming up for %v, then %d connections for %v (%d targets)\n", warmup, b.Server.Connections, duration, len(targets))
	l.Attack("warmup", warmup, ctx.Done(), nil)
	r := l.Attack("load", duration, ctx.Done(), os.Stdout)
	fmt.Printf("perf: %s: %s\n", name, r.Summary())
	r.WriteHistogram(os.Stdout)
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

// serverTestMode is `bazel test NAME_test`: warm-up, the measured rounds,
// a profiled round, the server stopped and checked; everything in the
// outputs, result.json last.
func (b *bench) serverTestMode(out string) (*result.Result, error) {
	env, err := b.startTest(out)
	if err != nil {
		return nil, err
	}
	targets, err := b.readTargets()
	if err != nil {
		return nil, err
	}
	warmup, duration, profile, trace := b.Server.Durations()
	name, reps := b.Benchmark.Name, b.Benchmark.Repetitions

	s, err := b.startServer(withOutputs(b.Args, b.out), b.outPath("server.output.txt"), nil)
	if err != nil {
		return nil, err
	}
	l := b.loader(s.addr, targets)
	fmt.Fprintf(os.Stderr, "perf: %s on %s: warm-up %v, %d round(s) of %v with %d connections, then a profiled round\n",
		name, s.addr, warmup, reps, duration, b.Server.Connections)
	l.Attack("warmup", warmup, nil, nil)
	rec := &result.Server{
		Load: result.Load{
			Generator: loadgen.Generator, Connections: b.Server.Connections, Rate: float64(b.Server.Rate), Targets: len(targets),
			WarmupSeconds: warmup.Seconds(), DurationSeconds: duration.Seconds(),
			ProfileSeconds: profile.Seconds(), TraceSeconds: trace.Seconds(),
		},
		Rates: result.ProfileRates{BlockProfileRate: b.Server.BlockProfileRate, MutexProfileFraction: b.Server.MutexProfileFraction},
	}
	all := loadgen.NewHistogram()
	var report strings.Builder
	var bench strings.Builder
	var costs []roundCost
	for i := 1; i <= reps; i++ {
		before := s.counts() // servermetrics.go
		r := l.Attack(fmt.Sprintf("round%d", i), duration, nil, nil)
		costs = append(costs, roundCost{before: before, after: s.counts(), requests: r.Requests})
		rec.Rounds = append(rec.Rounds, r.LoadRound)
		all.Add(r)
		fmt.Fprintf(os.Stderr, "perf: %s: round %d: %s\n", name, i, r.Summary())
		fmt.Fprintf(&report, "# round %d\n", i)
		r.WriteReport(&report)
		fmt.Fprintf(&bench, "Benchmark%s %d %.0f ns/op %.1f req/s %.0f p50-ns %.0f p90-ns %.0f p99-ns %.0f max-ns %d errors\n",
			name, r.Requests, 1e9/math.Max(r.Throughput, 1e-9), r.Throughput,
			r.Latency.P50*1e9, r.Latency.P90*1e9, r.Latency.P99*1e9, r.Latency.Max*1e9, r.Errors)
	}
	os.Stdout.WriteString(bench.String())
	metrics := perRequestMetrics(costs, b.Server.MutexProfileFraction)
	printMetrics(metrics)

	fmt.Fprintf(os.Stderr, "perf: %s: a profiled round: CPU, block, mutex and allocs over %v, heap and goroutines, a %v trace\n", name, profile, trace)
	profiled, perr := b.profileUnderLoad(l, s.pprof, profile, trace)
	exit := s.stop()
	rec.Exit = exit
	fmt.Fprintf(os.Stderr, "perf: %s stopped on %s: exit status %d\n", name, exit.Signal, exit.ExitStatus)
	if perr != nil {
		return nil, perr
	}
	if !exit.Clean {
		data, _ := os.ReadFile(b.outPath("server.output.txt"))
		os.Stderr.Write(data)
		return nil, fmt.Errorf("%s did not shut down cleanly: %s, exit status %d", name, exit.Signal, exit.ExitStatus)
	}
	var errors int64
	for _, r := range append(rec.Rounds, profiled.LoadRound) {
		errors += r.Errors
		if r.Errors > 0 {
			fmt.Fprintf(os.Stderr, "perf: %s: %d errors: %s\n", name, r.Errors, strings.Join(r.ErrorMessages, "; "))
		}
	}
	if errors > 0 {
		return nil, cli.ExitError{Status: 1}
	}

	var hist strings.Builder
	all.WriteText(&hist)
	histJSON, _ := all.JSON()
	for file, data := range map[string]string{
		benchFile:           bench.String(),
		"load.report.txt":   report.String(),
		"latency.hist.txt":  hist.String(),
		"latency.hist.json": string(histJSON) + "\n",
	} {
		if err := os.WriteFile(b.outPath(file), []byte(data), 0o666); err != nil {
			return nil, err
		}
	}
	if err := b.renderServer(); err != nil {
		return nil, err
	}
	// Counted after the load, so that nothing runs beside it.
	start := time.Now()
	instructions, err := b.instructionsPerRequest(targets) // serverinstructions.go
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "perf: %s: own instructions per request %v%s, counted in %.1f s\n",
		name, instructions.Values, instructions.Unavailable, time.Since(start).Seconds())
	metrics = append(metrics, instructions)
	return b.writeResult(&result.Result{Environment: env, Server: rec, Metrics: metrics})
}

// serverProfiles are the profiles fetched under load: the delta ones over
// the profile window, at once, then the snapshots.
var (
	windowProfiles   = []string{"cpu", "block", "mutex", "allocs"}
	snapshotProfiles = []string{"heap", "goroutine"}
)

// profileUnderLoad drives a round of load while it fetches the profiles
// and the trace over HTTP from pprof.
func (b *bench) profileUnderLoad(l *loadgen.Loader, pprof string, window, trace time.Duration) (*loadgen.Round, error) {
	stop := make(chan struct{})
	done := make(chan *loadgen.Round)
	go func() { done <- l.Attack("profiled", window+trace+30*time.Second, stop, nil) }()
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
