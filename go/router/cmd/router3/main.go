// Command router3 serves the router study's API with stage router3
// (havlak-lab/go/router/router3) and net/http/pprof on a listener of its
// own; see package havlak-lab/go/router/server for its flags.
package main

import (
	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router3"
	"havlak-lab/go/router/server"
)

func main() { server.Main("router3", func() route.Router { return router3.New() }) }
