package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"havlak-lab/internal/localport"
)

// clusterOptions are the flags of start and run.
type clusterOptions struct {
	state    string
	port     int
	tlsCert  string
	tlsKey   string
	clientCA string // with tlsCert: require client certificates from this CA
	timeout  time.Duration
}

// Files in the state directory.
const (
	pidFile      = "run.pid"      // the pid of `buildbarn run`
	endpointFile = "endpoint"     // written once the cluster is ready: its endpoint
	adminFile    = "admin"        // the scheduler's web page
	internalDir  = "internal-tls" // the cluster's own CA and certificate (writeInternalCerts)
)

// stopOrder is the order the programs stop in: the worker first, while
// the scheduler can still take its goodbye (stopped after the scheduler,
// it waits for it until killed); storage last.
var stopOrder = []string{"bb_worker", "bb_runner", "bb_scheduler", "bb_storage"}

// addresses are the cluster's listeners, all on 127.0.0.1.
type addresses struct {
	frontend, storageInternal, schedulerClient, schedulerWorker, schedulerAdmin string
	runnerSocket                                                                string
}

// tlsSetup is what the programs need for TLS and authentication; all
// empty: plain text, no authentication.
type tlsSetup struct {
	cert, key string // the frontend's certificate and key (files)
	// clientCA is the PEM of the CA whose client certificates the
	// frontend requires; "": none required.
	clientCA string
	// With clientCA, the cluster's own connections are mutual TLS too:
	// internalCA (PEM) and the certificate both ends present (files).
	internalCA, internalCert, internalKey string
}

// clusterEnv is the environment the programs evaluate their Jsonnet
// configuration with (config/common.libsonnet lists the variables).
func clusterEnv(state string, a addresses, t tlsSetup, concurrency int) []string {
	return []string{
		"BB_STATE_DIR=" + state,
		"BB_FRONTEND_ADDRESS=" + a.frontend,
		"BB_FRONTEND_TLS_CERT=" + t.cert,
		"BB_FRONTEND_TLS_KEY=" + t.key,
		"BB_CLIENT_CA=" + t.clientCA,
		"BB_ACTION_CACHE_WRITER=" + trustedClient,
		"BB_INTERNAL_CA=" + t.internalCA,
		"BB_INTERNAL_CERT=" + t.internalCert,
		"BB_INTERNAL_KEY=" + t.internalKey,
		"BB_STORAGE_INTERNAL_ADDRESS=" + a.storageInternal,
		"BB_SCHEDULER_CLIENT_ADDRESS=" + a.schedulerClient,
		"BB_SCHEDULER_WORKER_ADDRESS=" + a.schedulerWorker,
		"BB_SCHEDULER_ADMIN_ADDRESS=" + a.schedulerAdmin,
		"BB_RUNNER_SOCKET=" + a.runnerSocket,
		"BB_CONCURRENCY=" + strconv.Itoa(concurrency),
	}
}

// allocate picks the listeners: the frontend on port (0: a free one), the
// rest on free ports, the runner's socket in the state directory unless
// that path is too long for a unix socket.
func allocate(state string, port int) (addresses, error) {
	var a addresses
	ports := make([]int, 5)
	for i := range ports {
		p, err := localport.Free()
		if err != nil {
			return a, err
		}
		ports[i] = p
	}
	if port == 0 {
		port = ports[4]
	}
	hostPort := func(p int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p)) }
	a.frontend = hostPort(port)
	a.storageInternal = hostPort(ports[0])
	a.schedulerClient = hostPort(ports[1])
	a.schedulerWorker = hostPort(ports[2])
	a.schedulerAdmin = hostPort(ports[3])
	a.runnerSocket = filepath.Join(state, "runner.sock")
	// sun_path holds 108 bytes; test directories are longer.
	if len(a.runnerSocket) >= 100 {
		dir := shortSocketDir(state)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return a, err
		}
		a.runnerSocket = filepath.Join(dir, "runner.sock")
	}
	return a, nil
}

// shortSocketDir is where the runner's socket goes when the state
// directory's path is too long for it: a directory in /tmp named after
// the state directory, so that stop can remove it too.
func shortSocketDir(state string) string {
	sum := sha256.Sum256([]byte(state))
	return "/tmp/bb-runner-" + hex.EncodeToString(sum[:6])
}

// process is one running program.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when it exited
	err  error         // its exit status, once done
}

// runCluster runs the four programs until a signal, the timeout or one of
// them exits; then stops them, the worker first.
func runCluster(bin, src string, opts clusterOptions, log io.Writer) error {
	state, err := filepath.Abs(opts.state)
	if err != nil {
		return err
	}
	if err := prepareState(state); err != nil {
		return err
	}
	a, err := allocate(state, opts.port)
	if err != nil {
		return err
	}
	os.Remove(a.runnerSocket)
	if dir := filepath.Dir(a.runnerSocket); dir != state {
		defer os.RemoveAll(dir)
	}
	t, err := setUpTLS(state, opts)
	if err != nil {
		return err
	}
	env := append(os.Environ(), clusterEnv(state, a, t, runtime.NumCPU())...)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	var timeout <-chan time.Time
	if opts.timeout > 0 {
		timeout = time.After(opts.timeout)
	}

	procs := map[string]*process{}
	defer stopAll(procs, log)
	ready := readiness(a)
	for _, name := range programs {
		p, err := startProgram(bin, src, state, name, env)
		if err != nil {
			return err
		}
		procs[name] = p
		if err := awaitReady(state, p, ready[name], signals); err != nil {
			return err
		}
	}
	if err := announceReady(state, a, t, log); err != nil {
		return err
	}
	defer os.Remove(filepath.Join(state, endpointFile))

	exited := make(chan *process, len(procs))
	for _, p := range procs {
		go func(p *process) { <-p.done; exited <- p }(p)
	}
	select {
	case s := <-signals:
		fmt.Fprintf(log, "buildbarn: %v: stopping\n", s)
		return nil
	case <-timeout:
		fmt.Fprintf(log, "buildbarn: stopping after -timeout %s\n", opts.timeout)
		return nil
	case p := <-exited:
		return exitedError(state, p)
	}
}

// prepareState makes the state directory's directories, the build
// directories empty (storage persists), and removes the endpoint a
// previous run left, which would say the cluster is ready.
func prepareState(state string) error {
	for _, dir := range []string{"worker/build", "worker/cache", "worker/filepool"} {
		if err := removeAll(filepath.Join(state, dir)); err != nil {
			return err
		}
	}
	for _, dir := range []string{"storage/cas", "storage/ac", "worker/build", "worker/cache", "worker/filepool", "logs"} {
		if err := os.MkdirAll(filepath.Join(state, dir), 0o755); err != nil {
			return err
		}
	}
	os.Remove(filepath.Join(state, endpointFile))
	return nil
}

// readiness is, for each program, what shows it is ready.
func readiness(a addresses) map[string]func() error {
	return map[string]func() error{
		"bb_storage": func() error {
			return waitAll(dialTCP(a.frontend), dialTCP(a.storageInternal))
		},
		"bb_scheduler": func() error {
			return waitAll(dialTCP(a.schedulerClient), dialTCP(a.schedulerWorker), dialTCP(a.schedulerAdmin))
		},
		"bb_runner": func() error { return waitAll(dialUnix(a.runnerSocket)) },
		"bb_worker": func() error { return waitAll(workerRegistered(a.schedulerAdmin)) },
	}
}

// awaitReady polls ready until the program p is ready, for at most 2
// minutes; it gives up when p exits or a signal comes.
func awaitReady(state string, p *process, ready func() error, signals <-chan os.Signal) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return exitedError(state, p)
		case s := <-signals:
			return fmt.Errorf("%v while starting %s", s, p.name)
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after 2 minutes (%v); the end of %s:\n%s", p.name, err, logPath(state, p.name), logTail(state, p.name))
		}
	}
}

// exitedError reports that p exited, with the end of its log.
func exitedError(state string, p *process) error {
	return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.name, p.err, logPath(state, p.name), logTail(state, p.name))
}

// announceReady writes the files that tell start and its clients the
// cluster is ready, the endpoint last, and says where it is.
func announceReady(state string, a addresses, t tlsSetup, log io.Writer) error {
	scheme := "grpc"
	if t.cert != "" {
		scheme = "grpcs"
	}
	endpoint := scheme + "://" + a.frontend
	admin := "http://" + a.schedulerAdmin + "/"
	if err := os.WriteFile(filepath.Join(state, adminFile), []byte(admin+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(state, endpointFile), []byte(endpoint+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "buildbarn: ready at %s (scheduler: %s; logs: %s)\n", endpoint, admin, filepath.Join(state, "logs"))
	return nil
}

// setUpTLS reads the certificates opts names and, when clients must
// authenticate, makes the cluster's own in the state directory.
func setUpTLS(state string, opts clusterOptions) (tlsSetup, error) {
	var t tlsSetup
	if opts.tlsCert == "" {
		return t, nil
	}
	var err error
	if t.cert, err = filepath.Abs(opts.tlsCert); err != nil {
		return t, err
	}
	if t.key, err = filepath.Abs(opts.tlsKey); err != nil {
		return t, err
	}
	if opts.clientCA == "" {
		return t, nil
	}
	ca, err := os.ReadFile(opts.clientCA)
	if err != nil {
		return t, err
	}
	if _, err := parseCertificates(ca); err != nil {
		return t, fmt.Errorf("-client-ca %s: %v", opts.clientCA, err)
	}
	t.clientCA = string(ca)
	dir := filepath.Join(state, internalDir)
	if err := removeAll(dir); err != nil {
		return t, err
	}
	if err := writeInternalCerts(dir, time.Now()); err != nil {
		return t, err
	}
	internalCA, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		return t, err
	}
	t.internalCA = string(internalCA)
	t.internalCert = filepath.Join(dir, "cluster.pem")
	t.internalKey = filepath.Join(dir, "cluster.key")
	return t, nil
}

func logPath(state, name string) string { return filepath.Join(state, "logs", name+".log") }

func logTail(state, name string) string {
	data, _ := os.ReadFile(logPath(state, name))
	return tail(string(data), 20)
}

// startProgram starts bin/name with config/name.jsonnet, its output in
// the state's logs. It dies with this process (Pdeathsig), so a killed
// `buildbarn run` leaves nothing behind.
func startProgram(bin, src, state, name string, env []string) (*process, error) {
	logFile, err := os.Create(logPath(state, name))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	config := filepath.Join(src, "config", strings.TrimPrefix(name, "bb_")+".jsonnet")
	cmd := exec.Command(filepath.Join(bin, name), config)
	cmd.Env = env
	cmd.Dir = state
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Pdeathsig follows the thread that started the child.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// stopAll stops the running programs in stopOrder: SIGTERM, then SIGKILL
// after 30 seconds.
func stopAll(procs map[string]*process, log io.Writer) {
	for _, name := range stopOrder {
		p := procs[name]
		if p == nil {
			continue
		}
		select {
		case <-p.done:
			continue
		default:
		}
		start := time.Now()
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			fmt.Fprintf(log, "buildbarn: %s did not stop in 30 s: killed\n", name)
			p.cmd.Process.Kill()
			<-p.done
		}
		fmt.Fprintf(log, "buildbarn: stopped %s (%s)\n", name, time.Since(start).Round(100*time.Millisecond))
	}
}

// waitAll runs the checks, the first error wins.
func waitAll(checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func dialTCP(addr string) func() error {
	return func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}
}

func dialUnix(path string) func() error {
	return func() error {
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}
}

// workerRegistered reports whether the scheduler's page lists a worker
// queue for our instance name (the worker has asked for work).
func workerRegistered(admin string) func() error {
	return func() error {
		client := http.Client{Timeout: 2 * time.Second}
		resp, err := client.Get("http://" + admin + "/")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if !strings.Contains(string(body), "docker://native") {
			return errors.New("no worker on the scheduler's page yet")
		}
		return nil
	}
}

// startCluster runs `buildbarn run` in the background, in a session of
// its own, and waits until it is ready; it prints the endpoint.
func startCluster(src string, opts clusterOptions, out io.Writer) error {
	state, err := filepath.Abs(opts.state)
	if err != nil {
		return err
	}
	if pid, err := readPid(state); err == nil && alive(pid) {
		return fmt.Errorf("a cluster already runs with state %s (pid %d): buildbarn stop -state %s", state, pid, state)
	}
	if err := os.MkdirAll(filepath.Join(state, "logs"), 0o755); err != nil {
		return err
	}
	os.Remove(filepath.Join(state, endpointFile))
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"run", "-src", src, "-state", state, "-port", strconv.Itoa(opts.port),
		"-timeout", opts.timeout.String()}
	if opts.tlsCert != "" {
		cert, _ := filepath.Abs(opts.tlsCert)
		key, _ := filepath.Abs(opts.tlsKey)
		args = append(args, "-tls-cert", cert, "-tls-key", key)
	}
	if opts.clientCA != "" {
		ca, _ := filepath.Abs(opts.clientCA)
		args = append(args, "-client-ca", ca)
	}
	logName := filepath.Join(state, "logs", "run.log")
	logFile, err := os.Create(logName)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(self, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(state, pidFile), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(10 * time.Minute)
	for {
		if data, err := os.ReadFile(filepath.Join(state, endpointFile)); err == nil {
			fmt.Fprint(out, string(data))
			return nil
		}
		select {
		case err := <-exited:
			data, _ := os.ReadFile(logName)
			return fmt.Errorf("buildbarn run exited (%v):\n%s", err, tail(string(data), 30))
		case <-deadline:
			cmd.Process.Signal(syscall.SIGTERM)
			return fmt.Errorf("the cluster was not ready after 10 minutes (log: %s)", logName)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// stopCluster stops the cluster `start` started with this state
// directory, and waits until it has stopped.
func stopCluster(state string, out io.Writer) error {
	pid, err := readPid(state)
	if err != nil || !alive(pid) {
		fmt.Fprintf(out, "buildbarn: no cluster runs with state %s\n", state)
		os.Remove(filepath.Join(state, pidFile))
		os.RemoveAll(shortSocketDir(state))
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			return fmt.Errorf("buildbarn run (pid %d) did not stop in 3 minutes: killed", pid)
		}
		time.Sleep(200 * time.Millisecond)
	}
	os.Remove(filepath.Join(state, pidFile))
	// Left behind if `buildbarn run` was killed.
	os.RemoveAll(shortSocketDir(state))
	fmt.Fprintf(out, "buildbarn: stopped the cluster with state %s\n", state)
	return nil
}

func readPid(state string) (int, error) {
	data, err := os.ReadFile(filepath.Join(state, pidFile))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// alive reports whether pid is a running process (not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
