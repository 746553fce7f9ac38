// Command router1 serves the router study's API with stage router1
// (havlak-lab/go/router/router1) and net/http/pprof on a listener of its
// own; see package havlak-lab/go/router/server for its flags.
package main

import (
	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router1"
	"havlak-lab/go/router/server"
)

func main() { server.Main("router1", func() route.Router { return router1.New() }) }
