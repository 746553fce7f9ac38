// Command dashboard serves the lab's dashboard (tools/dashboard/web,
// docs/dashboard.md): a web app over the results history, with a page
// per series, a comparison of two commits and the alerts.
//
//	dashboard [--history DSN] [--archive DIR] [--repo DIR] [--listen ADDR] [--tls-cert FILE --tls-key FILE]
//	          [--read-requires-sign-in] [--session-ttl D]
//	          [--trust-proxy-header NAME --trusted-proxy CIDR ...]
//	dashboard users [--history DSN] add NAME | list | remove NAME
//
// --history is the history's DSN (an SQLite file, PATH or sqlite:PATH, or
// postgres://...); by default the one the nightly job writes:
// $HAVLAK_LAB_HISTORY, else history.sqlite in $HAVLAK_LAB_HISTORY_DIR,
// else in the lab's cache directory's history (internal/labcache). It
// --archive is the directory of the nightly job's archive (its
// --history-dir, which holds nights/), whose reports and profiles the
// dashboard serves; by default the nightly job's: history.LocalDir.
// --repo is the lab's checkout, which the attribution pages read with
// git (never write) for the diff between two results' commits and their
// source; without it they show lines by file:line only. It
// listens on 127.0.0.1 on a free port unless --listen says otherwise,
// prints its URL, and serves until interrupted.
//
// Writes (triage) need a signed-in user (docs/dashboard.md): `dashboard
// users add NAME` makes a user and prints their token, once; the history
// keeps its hash.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/dashboard/web"
	"havlak-lab/tools/history"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	cli.Exit(err)
}

// historyFlag is --history, which both the server and users take.
func historyFlag(fs *flag.FlagSet) *string {
	return fs.String("history", "", "the history's `DSN`: an SQLite file (PATH or sqlite:PATH) or postgres://... (default: the nightly job's, $HAVLAK_LAB_HISTORY, else history.sqlite in $HAVLAK_LAB_HISTORY_DIR or the lab's cache's history)")
}

// openHistory opens the history of --history, or the nightly job's.
func openHistory(ctx context.Context, dsn string) (*history.DB, error) {
	if dsn == "" {
		var err error
		if dsn, err = nightlyHistory(); err != nil {
			return nil, err
		}
	} else {
		dsn = userDSN(dsn)
	}
	return history.Open(ctx, dsn)
}

// cidrs is a repeatable flag of address prefixes (CIDR, or one address).
type cidrs []netip.Prefix

func (c *cidrs) String() string { return fmt.Sprint(*c) }

func (c *cidrs) Set(s string) error {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		addr, aerr := netip.ParseAddr(s)
		if aerr != nil {
			return fmt.Errorf("%q: want an address or CIDR (10.0.0.0/8): %v", s, err)
		}
		p = netip.PrefixFrom(addr, addr.BitLen())
	}
	*c = append(*c, p.Masked())
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "users" {
		return runUsers(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := historyFlag(fs)
	archive := fs.String("archive", "", "the `DIR` of the nightly job's archive (its --history-dir, holding nights/), whose reports and profiles the dashboard serves (default: the nightly job's, $HAVLAK_LAB_HISTORY_DIR or the lab's cache's history)")
	listen := fs.String("listen", "127.0.0.1:0", "the `ADDRESS` to listen on (port 0: a free one)")
	cert := fs.String("tls-cert", "", "serve HTTPS with this certificate (PEM `FILE`; with --tls-key)")
	key := fs.String("tls-key", "", "the certificate's private key (PEM `FILE`)")
	var opts web.Options
	fs.StringVar(&opts.Repo, "repo", "", "the lab's checkout (`DIR`), read with git for an attribution's diff and source; never written")
	fs.BoolVar(&opts.ReadRequiresSignIn, "read-requires-sign-in", false, "every page needs a signed-in user, not only the writes")
	fs.DurationVar(&opts.SessionTTL, "session-ttl", 12*time.Hour, "how long a sign-in lasts")
	fs.StringVar(&opts.ProxyHeader, "trust-proxy-header", "", "the request header (`NAME`) in which an authenticating reverse proxy names its user, believed only from --trusted-proxy")
	fs.StringVar(&opts.Links.Commit, "commit-url", "", "link every commit to the forge: a `URL` holding {commit}, such as https://host/org/repo/commit/{commit}")
	fs.StringVar(&opts.Links.Range, "range-url", "", "link every range of commits to the forge: a `URL` holding {base} and {change}, such as https://host/org/repo/compare/{base}...{change}")
	fs.StringVar(&opts.Links.Issue, "issue-url", "", "offer to file an issue of an alert: a `URL` holding {title}, such as https://host/org/repo/issues/new?title={title}")
	var proxies cidrs
	fs.Var(&proxies, "trusted-proxy", "the address or `CIDR` of the authenticating proxy (repeatable)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	opts.TrustedProxies = proxies
	if err := checkLinks(opts.Links); err != nil {
		return err
	}
	if *archive == "" {
		dir, err := history.LocalDir()
		if err != nil {
			return err
		}
		*archive = dir
	}
	opts.Archive = absolute(cli.UserPath(*archive))
	if opts.Repo != "" {
		opts.Repo = absolute(cli.UserPath(opts.Repo))
		if _, err := gitwork.Repo(opts.Repo).Output("rev-parse", "--git-dir"); err != nil {
			return cli.Usagef("--repo %s: want the lab's git checkout: %v", opts.Repo, err)
		}
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("no arguments, only flags (or: dashboard users ...): %q", fs.Args())
	case (*cert == "") != (*key == ""):
		return cli.Usagef("--tls-cert and --tls-key go together")
	case (opts.ProxyHeader == "") != (len(proxies) == 0):
		return cli.Usagef("--trust-proxy-header and --trusted-proxy go together: the header is believed only from the proxy")
	case opts.SessionTTL <= 0:
		return cli.Usagef("--session-ttl %s: want a positive duration", opts.SessionTTL)
	}
	if opts.ProxyHeader != "" {
		opts.ProxyHeader = http.CanonicalHeaderKey(opts.ProxyHeader)
	}
	db, err := openHistory(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	site, err := web.New(db, opts)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return cli.Usagef("--listen %s: %v", *listen, err)
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if *cert != "" {
		scheme = "https"
	} else if addr, ok := l.Addr().(*net.TCPAddr); ok && !addr.IP.IsLoopback() && len(proxies) == 0 {
		fmt.Fprintf(stderr, "dashboard: serving plain HTTP on %s, beyond this machine: sign-in tokens and session cookies cross the network in the clear (--tls-cert, --tls-key)\n", l.Addr())
	}
	fmt.Fprintf(stdout, "dashboard of %s: %s://%s/\n", db.Name(), scheme, l.Addr())
	done := make(chan error, 1)
	go func() {
		if *cert != "" {
			done <- srv.ServeTLS(l, cli.UserPath(*cert), cli.UserPath(*key))
			return
		}
		done <- srv.Serve(l)
	}()
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

// checkLinks checks the link templates of --commit-url, --range-url and
// --issue-url (web.CheckLinkTemplate), naming the flag.
func checkLinks(l web.Links) error {
	for _, t := range []struct{ flag, kind, value string }{
		{"--commit-url", "commit", l.Commit}, {"--range-url", "range", l.Range}, {"--issue-url", "issue", l.Issue},
	} {
		if err := web.CheckLinkTemplate(t.kind, t.value); err != nil {
			return cli.Usagef("%s %v", t.flag, err)
		}
	}
	return nil
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

// absolute is path made absolute, as it is if that fails: the archive's
// pages name it.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
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
