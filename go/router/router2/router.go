// Package router2 is the router study's second stage: explodePath's
// lessons applied to the whole lookup. The path is never split: the trie
// is walked segment by segment on indexes into it, each segment a
// substring; static children are a short slice, searched in order; the
// handlers of a route are a slice by method; the parameters go into a
// route.Params, a fixed array, taken from a sync.Pool. A lookup allocates
// nothing.
package router2

import (
	"net/http"
	"sort"
	"strings"
	"sync"

	"havlak-lab/go/router/route"
)

// Router is a trie of routes.
type Router struct{ root *node }

type node struct {
	label    string // a static child's segment
	static   []*node
	param    *node
	catchAll *node
	name     string // a parameter's or catch-all's name

	pattern  string
	handlers []handler
	allow    string
}

type handler struct {
	method string
	h      route.Handler
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
	for _, s := range segs {
		switch s.Kind {
		case route.KindStatic:
			n = n.staticChild(s.Text)
		case route.KindParam:
			if n.param == nil {
				n.param = &node{name: s.Text}
			} else if n.param.name != s.Text {
				return route.ConflictError(method, pattern, "parameter :"+s.Text+" where another route has :"+n.param.name)
			}
			n = n.param
		case route.KindCatchAll:
			if n.catchAll == nil {
				n.catchAll = &node{name: s.Text}
			} else if n.catchAll.name != s.Text {
				return route.ConflictError(method, pattern, "catch-all *"+s.Text+" where another route has *"+n.catchAll.name)
			}
			n = n.catchAll
		}
	}
	if n.handler(method) != nil {
		return route.ConflictError(method, pattern, "registered twice")
	}
	n.handlers = append(n.handlers, handler{method, h})
	n.pattern = pattern
	methods := make([]string, len(n.handlers))
	for i, h := range n.handlers {
		methods[i] = h.method
	}
	sort.Strings(methods)
	n.allow = strings.Join(methods, ", ")
	return nil
}

func (n *node) staticChild(label string) *node {
	for _, c := range n.static {
		if c.label == label {
			return c
		}
	}
	c := &node{label: label}
	n.static = append(n.static, c)
	return c
}

func (n *node) handler(method string) route.Handler {
	for _, h := range n.handlers {
		if h.method == method {
			return h.h
		}
	}
	return nil
}

// Lookup finds the route of method and path.
func (rt *Router) Lookup(method, path string, p *route.Params) route.Result {
	p.Reset()
	n := rt.root.match(path, 0, p)
	if n == nil {
		return route.Result{Status: http.StatusNotFound}
	}
	if h := n.handler(method); h != nil {
		return route.Result{Status: http.StatusOK, Pattern: n.pattern, Handler: h}
	}
	return route.Result{Status: http.StatusMethodNotAllowed, Pattern: n.pattern, Allow: n.allow}
}

// match returns the node of the first route that takes path from i on,
// the parameters appended to p.
func (n *node) match(path string, i int, p *route.Params) *node {
	for i < len(path) && path[i] == '/' {
		i++
	}
	if i == len(path) {
		if len(n.handlers) > 0 {
			return n
		}
		if c := n.catchAll; c != nil && len(c.handlers) > 0 {
			p.Append(c.name, "")
			return c
		}
		return nil
	}
	j := i
	for j < len(path) && path[j] != '/' {
		j++
	}
	seg := path[i:j]
	for _, c := range n.static {
		if c.label == seg {
			if m := c.match(path, j, p); m != nil {
				return m
			}
			break
		}
	}
	if c := n.param; c != nil {
		saved := p.Len()
		p.Append(c.name, seg)
		if m := c.match(path, j, p); m != nil {
			return m
		}
		p.Truncate(saved)
	}
	if c := n.catchAll; c != nil && len(c.handlers) > 0 {
		p.Append(c.name, route.TrimRest(path, i))
		return c
	}
	return nil
}

var paramsPool = sync.Pool{New: func() any { return new(route.Params) }}

// ServeHTTP routes a request.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := paramsPool.Get().(*route.Params)
	res := rt.Lookup(r.Method, r.URL.Path, p)
	route.Serve(w, r, res, p)
	paramsPool.Put(p)
}
