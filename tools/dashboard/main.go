// Command dashboard serves the lab's dashboard (tools/dashboard/web,
// docs/dashboard.md): a web app over the results history, with a page
// per series, a comparison of two commits and the alerts.
//
//	dashboard [--history DSN] [--listen ADDR]
//
// --history is the history's DSN (an SQLite file, PATH or sqlite:PATH, or
// postgres://...); by default the one the nightly job writes:
// $HAVLAK_LAB_HISTORY, else history.sqlite in $HAVLAK_LAB_HISTORY_DIR,
// else in the lab's cache directory's history (internal/labcache). It
// listens on 127.0.0.1 on a free port unless --listen says otherwise,
// prints its URL, and serves until interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/dashboard/web"
	"havlak-lab/tools/history"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	cli.Exit(err)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("history", "", "the history's `DSN`: an SQLite file (PATH or sqlite:PATH) or postgres://... (default: the nightly job's, $HAVLAK_LAB_HISTORY, else history.sqlite in $HAVLAK_LAB_HISTORY_DIR or the lab's cache's history)")
	listen := fs.String("listen", "127.0.0.1:0", "the `ADDRESS` to listen on (port 0: a free one)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("no arguments, only flags: %q", fs.Args())
	}
	if *dsn == "" {
		var err error
		if *dsn, err = nightlyHistory(); err != nil {
			return err
		}
	} else {
		*dsn = userDSN(*dsn)
	}
	db, err := history.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	site, err := web.New(db)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return cli.Usagef("--listen %s: %v", *listen, err)
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "dashboard of %s: http://%s/\n", db.Name(), l.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// nightlyHistory is the DSN of the lab's local history, which the
// nightly job keeps by default (history.LocalDSN).
func nightlyHistory() (string, error) {
	if dsn := os.Getenv(history.DSNEnv); dsn != "" {
		return userDSN(dsn), nil
	}
	dir, err := history.LocalDir()
	if err != nil {
		return "", err
	}
	return history.DirDSN(cli.UserPath(dir)), nil
}

// userDSN resolves an SQLite file's path as the user typed it (bazel run
// starts the program elsewhere).
func userDSN(dsn string) string {
	if strings.Contains(dsn, "://") {
		return dsn
	}
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		return "sqlite:" + cli.UserPath(path)
	}
	return cli.UserPath(dsn)
}
