// Package pgtest starts a real PostgreSQL server for a test or a
// benchmark: Debian's PostgreSQL 15 (package postgresql-15, which
// tools/bazel installs for tests), initialized in a temporary directory,
// listening on a free 127.0.0.1 port and no Unix socket, as nobody when run
// as root, and stopped at the test's end.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"havlak-lab/internal/localport"
)

// pgBin is where Debian's PostgreSQL 15 (package postgresql-15, which
// tools/bazel installs for tests) keeps its server programs.
var pgBin = envOr("HAVLAK_LAB_POSTGRES_BIN", "/usr/lib/postgresql/15/bin")

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// Bin is the directory of the PostgreSQL programs the tests run: the
// server's, and the client programs of its version (pg_dump, pg_restore).
func Bin() string { return pgBin }

// A Server is a running PostgreSQL server.
type Server struct {
	Port int
	// DB is a connection to its "postgres" database, as the superuser.
	DB *sql.DB

	base, data, version string
	server              *exec.Cmd
	exited              chan error
}

// DSN is the DSN of database on the server, as the superuser.
func (p *Server) DSN(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.Port, database)
}

// CreateDatabase makes a database of that name and returns its DSN.
func (p *Server) CreateDatabase(tb testing.TB, name string) string {
	tb.Helper()
	if _, err := p.DB.Exec("CREATE DATABASE " + name); err != nil {
		tb.Fatal(err)
	}
	return p.DSN(name)
}

// Start initializes a cluster in a temporary directory and starts
// its server (Launch); t's cleanup stops it and removes the directory.
func Start(t testing.TB) *Server {
	t.Helper()
	p, err := Launch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("%s", p)
	return p
}

// Launch initializes a cluster in a new directory under /tmp and starts
// its server, for a caller that outlives one test (a TestMain); Stop stops
// it and removes the directory. initdb and the server refuse to run as
// root: then they run as nobody, in a directory nobody owns.
func Launch() (p *Server, err error) {
	for _, prog := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(pgBin, prog)); err != nil {
			return nil, fmt.Errorf("no PostgreSQL server: %v. Debian's PostgreSQL 15 is needed: `tools/bazel test` installs it "+
				"(package postgresql-15), or apt-get install postgresql-15; HAVLAK_LAB_POSTGRES_BIN names another bin directory", err)
		}
	}
	// Not the test's own temporary directory: it may sit under root's
	// home, which nobody cannot enter.
	base, err := os.MkdirTemp("/tmp", "havlak-lab-postgres-")
	if err != nil {
		return nil, err
	}
	p = &Server{base: base}
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		nobody, err := user.Lookup("nobody")
		if err != nil {
			return nil, fmt.Errorf("running as root, the server needs an unprivileged user: %v", err)
		}
		uid, _ := strconv.Atoi(nobody.Uid)
		gid, _ := strconv.Atoi(nobody.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(base, uid, gid); err != nil {
			return nil, err
		}
	}
	p.data = filepath.Join(base, "data")
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(pgBin, name), args...)
		cmd.Dir = base
		cmd.Env = append(os.Environ(), "LC_ALL=C", "HOME="+base)
		// The server must not outlive the test, even when it is killed.
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	initdb := command("initdb", "--pgdata", p.data, "--username", "postgres", "--auth", "trust",
		"--encoding", "UTF8", "--locale", "C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if p.Port, err = localport.Free(); err != nil {
		return nil, err
	}
	logPath := filepath.Join(base, "postgres.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	server := command("postgres", "-D", p.data, "-p", strconv.Itoa(p.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off")
	server.Stdout, server.Stderr = logFile, logFile
	if err := server.Start(); err != nil {
		return nil, err
	}
	p.server, p.exited = server, make(chan error, 1)
	go func() { p.exited <- server.Wait() }()
	if p.DB, err = sql.Open("pgx", p.DSN("postgres")); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = p.DB.PingContext(ctx)
		cancel()
		if err == nil {
			break
		}
		select {
		case werr := <-p.exited:
			p.exited <- werr
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("the PostgreSQL server exited: %v\n%s", werr, log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("the PostgreSQL server is not ready after 60 s: %v\n%s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := p.DB.QueryRow("SHOW server_version").Scan(&p.version); err == nil {
		p.version = strings.Fields(p.version)[0]
	}
	return p, nil
}

func (p *Server) String() string {
	return fmt.Sprintf("PostgreSQL %s on 127.0.0.1:%d, data in %s", p.version, p.Port, p.data)
}

// Stop stops the server and removes its directory.
func (p *Server) Stop() error {
	var err error
	if p.DB != nil {
		p.DB.Close()
	}
	if p.server != nil {
		// SIGINT: PostgreSQL's fast shutdown.
		p.server.Process.Signal(syscall.SIGINT)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			p.server.Process.Kill()
			<-p.exited
			err = fmt.Errorf("the PostgreSQL server did not stop on SIGINT in 30 s; killed")
		}
	}
	os.RemoveAll(p.base)
	return err
}
