// Package route is what the stages of the router study share: the route
// patterns and their parsing, the parameters a match yields, the handler
// type, and how a lookup's answer becomes an HTTP response. The stages
// (go/router/router1 … router4) differ only in how they find a route.
//
// # Patterns and matching
//
// A pattern is a path of segments separated by '/': a static segment
// ("users"), a named parameter (":id", one whole segment), or, as the last
// segment only, a catch-all ("*path", the rest of the path, possibly empty).
// A request path is taken as its non-empty segments, so "//users/42/" is
// "/users/42"; a catch-all's value is the rest of the path from its first
// segment on, as it was written, without its trailing slashes.
//
// Where several routes could match, a static segment wins over a
// parameter, and a parameter over a catch-all; a branch that leads nowhere
// is left for the next (backtracking). The first route found by that order
// answers: 200 when it has a handler for the method, else 405 with the
// methods it has in the Allow header. No route is 404.
package route

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MaxParams is the most parameters a pattern may have.
const MaxParams = 8

// A Param is one parameter of a match: its name in the pattern and the
// path's segment (or rest, for a catch-all).
type Param struct{ Key, Value string }

// Params are a match's parameters in the order of the pattern. The zero
// value is empty; a Params is a fixed array, so that a stage can keep it
// on the stack or in a pool and allocate nothing per request.
type Params struct {
	n  int
	kv [MaxParams]Param
}

// Get returns the value of the parameter key, or "".
func (p *Params) Get(key string) string {
	for i := 0; i < p.n; i++ {
		if p.kv[i].Key == key {
			return p.kv[i].Value
		}
	}
	return ""
}

// Len is the number of parameters.
func (p *Params) Len() int { return p.n }

// At returns the i-th parameter.
func (p *Params) At(i int) Param { return p.kv[i] }

// Slice returns the parameters as a slice of p's own array.
func (p *Params) Slice() []Param { return p.kv[:p.n] }

// Append adds a parameter; a pattern never has more than MaxParams.
func (p *Params) Append(key, value string) {
	p.kv[p.n] = Param{key, value}
	p.n++
}

// Truncate drops every parameter after the first n (backtracking).
func (p *Params) Truncate(n int) { p.n = n }

// Reset empties p.
func (p *Params) Reset() { p.n = 0 }

// A Handler answers a request that a route matched.
type Handler func(w http.ResponseWriter, r *http.Request, p *Params)

// A Result is what a lookup found.
type Result struct {
	Status  int     // 200, 404 or 405
	Pattern string  // the matched route's pattern, "" for 404
	Handler Handler // for 200
	Allow   string  // for 405: the route's methods, "GET, POST"
}

// A Router is one stage of the study.
type Router interface {
	http.Handler
	// Handle adds a route; a bad or conflicting pattern is an error.
	Handle(method, pattern string, h Handler) error
	// Lookup finds the route of method and path, its parameters in p
	// (which it resets first).
	Lookup(method, path string, p *Params) Result
}

// Serve answers a request after its lookup.
func Serve(w http.ResponseWriter, r *http.Request, res Result, p *Params) {
	switch res.Status {
	case http.StatusOK:
		res.Handler(w, r, p)
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", res.Allow)
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "405 method not allowed\n")
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404 page not found\n")
	}
}

// The kinds of a pattern's segments.
const (
	KindStatic = iota
	KindParam
	KindCatchAll
)

// A Segment is one segment of a pattern.
type Segment struct {
	Kind int
	Text string // the static text, or the parameter's name
}

// Parse splits a pattern into its segments, checking it: it starts with
// '/', parameter names are non-empty and distinct, a catch-all is last,
// at most MaxParams parameters.
func Parse(pattern string) ([]Segment, error) {
	if !strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("pattern %q: must start with /", pattern)
	}
	var segs []Segment
	names := map[string]bool{}
	for _, piece := range strings.Split(pattern, "/") {
		if piece == "" {
			continue
		}
		if n := len(segs); n > 0 && segs[n-1].Kind == KindCatchAll {
			return nil, fmt.Errorf("pattern %q: a catch-all must be the last segment", pattern)
		}
		s := Segment{Kind: KindStatic, Text: piece}
		switch piece[0] {
		case ':':
			s = Segment{Kind: KindParam, Text: piece[1:]}
		case '*':
			s = Segment{Kind: KindCatchAll, Text: piece[1:]}
		}
		if s.Kind != KindStatic {
			switch {
			case s.Text == "":
				return nil, fmt.Errorf("pattern %q: a parameter without a name", pattern)
			case names[s.Text]:
				return nil, fmt.Errorf("pattern %q: parameter %q twice", pattern, s.Text)
			case len(names) == MaxParams:
				return nil, fmt.Errorf("pattern %q: more than %d parameters", pattern, MaxParams)
			}
			names[s.Text] = true
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// CheckMethod checks a route's method: an HTTP token, upper case.
func CheckMethod(method string) error {
	if method == "" {
		return errors.New("empty method")
	}
	for _, c := range method {
		if c < 'A' || c > 'Z' {
			return fmt.Errorf("method %q: want upper-case letters", method)
		}
	}
	return nil
}

// ConflictError is a route's conflict with another one.
func ConflictError(method, pattern, why string) error {
	return fmt.Errorf("%s %s: %s", method, pattern, why)
}

// TrimRest is a catch-all's value: the path from i on, without trailing
// slashes.
func TrimRest(path string, i int) string {
	end := len(path)
	for end > i && path[end-1] == '/' {
		end--
	}
	return path[i:end]
}
