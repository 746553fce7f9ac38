// Command acwrite is what an untrusted client could do to a Buildbarn
// frontend without Bazel: write an action result of its own making
// straight into the action cache (ActionCache.UpdateActionResult), a
// poisoned result that later builds of the same action would be served.
// //tools/ci:buildbarn_tls_test runs it with each client certificate to
// show that the server refuses the write to all but the trusted one, and
// that the workers' results of executed actions do reach the cache.
//
//	acwrite -endpoint HOST:PORT -ca CA.pem [-cert C.pem -key C.key] [-instance main] -nonce S OP...
//
// The action is its own: `/bin/sh -c 'echo acwrite NONCE'` on the
// cluster's platform, with an empty input root, so each nonce names a
// fresh action. OP is, in order given:
//
//	write    upload the action to the CAS and a forged result of it to the action cache
//	read     read the action's result from the action cache
//	execute  have the cluster execute the action (a cached result is served as such)
//
// Each prints one line: the operation, the client's certificate name, and
// the server's answer (gRPC code and message) or what it returned. The
// exit status is 1 if any operation failed, 2 for a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"

	"havlak-lab/tools/buildbarn/module/acwrite/probe"
)

func main() {
	var o probe.Options
	flag.StringVar(&o.Endpoint, "endpoint", "", "the frontend, host:port (TLS)")
	flag.StringVar(&o.CAFile, "ca", "", "the CA of the server's certificate (PEM)")
	flag.StringVar(&o.CertFile, "cert", "", "the client certificate (PEM); none: no client certificate")
	flag.StringVar(&o.KeyFile, "key", "", "its private key (PEM)")
	flag.StringVar(&o.Instance, "instance", "main", "the REAPI instance name")
	flag.StringVar(&o.Nonce, "nonce", "", "makes the action one of its own")
	flag.Parse()
	o.Ops = flag.Args()
	if o.Endpoint == "" || o.CAFile == "" || o.Nonce == "" || len(o.Ops) == 0 || (o.CertFile == "") != (o.KeyFile == "") {
		fmt.Fprintln(os.Stderr, "usage: acwrite -endpoint HOST:PORT -ca CA.pem [-cert C.pem -key C.key] [-instance NAME] -nonce S write|read|execute...")
		os.Exit(2)
	}
	for _, op := range o.Ops {
		if !slices.Contains(probe.Ops, op) {
			fmt.Fprintf(os.Stderr, "acwrite: unknown operation %q (write, read, execute)\n", op)
			os.Exit(2)
		}
	}
	switch err := probe.Run(o, os.Stdout); {
	case errors.Is(err, probe.ErrRefused): // its line says why
		os.Exit(1)
	case err != nil:
		fmt.Fprintf(os.Stderr, "acwrite: %v\n", err)
		os.Exit(1)
	}
}
