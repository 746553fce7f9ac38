// Command router4 serves the router study's API with stage router4
// (havlak-lab/go/router/router4) and net/http/pprof on a listener of its
// own; see package havlak-lab/go/router/server for its flags.
package main

import (
	"time"

	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router4"
	"havlak-lab/go/router/server"
)

// router4's timeouts; -readheadertimeout and -idletimeout change them.
var options = []server.Option{
	// A client sending its headers a byte at a time (slowloris) holds a
	// connection and its buffers; an honest one sends them in well under
	// a second, even over a slow link.
	server.ReadHeaderTimeout(10 * time.Second),
	// Without it, a client that stops sending keeps its connection, its
	// goroutine and buffers forever: 8,000 idle keep-alive connections
	// took router4 from 8.7 to 165 MB. Longer than the 60 s after which
	// the proxies commonly in front of a server (AWS's load balancers,
	// nginx's upstream keepalive_timeout) drop an idle connection
	// themselves, so that they close first and never send a request onto
	// a connection this server is closing. A client whose idle connection
	// was closed only connects again.
	server.IdleTimeout(90 * time.Second),
}

func main() {
	server.Main("router4", func() route.Router { return router4.New() }, options...)
}
