// Package router1 is the router study's first stage: the obvious trie. A
// request's path is cut with strings.Split, each node keeps its static
// children in a map and its handlers in a map by method, and the
// parameters are collected in a fresh map[string]string, then copied out:
// several allocations per request, before the handler runs.
package router1

import (
	"net/http"
	"sort"
	"strings"

	"havlak-lab/go/router/route"
)

// Router is a trie of routes.
type Router struct{ root *node }

type node struct {
	static    map[string]*node
	param     *node
	paramName string
	catchAll  *node
	catchName string

	pattern  string
	names    []string // the pattern's parameters, in order
	handlers map[string]route.Handler
	allow    string
}

// New returns an empty router.
func New() *Router { return &Router{root: &node{}} }

// Handle adds a route.
func (rt *Router) Handle(method, pattern string, h route.Handler) error {
	if err := route.CheckMethod(method); err != nil {
		return err
	}
	segs, err := route.Parse(pattern)
	if err != nil {
		return err
	}
	n := rt.root
	var names []string
	for _, s := range segs {
		switch s.Kind {
		case route.KindStatic:
			if n.static == nil {
				n.static = map[string]*node{}
			}
			if n.static[s.Text] == nil {
				n.static[s.Text] = &node{}
			}
			n = n.static[s.Text]
		case route.KindParam:
			if n.param == nil {
				n.param, n.paramName = &node{}, s.Text
			} else if n.paramName != s.Text {
				return route.ConflictError(method, pattern, "parameter :"+s.Text+" where another route has :"+n.paramName)
			}
			n = n.param
			names = append(names, s.Text)
		case route.KindCatchAll:
			if n.catchAll == nil {
				n.catchAll, n.catchName = &node{}, s.Text
			} else if n.catchName != s.Text {
				return route.ConflictError(method, pattern, "catch-all *"+s.Text+" where another route has *"+n.catchName)
			}
			n = n.catchAll
			names = append(names, s.Text)
		}
	}
	if n.handlers[method] != nil {
		return route.ConflictError(method, pattern, "registered twice")
	}
	if n.handlers == nil {
		n.handlers = map[string]route.Handler{}
	}
	n.handlers[method] = h
	n.pattern, n.names = pattern, names
	var methods []string
	for m := range n.handlers {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	n.allow = strings.Join(methods, ", ")
	return nil
}

// Lookup finds the route of method and path.
func (rt *Router) Lookup(method, path string, p *route.Params) route.Result {
	p.Reset()
	var segs []string
	var offsets []int
	off := 0
	for _, piece := range strings.Split(path, "/") {
		if piece != "" {
			segs = append(segs, piece)
			offsets = append(offsets, off)
		}
		off += len(piece) + 1
	}
	values := map[string]string{}
	n := rt.root.match(path, segs, offsets, values)
	if n == nil {
		return route.Result{Status: http.StatusNotFound}
	}
	for _, name := range n.names {
		p.Append(name, values[name])
	}
	h := n.handlers[method]
	if h == nil {
		return route.Result{Status: http.StatusMethodNotAllowed, Pattern: n.pattern, Allow: n.allow}
	}
	return route.Result{Status: http.StatusOK, Pattern: n.pattern, Handler: h}
}

// match returns the node of the first route that takes segs, the
// parameters in values.
func (n *node) match(path string, segs []string, offsets []int, values map[string]string) *node {
	if len(segs) == 0 {
		if len(n.handlers) > 0 {
			return n
		}
		if n.catchAll != nil && len(n.catchAll.handlers) > 0 {
			values[n.catchName] = ""
			return n.catchAll
		}
		return nil
	}
	if child := n.static[segs[0]]; child != nil {
		if m := child.match(path, segs[1:], offsets[1:], values); m != nil {
			return m
		}
	}
	if n.param != nil {
		values[n.paramName] = segs[0]
		if m := n.param.match(path, segs[1:], offsets[1:], values); m != nil {
			return m
		}
		delete(values, n.paramName)
	}
	if n.catchAll != nil && len(n.catchAll.handlers) > 0 {
		values[n.catchName] = route.TrimRest(path, offsets[0])
		return n.catchAll
	}
	return nil
}

// ServeHTTP routes a request.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := new(route.Params)
	res := rt.Lookup(r.Method, r.URL.Path, p)
	route.Serve(w, r, res, p)
}
