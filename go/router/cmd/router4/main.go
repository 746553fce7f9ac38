// Command router4 serves the router study's API with stage router4
// (havlak-lab/go/router/router4) and net/http/pprof on a listener of its
// own; see package havlak-lab/go/router/server for its flags.
package main

import (
	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router4"
	"havlak-lab/go/router/server"
)

func main() { server.Main("router4", func() route.Router { return router4.New() }) }
