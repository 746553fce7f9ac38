// Command spinserver is the router study's server with stage router2
// (go/router/cmd/router2) that does extra work before each request: as
// many turns of a loop as $SPINSERVER_TURNS says (none when unset). The
// runner's test of the instructions per request (tools/perf/runner) runs
// it, with and without the extra work; it takes router2's flags.
package main

import (
	"net/http"
	"os"
	"strconv"

	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router2"
	"havlak-lab/go/router/server"
)

// turnsEnv is the variable that sets the extra turns a request.
const turnsEnv = "SPINSERVER_TURNS"

// spinning is a router that does extra work before each request.
type spinning struct {
	route.Router
	turns int
}

// spun keeps the loop's work from being optimized away.
var spun int

func (s spinning) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for i := range s.turns {
		spun += i
	}
	s.Router.ServeHTTP(w, r)
}

func main() {
	turns := 0
	if v := os.Getenv(turnsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			os.Stderr.WriteString("spinserver: $" + turnsEnv + "=" + strconv.Quote(v) + ": want a count of turns\n")
			os.Exit(2)
		}
		turns = n
	}
	server.Main("spinserver", func() route.Router { return spinning{router2.New(), turns} })
}
