// Command router2 serves the router study's API with stage router2
// (havlak-lab/go/router/router2) and net/http/pprof on a listener of its
// own; see package havlak-lab/go/router/server for its flags.
package main

import (
	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router2"
	"havlak-lab/go/router/server"
)

func main() { server.Main("router2", func() route.Router { return router2.New() }) }
