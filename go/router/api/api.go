// Package api is the web API the router study serves and loads: a few
// dozen routes in the shape of a code-hosting site's, with static
// segments, parameters, catch-alls and overlaps that make the trie
// backtrack, and the request paths the load generator sends.
//
// Every handler answers with its route's pattern and the parameters,
// "GET /users/:id id=42\n", so that a response shows what was matched.
package api

import (
	"fmt"
	"io"
	"net/http"

	"havlak-lab/go/router/route"
)

// A Route is a method and a pattern.
type Route struct{ Method, Pattern string }

// Routes is the API.
var Routes = []Route{
	{"GET", "/"},
	{"GET", "/healthz"},
	{"GET", "/users"},
	{"POST", "/users"},
	{"GET", "/users/new"},
	{"GET", "/users/:id"},
	{"PUT", "/users/:id"},
	{"DELETE", "/users/:id"},
	{"GET", "/users/:id/followers"},
	{"GET", "/users/:id/repos"},
	{"GET", "/users/:id/repos/:repo"},
	{"GET", "/users/:id/repos/:repo/issues"},
	{"GET", "/users/:id/repos/:repo/issues/:number"},
	{"POST", "/users/:id/repos/:repo/issues"},
	{"GET", "/users/new/repos/template"},
	{"GET", "/repos/:owner/:repo"},
	{"GET", "/repos/:owner/:repo/contents/*path"},
	{"GET", "/repos/:owner/:repo/pulls/:number/files"},
	{"GET", "/repos/:owner/:repo/pulls/:number/commits"},
	{"GET", "/static/*filepath"},
	{"GET", "/search"},
	{"GET", "/api/v1/status"},
	{"GET", "/api/v1/orgs/:org/teams/:team/members"},
	{"GET", "/api/v1/orgs/:org/teams/:team/repos"},
	{"GET", "/api/v2/*rest"},
	{"GET", "/blog/archive"},
	{"GET", "/blog/:year/:month/:slug"},
	{"GET", "/blog/:year/:month/:slug/comments"},
}

// Handler is the handler of a route: it writes the method, the pattern
// and the parameters.
func Handler(method, pattern string) route.Handler {
	head := method + " " + pattern
	return func(w http.ResponseWriter, r *http.Request, p *route.Params) {
		io.WriteString(w, head)
		for i := 0; i < p.Len(); i++ {
			kv := p.At(i)
			io.WriteString(w, " ")
			io.WriteString(w, kv.Key)
			io.WriteString(w, "=")
			io.WriteString(w, kv.Value)
		}
		io.WriteString(w, "\n")
	}
}

// Register adds the API's routes to r.
func Register(r route.Router) error {
	for _, rt := range Routes {
		if err := r.Handle(rt.Method, rt.Pattern, Handler(rt.Method, rt.Pattern)); err != nil {
			return err
		}
	}
	return nil
}

// Paths are the request paths of the load, n of them, the same every time:
// parameters from small sets, so that paths repeat (a cache can help), and
// every kind of route, deep ones included. Every one is answered with 200
// to a GET.
func Paths(n int) []string {
	paths := make([]string, n)
	for i := range paths {
		switch i % 8 {
		case 0:
			paths[i] = fmt.Sprintf("/users/%d", i%97)
		case 1:
			paths[i] = fmt.Sprintf("/users/%d/repos/r%d/issues/%d", i%31, i%7, i%13)
		case 2:
			paths[i] = fmt.Sprintf("/repos/o%d/r%d/contents/src/pkg%d/file%d.go", i%5, i%3, i%4, i%9)
		case 3:
			paths[i] = fmt.Sprintf("/static/js/app%d.js", i%4)
		case 4:
			paths[i] = "/healthz"
		case 5:
			paths[i] = fmt.Sprintf("/api/v1/orgs/acme/teams/t%d/members", i%6)
		case 6:
			paths[i] = fmt.Sprintf("/blog/20%d/%02d/post-%d", 20+i%5, 1+i%12, i%11)
		default:
			paths[i] = fmt.Sprintf("/repos/o%d/r%d/pulls/%d/files", i%5, i%3, i%17)
		}
	}
	return paths
}
