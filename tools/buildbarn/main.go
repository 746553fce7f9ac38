// Command buildbarn builds, starts and stops havlak-lab's one-machine
// Buildbarn cluster: bb_storage, bb_scheduler, bb_worker and bb_runner at
// the versions module/go.mod pins, for --config=buildbarn (.bazelrc).
//
//	buildbarn build                 build the binaries once; print their directory
//	buildbarn start [flags]         start the cluster in the background; print its endpoint
//	buildbarn stop [-state DIR]     stop it: the worker first
//	buildbarn run [flags]           run it in the foreground until SIGINT/SIGTERM or -timeout
//	buildbarn certs -dir DIR        write a CA, a server certificate for 127.0.0.1, and client certificates
//
// The binaries are built with the go command (GO; under `bazel run` the
// workspace's Go SDK; else go on PATH) from
// the Go module proxy the go command is configured with, vendored, with
// patches/ applied (the changes upstream's Bazel build makes to its
// dependencies), and cached in the lab's cache directory (internal/labcache:
// $HAVLAK_LAB_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/havlak-lab) under
// a name derived from module/ and patches/, so a new pin builds next to the
// old one.
//
// start and run take:
//
//	-state DIR       storage, build directories and logs (default: the cache's "cluster")
//	-port N          the port Bazel talks to on 127.0.0.1 (default 8980; 0: a free one)
//	-tls-cert FILE   serve grpcs:// with this certificate (PEM) ...
//	-tls-key FILE    ... and key; without them, grpc://
//	-client-ca FILE  with -tls-cert: require a client certificate from this CA
//	                 (PEM); one for trusted.client.havlak-lab.invalid may write
//	                 the action cache, any other may read it and execute; the
//	                 workers write the results of what they ran (a CA of the
//	                 cluster's own, made at start, guards its internal listeners)
//	-timeout D       stop by itself after D (default 0: never)
//
// and every command takes -src DIR, the directory of this file with
// module/, patches/ and config/ (default: tools/buildbarn of the workspace
// that `bazel run` or the working directory is in).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"havlak-lab/internal/gosdk"
	"havlak-lab/internal/labcache"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ error }

func main() {
	err := run(os.Args[1:])
	if err == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "buildbarn: %v\n", err)
	var usage usageError
	if errors.As(err, &usage) {
		os.Exit(2)
	}
	os.Exit(1)
}

func run(args []string) error {
	if len(args) == 0 {
		return usageError{errors.New("usage: buildbarn build|start|stop|run|certs [flags]")}
	}
	command, args := args[0], args[1:]
	fs := flag.NewFlagSet("buildbarn "+command, flag.ContinueOnError)
	src := fs.String("src", "", "the tools/buildbarn directory (module/, patches/, config/)")
	var opts clusterOptions
	var certDir string
	switch command {
	case "build":
	case "start", "run":
		fs.StringVar(&opts.state, "state", "", "the cluster's state directory")
		fs.IntVar(&opts.port, "port", 8980, "the port Bazel talks to (0: a free one)")
		fs.StringVar(&opts.tlsCert, "tls-cert", "", "serve TLS with this certificate (PEM)")
		fs.StringVar(&opts.tlsKey, "tls-key", "", "and this private key (PEM)")
		fs.StringVar(&opts.clientCA, "client-ca", "", "require client certificates from this CA (PEM; needs -tls-cert)")
		fs.DurationVar(&opts.timeout, "timeout", 0, "stop after this long (0: never)")
	case "stop":
		fs.StringVar(&opts.state, "state", "", "the cluster's state directory")
	case "certs":
		fs.StringVar(&certDir, "dir", "", "where to write ca.pem, server.pem, trusted.pem, untrusted.pem and their .key files")
	default:
		return usageError{fmt.Errorf("unknown command %q (build, start, stop, run, certs)", command)}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments: %q", fs.Args())}
	}
	if (opts.tlsCert == "") != (opts.tlsKey == "") {
		return usageError{errors.New("-tls-cert and -tls-key go together")}
	}
	if opts.clientCA != "" && opts.tlsCert == "" {
		return usageError{errors.New("-client-ca needs -tls-cert and -tls-key: client certificates are a TLS matter")}
	}

	if command == "certs" {
		if certDir == "" {
			return usageError{errors.New("certs needs -dir")}
		}
		return writeCerts(certDir, time.Now())
	}
	cache, err := labcache.Dir("")
	if err != nil {
		return err
	}
	if opts.state == "" {
		opts.state = filepath.Join(cache, "cluster")
	}
	if command == "stop" {
		return stopCluster(opts.state, os.Stdout)
	}
	if *src == "" {
		if *src, err = defaultSrc(); err != nil {
			return err
		}
	}
	// Absolute: the programs and patch(1) run in other directories.
	if *src, err = filepath.Abs(*src); err != nil {
		return err
	}
	b := &builder{goCmd: gosdk.Command(), src: *src, cache: cache, log: os.Stderr}
	bin, err := b.ensure()
	if err != nil {
		return err
	}
	switch command {
	case "build":
		fmt.Println(bin)
		return nil
	case "start":
		return startCluster(*src, opts, os.Stdout)
	}
	return runCluster(bin, *src, opts, os.Stderr)
}

// defaultSrc finds tools/buildbarn: in the workspace `bazel run` started
// in, or in the workspace around the working directory.
func defaultSrc() (string, error) {
	if ws := os.Getenv("BUILD_WORKSPACE_DIRECTORY"); ws != "" {
		return filepath.Join(ws, "tools", "buildbarn"), nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "WORKSPACE")); err == nil {
			return filepath.Join(dir, "tools", "buildbarn"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", usageError{errors.New("not in a havlak-lab workspace: give -src DIR (tools/buildbarn)")}
		}
		dir = parent
	}
}
