// Package server is the program of every stage of the router study: it
// serves the API (package api) with the stage's router, and net/http/pprof
// on a listener of its own, until SIGINT or SIGTERM, then shuts both down
// cleanly (requests in flight are finished) and exits with status 0.
//
//	routerN [-addr HOST:PORT] [-pprof HOST:PORT] [-addrfile FILE]
//	        [-blockprofilerate NS] [-mutexprofilefraction N] [-shutdowntimeout D]
//	        [-readheadertimeout D] [-idletimeout D]
//
// Port 0 takes a free port; the addresses are printed, and written as JSON
// to -addrfile ({"addr": "127.0.0.1:PORT", "pprof": "127.0.0.1:PORT"}) once
// both listeners are open, which is how the benchmark runner finds them.
// Profile a running server with, e.g.,
//
//	go tool pprof http://127.0.0.1:6060/debug/pprof/profile?seconds=10
//	go tool pprof http://127.0.0.1:6060/debug/pprof/mutex
//	curl -o trace.out 'http://127.0.0.1:6060/debug/pprof/trace?seconds=2'
//
// The block and mutex profiles are empty unless -blockprofilerate and
// -mutexprofilefraction turn them on (runtime.SetBlockProfileRate,
// runtime.SetMutexProfileFraction). The pprof listener also serves the
// process's runtime figures so far (allocations, mutex wait, CPU time), as
// JSON, at /debug/runtime-metrics (RuntimeMetricsPath).
//
// Exit status: 0 after a clean shutdown; 2 for a bad flag; 1 when a port
// cannot be listened on (busy, say) or the shutdown did not finish in time.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"havlak-lab/go/router/api"
	"havlak-lab/go/router/route"
	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/runtimemetrics"
)

// Main runs the server of the stage name with its router, and exits.
func Main(name string, newRouter func() route.Router, options ...Option) {
	os.Exit(cli.Report(os.Stderr, name, Run(context.Background(), name, newRouter, os.Args[1:], os.Stdout, os.Stderr, options...)))
}

// An Option is a stage's own default for one of the server's settings;
// its flag still changes it.
type Option func(*settings)

type settings struct {
	readHeaderTimeout, idleTimeout time.Duration
}

// defaults are the settings of a stage that gives no Option: router1 to
// router3 as they were measured.
var defaults = settings{readHeaderTimeout: 10 * time.Second}

// ReadHeaderTimeout is how long a client may take to send a request's
// headers (http.Server.ReadHeaderTimeout, flag -readheadertimeout); 10 s
// unless a stage says otherwise.
func ReadHeaderTimeout(d time.Duration) Option {
	return func(s *settings) { s.readHeaderTimeout = d }
}

// IdleTimeout is how long a keep-alive connection may wait for its next
// request before the server closes it (http.Server.IdleTimeout, flag
// -idletimeout); never unless a stage says otherwise.
func IdleTimeout(d time.Duration) Option {
	return func(s *settings) { s.idleTimeout = d }
}

// Addrs is what -addrfile holds.
type Addrs struct {
	Addr  string `json:"addr"`  // the API
	PProf string `json:"pprof"` // net/http/pprof
}

// Run serves until ctx is done or a SIGINT or SIGTERM arrives.
func Run(ctx context.Context, name string, newRouter func() route.Router, args []string, stdout, stderr io.Writer, options ...Option) error {
	set := defaults
	for _, o := range options {
		o(&set)
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "serve the API on `host:port` (port 0: a free one)")
	pprofAddr := fs.String("pprof", "127.0.0.1:6060", "serve net/http/pprof on `host:port` (port 0: a free one)")
	addrFile := fs.String("addrfile", "", "write the addresses as JSON to `file` once listening")
	blockRate := fs.Int("blockprofilerate", 0, "runtime.SetBlockProfileRate: sample one blocking event per `ns` blocked (0: off)")
	mutexFraction := fs.Int("mutexprofilefraction", 0, "runtime.SetMutexProfileFraction: sample 1 in `n` contention events (0: off)")
	shutdownTimeout := fs.Duration("shutdowntimeout", 10*time.Second, "how long requests in flight may take to finish at shutdown")
	fs.DurationVar(&set.readHeaderTimeout, "readheadertimeout", set.readHeaderTimeout, "close a connection whose request headers take longer than `d` (0: never)")
	fs.DurationVar(&set.idleTimeout, "idletimeout", set.idleTimeout, "close a keep-alive connection idle for `d` (0: never)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	case *blockRate < 0 || *mutexFraction < 0:
		return cli.Usagef("-blockprofilerate=%d -mutexprofilefraction=%d: must not be negative", *blockRate, *mutexFraction)
	case *shutdownTimeout <= 0:
		return cli.Usagef("-shutdowntimeout=%v: must be positive", *shutdownTimeout)
	case set.readHeaderTimeout < 0 || set.idleTimeout < 0:
		return cli.Usagef("-readheadertimeout=%v -idletimeout=%v: must not be negative", set.readHeaderTimeout, set.idleTimeout)
	}
	for _, a := range []struct{ flag, value string }{{"addr", *addr}, {"pprof", *pprofAddr}} {
		if _, port, err := net.SplitHostPort(a.value); err != nil || port == "" {
			return cli.Usagef("-%s=%q: want host:port", a.flag, a.value)
		}
	}
	if *addr == *pprofAddr && !hasPortZero(*addr) {
		return cli.Usagef("-addr and -pprof are both %s: pprof needs a listener of its own", *addr)
	}

	router := newRouter()
	if err := api.Register(router); err != nil {
		return err
	}
	runtime.SetBlockProfileRate(*blockRate)
	runtime.SetMutexProfileFraction(*mutexFraction)

	// Signals are caught before the listeners open, so that a signal sent
	// as soon as the addresses are known shuts down cleanly.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("-addr: %w", err)
	}
	pln, err := net.Listen("tcp", *pprofAddr)
	if err != nil {
		ln.Close()
		return fmt.Errorf("-pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // heap, allocs, goroutine, block, mutex, ...
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// Allocations so far, read by the perf runner around each round.
	mux.HandleFunc(RuntimeMetricsPath, serveRuntimeMetrics)
	// http.Server's zero IdleTimeout is "never" only when ReadTimeout is
	// zero too, as it is here.
	servers := []*http.Server{
		{Handler: router, ReadHeaderTimeout: set.readHeaderTimeout, IdleTimeout: set.idleTimeout},
		{Handler: mux, ReadHeaderTimeout: set.readHeaderTimeout, IdleTimeout: set.idleTimeout},
	}
	failed := make(chan error, 2)
	for i, l := range []net.Listener{ln, pln} {
		go func() {
			if err := servers[i].Serve(l); !errors.Is(err, http.ErrServerClosed) {
				failed <- err
			}
		}()
	}
	addrs := Addrs{Addr: ln.Addr().String(), PProf: pln.Addr().String()}
	fmt.Fprintf(stdout, "%s: serving the API on http://%s/ and pprof on http://%s/debug/pprof/\n", name, addrs.Addr, addrs.PProf)
	if *addrFile != "" {
		if err := writeAddrs(cli.UserPath(*addrFile), addrs); err != nil {
			shutdown(servers, time.Second)
			return fmt.Errorf("-addrfile: %w", err)
		}
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-failed:
	}
	why := "the context is done"
	if ctx.Err() != nil && context.Cause(ctx) != nil {
		why = context.Cause(ctx).Error()
	}
	stop()
	if err := shutdown(servers, *shutdownTimeout); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if serveErr != nil {
		return serveErr
	}
	fmt.Fprintf(stdout, "%s: shut down cleanly (%s)\n", name, why)
	return nil
}

func hasPortZero(addr string) bool {
	_, port, _ := net.SplitHostPort(addr)
	return port == "0"
}

// shutdown stops the servers, letting requests in flight finish within
// timeout.
func shutdown(servers []*http.Server, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

func writeAddrs(path string, addrs Addrs) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	data, _ := json.Marshal(addrs)
	if _, err := f.Write(append(data, '\n')); err != nil {
		return err
	}
	return f.Commit()
}

// RuntimeMetricsPath is where the pprof listener serves the process's
// runtime figures so far (internal/runtimemetrics: allocations, mutex
// wait, CPU time), for the perf runner to read before and after each
// measured round of load.
const RuntimeMetricsPath = "/debug/runtime-metrics"

func serveRuntimeMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(runtimemetrics.Read())
}
