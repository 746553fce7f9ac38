package perfrun

// The server of a server benchmark, started and stopped by the runner.
//
// The program's contract: it takes -addr HOST:PORT (the API), -pprof
// HOST:PORT (net/http/pprof), -addrfile FILE (where it writes
// {"addr": …, "pprof": …} as JSON once both listen), -blockprofilerate N
// and -mutexprofilefraction N, and on SIGTERM it shuts down and exits with
// status 0. If its pprof listener serves its runtime/metrics figures as
// JSON at /debug/runtime-metrics (internal/runtimemetrics.Figures), the
// runner gates its allocations per request and shows its mutex wait per
// CPU second (servermetrics.go); from the mutex profile its pprof
// listener serves (net/http/pprof), it shows its own lock contentions per
// request (servercontention.go). Its own
// instructions per request are counted under Cachegrind
// (serverinstructions.go), which needs its symbols (no -s when linking).
// The runner gives it 127.0.0.1:0 for both, so the ports are
// free ones, and refuses any address that is not a loopback one: no load
// ever leaves the machine.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"havlak-lab/tools/result"
)

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
	l := b.Server
	return b.startServerCommand(func(flags []string) *exec.Cmd {
		flags = append(flags, fmt.Sprintf("-blockprofilerate=%d", l.BlockProfileRate),
			fmt.Sprintf("-mutexprofilefraction=%d", l.MutexProfileFraction))
		return exec.Command(b.binary, append(flags, args...)...)
	}, outputPath, stdout)
}

// startServerCommand starts the command that command makes of the
// contract's address flags, as startServer does.
func (b *bench) startServerCommand(command func(addrFlags []string) *exec.Cmd, outputPath string, stdout io.Writer) (*server, error) {
	tmp, err := os.MkdirTemp("", "server-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	addrFile := filepath.Join(tmp, "addrs.json")
	l := b.Server
	cmd := command([]string{"-addr", "127.0.0.1:0", "-pprof", "127.0.0.1:0", "-addrfile", addrFile})
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
