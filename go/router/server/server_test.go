package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router2"
	"havlak-lab/internal/cli"
)

func newRouter() route.Router { return router2.New() }

// syncBuffer is a bytes.Buffer safe for the server and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-nope"},
		{"extra"},
		{"-addr", "8080"},
		{"-pprof", "localhost"},
		{"-addr", "127.0.0.1:7001", "-pprof", "127.0.0.1:7001"},
		{"-blockprofilerate", "-1"},
		{"-mutexprofilefraction", "x"},
		{"-shutdowntimeout", "0s"},
		{"-idletimeout", "-1s"},
		{"-readheadertimeout", "soon"},
	} {
		var stderr syncBuffer
		err := Run(context.Background(), "router2", newRouter, args, io.Discard, &stderr)
		if cli.Status(err) != 2 {
			t.Errorf("%q: %v (status %d), want a usage error (status 2)", args, err, cli.Status(err))
		}
	}
	var stderr syncBuffer
	if err := Run(context.Background(), "router2", newRouter, []string{"-h"}, io.Discard, &stderr); err != nil ||
		!strings.Contains(stderr.String(), "-mutexprofilefraction") {
		t.Errorf("-h: %v, usage %q", err, stderr.String())
	}
}

func TestBusyPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, flag := range []string{"-addr", "-pprof"} {
		args := []string{"-addr", "127.0.0.1:0", "-pprof", "127.0.0.1:0", flag, busy.Addr().String()}
		err := Run(context.Background(), "router2", newRouter, args, io.Discard, io.Discard)
		if cli.Status(err) != 1 || !strings.Contains(err.Error(), "address already in use") || !strings.HasPrefix(err.Error(), flag+":") {
			t.Errorf("%s on a busy port: %v (status %d), want %q and status 1", flag, err, cli.Status(err), flag+": … address already in use")
		}
	}
}

// start runs a server on free ports and returns its addresses, and a
// channel with Run's error.
func start(t *testing.T, ctx context.Context, stdout io.Writer, extra ...string) (Addrs, chan error) {
	t.Helper()
	return startWith(t, ctx, stdout, nil, extra...)
}

// startWith is start with a stage's options.
func startWith(t *testing.T, ctx context.Context, stdout io.Writer, options []Option, extra ...string) (Addrs, chan error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "addrs.json")
	args := append([]string{"-addr", "127.0.0.1:0", "-pprof", "127.0.0.1:0", "-addrfile", file, "-mutexprofilefraction", "5"}, extra...)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, "router2", newRouter, args, stdout, io.Discard, options...) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(file)
		if err == nil {
			var a Addrs
			if err := json.Unmarshal(data, &a); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			return a, done
		}
		select {
		case err := <-done:
			t.Fatalf("the server ended before listening: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no -addrfile after 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func wait(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop within 30 s")
	}
	return nil
}

// TestServeAndSignals serves the API and pprof, and shuts down cleanly on
// each signal (sent to this process, whose server catches it).
func TestServeAndSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		var stdout syncBuffer
		a, done := start(t, context.Background(), &stdout)
		if a.Addr == a.PProf || !strings.HasPrefix(a.Addr, "127.0.0.1:") {
			t.Errorf("addresses %+v: want two on 127.0.0.1", a)
		}
		if code, body := get(t, "http://"+a.Addr+"/users/42/repos/lab"); code != 200 || body != "GET /users/:id/repos/:repo id=42 repo=lab\n" {
			t.Errorf("GET /users/42/repos/lab: %d %q", code, body)
		}
		if code, _ := get(t, "http://"+a.Addr+"/nope"); code != 404 {
			t.Errorf("GET /nope: %d, want 404", code)
		}
		if code, _ := get(t, "http://"+a.Addr+"/debug/pprof/"); code != 404 {
			t.Errorf("pprof on the API's listener: %d, want 404", code)
		}
		if code, body := get(t, "http://"+a.PProf+"/debug/pprof/mutex?debug=1"); code != 200 || !strings.Contains(body, "mutex") {
			t.Errorf("GET /debug/pprof/mutex: %d %.100q", code, body)
		}
		if code, body := get(t, "http://"+a.PProf+"/debug/pprof/goroutine?debug=1"); code != 200 || !strings.Contains(body, "goroutine profile") {
			t.Errorf("GET /debug/pprof/goroutine: %d %.100q", code, body)
		}
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		if err := wait(t, done); err != nil {
			t.Errorf("%v: Run = %v, want a clean shutdown", sig, err)
		}
		if out := stdout.String(); !strings.Contains(out, "shut down cleanly ("+sig.String()) {
			t.Errorf("%v: output %q", sig, out)
		}
		if _, err := http.Get("http://" + a.Addr + "/healthz"); err == nil {
			t.Errorf("%v: the API still answers after the shutdown", sig)
		}
	}
}

// TestShutdownFinishesRequests starts a slow request (a 2-second CPU
// profile) and cancels the server: the request is answered in full.
func TestShutdownFinishesRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a, done := start(t, ctx, io.Discard)
	got := make(chan int, 1)
	go func() {
		resp, err := http.Get("http://" + a.PProf + "/debug/pprof/profile?seconds=2")
		if err != nil {
			got <- -1
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- len(body)
	}()
	// Cancel once the profile is under way, as the goroutine profile shows.
	for {
		if _, body := get(t, "http://"+a.PProf+"/debug/pprof/goroutine?debug=1"); strings.Contains(body, "net/http/pprof.Profile") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := wait(t, done); err != nil {
		t.Errorf("Run = %v, want a clean shutdown", err)
	}
	if n := <-got; n <= 0 {
		t.Errorf("the CPU profile in flight got %d bytes: the shutdown cut it", n)
	}
}

// keepAlive sends one request on a connection of its own and reads the
// answer, leaving the connection open and idle for the server.
func keepAlive(addr string) (net.Conn, *bufio.Reader, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReader(c)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: lab\r\n\r\n"); err != nil {
		c.Close()
		return nil, nil, err
	}
	resp, err := http.ReadResponse(r, nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err == nil && resp.Close {
		err = errors.New("the server closed the connection after its answer: not kept alive")
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, r, nil
}

// closedByServer waits, at most a generous deadline, for the server to
// close c: the next read ends with io.EOF and no bytes.
func closedByServer(c net.Conn, r *bufio.Reader) error {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	rest, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("still open after 30 s: %w", err)
	}
	if len(rest) > 0 {
		return fmt.Errorf("%d bytes before the close: %.60q", len(rest), rest)
	}
	return nil
}

// TestIdleConnectionsAreClosed keeps 200 connections idle after a request
// each, on a server with a short idle timeout: the server closes every one
// (router4's setting, there 90 s: 8,000 idle connections took it from 8.7
// to 165 MB). A client that sends half its headers and stops is cut after
// the header timeout.
func TestIdleConnectionsAreClosed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	options := []Option{IdleTimeout(200 * time.Millisecond), ReadHeaderTimeout(300 * time.Millisecond)}
	a, done := startWith(t, ctx, io.Discard, options)
	defer func() {
		cancel()
		if err := wait(t, done); err != nil {
			t.Errorf("Run = %v, want a clean shutdown", err)
		}
	}()

	const idle = 200
	errs := make(chan error, idle)
	for i := range idle {
		go func() {
			c, r, err := keepAlive(a.Addr)
			if err == nil {
				defer c.Close()
				err = closedByServer(c, r)
			}
			if err != nil {
				err = fmt.Errorf("connection %d: %w", i, err)
			}
			errs <- err
		}()
	}
	for range idle {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}

	slow, err := net.Dial("tcp", a.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "GET /healthz HTTP/1.1\r\nHost: la"); err != nil {
		t.Fatal(err)
	}
	slow.SetReadDeadline(time.Now().Add(30 * time.Second))
	if answer, err := io.ReadAll(slow); err != nil {
		t.Errorf("a client stuck in its headers: still connected after 30 s: %v", err)
	} else if len(answer) > 0 && !strings.HasPrefix(string(answer), "HTTP/1.1 408") {
		t.Errorf("a client stuck in its headers got %.80q, want the connection closed", answer)
	}
}

// TestIdleConnectionsStayByDefault: a stage without options (router1 to
// router3, as measured) keeps an idle connection open.
func TestIdleConnectionsStayByDefault(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a, done := start(t, ctx, io.Discard)
	defer func() {
		cancel()
		if err := wait(t, done); err != nil {
			t.Errorf("Run = %v, want a clean shutdown", err)
		}
	}()
	c, r, err := keepAlive(a.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := r.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("an idle connection after 1 s: %v, want it still open (a read deadline)", err)
	}
}
