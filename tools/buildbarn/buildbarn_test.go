package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestParseTools(t *testing.T) {
	goMod := `module m // tool x

go 1.24

tool example.com/single // comment

tool (
	// a comment
	example.com/a/cmd/one
	example.com/b/cmd/two // why
)

require example.com/a v1.0.0
`
	got := parseTools([]byte(goMod))
	want := []string{"example.com/single", "example.com/a/cmd/one", "example.com/b/cmd/two"}
	if !slices.Equal(got, want) {
		t.Errorf("parseTools = %q, want %q", got, want)
	}
}

// The module's go.mod names the four programs a cluster runs and the
// module's own probes.
func TestModuleBuildsEveryProgram(t *testing.T) {
	goMod, err := os.ReadFile("module/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range parseTools(goMod) {
		names = append(names, filepath.Base(tool))
	}
	sort.Strings(names)
	want := append(slices.Clone(programs), probes...)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("module/go.mod builds %q, want %q", names, want)
	}
}

func TestGoEnv(t *testing.T) {
	env := goEnv([]string{
		"HOME=/home/u",
		"GOFLAGS=-mod=readonly",
		"GONOSUMDB=example.com/private",
		"GOTOOLCHAIN=auto",
		"GOPROXY=keep-me",
	}, "-mod=vendor")
	for _, want := range []string{
		"HOME=/home/u",
		"GOPROXY=keep-me",
		"GOFLAGS=-mod=vendor",
		"GOTOOLCHAIN=local",
		"GONOSUMDB=example.com/private,github.com/buildbarn",
	} {
		if !slices.Contains(env, want) {
			t.Errorf("goEnv lacks %s: %q", want, env)
		}
	}
	for _, kv := range env {
		if kv == "GOFLAGS=-mod=readonly" || kv == "GOTOOLCHAIN=auto" {
			t.Errorf("goEnv kept %s", kv)
		}
	}
}

// The cache key follows what the binaries are built from.
func TestKey(t *testing.T) {
	src := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("module/go.mod", "module m\n")
	write("module/go.sum", "")
	write("patches/a.patch", "one")
	write("config/storage.jsonnet", "{}")
	b := &builder{src: src}
	key := func() string {
		t.Helper()
		k, err := b.key()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key()
	if again := key(); again != first {
		t.Errorf("key changed from %s to %s with nothing changed", first, again)
	}
	write("config/storage.jsonnet", "{a: 1}")
	if k := key(); k != first {
		t.Errorf("a configuration change changed the key (configurations are read at start, not built in)")
	}
	write("patches/a.patch", "two")
	second := key()
	if second == first {
		t.Errorf("a patch change kept the key %s", first)
	}
	write("patches/b.patch", "")
	if k := key(); k == second {
		t.Errorf("a new patch kept the key %s", second)
	}
	write("module/go.sum", "x v1 h1:...\n")
	if k := key(); k == second {
		t.Errorf("a go.sum change kept the key")
	}
}

// Every variable the configurations read is one the cluster sets, and
// every one it sets is read.
func TestConfigVariables(t *testing.T) {
	files, err := filepath.Glob("config/*sonnet")
	if err != nil || len(files) != 5 {
		t.Fatalf("config/*sonnet: %q, %v; want 5 files", files, err)
	}
	used := map[string]bool{}
	extVar := regexp.MustCompile(`std\.extVar\('([A-Z_]+)'\)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range extVar.FindAllStringSubmatch(string(data), -1) {
			used[m[1]] = true
		}
	}
	set := map[string]bool{}
	for _, kv := range clusterEnv("/s", addresses{}, tlsSetup{}, 2) {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
		if !used[name] {
			t.Errorf("the cluster sets %s, which no configuration reads", name)
		}
	}
	for name := range used {
		if !set[name] {
			t.Errorf("a configuration reads %s, which the cluster does not set", name)
		}
	}
	// Every program has its configuration.
	for _, p := range programs {
		name := "config/" + strings.TrimPrefix(p, "bb_") + ".jsonnet"
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s: no configuration: %v", p, err)
		}
	}
}

// The certificates serve TLS on 127.0.0.1 to a client that trusts only the
// CA, and to no client that does not.
func TestCerts(t *testing.T) {
	dir := t.TempDir()
	if err := writeCerts(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key"))
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	dial := func(roots *x509.CertPool) error {
		c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{RootCAs: roots})
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(pool); err != nil {
		t.Errorf("a client trusting ca.pem: %v", err)
	}
	if err := dial(x509.NewCertPool()); err == nil {
		t.Error("a client trusting no CA accepted the certificate")
	}
	if info, err := os.Stat(filepath.Join(dir, "server.key")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("server.key: %v, %v; want mode 0600", info, err)
	}
}

// stopAll stops the worker first and the storage last, each with SIGTERM.
func TestStopOrder(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "stopped")
	procs := map[string]*process{}
	for _, name := range programs {
		// A program that appends its name to record on SIGTERM.
		cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf(
			`trap 'echo %s >>%s; exit 0' TERM; touch %s; while :; do sleep 0.1; done`,
			name, record, filepath.Join(dir, name+".up")))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &process{name: name, cmd: cmd, done: make(chan struct{})}
		go func() { p.err = cmd.Wait(); close(p.done) }()
		procs[name] = p
	}
	for _, name := range programs {
		for {
			if _, err := os.Stat(filepath.Join(dir, name+".up")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var log strings.Builder
	stopAll(procs, &log)
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(data))
	if !slices.Equal(got, stopOrder) {
		t.Errorf("stopped in the order %q, want %q (log: %s)", got, stopOrder, log.String())
	}
	if stopOrder[0] != "bb_worker" {
		t.Errorf("stopOrder starts with %s, want the worker", stopOrder[0])
	}
}

func TestAllocate(t *testing.T) {
	short := t.TempDir()
	a, err := allocate(short, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, addr := range []string{a.frontend, a.storageInternal, a.schedulerClient, a.schedulerWorker, a.schedulerAdmin} {
		host, _, err := net.SplitHostPort(addr)
		if err != nil || host != "127.0.0.1" {
			t.Errorf("address %q: want 127.0.0.1:PORT (%v)", addr, err)
		}
		if seen[addr] {
			t.Errorf("address %s given twice", addr)
		}
		seen[addr] = true
	}
	if a, err := allocate(short, 8980); err != nil || a.frontend != "127.0.0.1:8980" {
		t.Errorf("allocate(-port 8980): frontend %q, %v", a.frontend, err)
	}
	long := filepath.Join(short, strings.Repeat("d", 120))
	a, err = allocate(long, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(a.runnerSocket))
	if len(a.runnerSocket) >= 100 {
		t.Errorf("runner socket %s: too long for a unix socket", a.runnerSocket)
	}
	if again, _ := allocate(long, 0); again.runnerSocket != a.runnerSocket {
		t.Errorf("runner socket moved from %s to %s: stop could not find it", a.runnerSocket, again.runnerSocket)
	}
}
