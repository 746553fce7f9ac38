// The router study's tests: every stage routes the API the same, on a
// table of requests worked out by hand and on random paths
// (differentially, against router1), and the allocation-free stages are
// pinned at zero allocations per lookup.
package router_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"havlak-lab/go/router/api"
	"havlak-lab/go/router/route"
	"havlak-lab/go/router/router1"
	"havlak-lab/go/router/router2"
	"havlak-lab/go/router/router3"
	"havlak-lab/go/router/router4"
)

var stages = []struct {
	name string
	new  func() route.Router
}{
	{"router1", func() route.Router { return router1.New() }},
	{"router2", func() route.Router { return router2.New() }},
	{"router3", func() route.Router { return router3.New() }},
	{"router4", func() route.Router { return router4.New() }},
}

func newAPI(t testing.TB, newRouter func() route.Router) route.Router {
	t.Helper()
	r := newRouter()
	if err := api.Register(r); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return r
}

// answer is a lookup's answer in comparable form.
type answer struct {
	status  int
	pattern string
	params  string // "k=v k=v"
	allow   string
}

func (a answer) String() string {
	return fmt.Sprintf("%d %q [%s] allow %q", a.status, a.pattern, a.params, a.allow)
}

func lookup(r route.Router, method, path string) answer {
	var p route.Params
	res := r.Lookup(method, path, &p)
	var kv []string
	for _, x := range p.Slice() {
		kv = append(kv, x.Key+"="+x.Value)
	}
	if res.Status == http.StatusOK && res.Handler == nil {
		return answer{status: -1} // a 200 without a handler is wrong
	}
	return answer{res.Status, res.Pattern, strings.Join(kv, " "), res.Allow}
}

var table = []struct {
	method, path string
	want         answer
}{
	{"GET", "/", answer{200, "/", "", ""}},
	{"GET", "", answer{200, "/", "", ""}},
	{"GET", "//", answer{200, "/", "", ""}},
	{"GET", "/healthz", answer{200, "/healthz", "", ""}},
	{"GET", "/healthz/", answer{200, "/healthz", "", ""}},
	{"GET", "//healthz//", answer{200, "/healthz", "", ""}},
	{"GET", "/HEALTHZ", answer{404, "", "", ""}},
	{"GET", "/users", answer{200, "/users", "", ""}},
	{"POST", "/users", answer{200, "/users", "", ""}},
	{"DELETE", "/users", answer{405, "/users", "", "GET, POST"}},
	{"GET", "/users/new", answer{200, "/users/new", "", ""}},
	// The static segment wins, and the path picks the route before the
	// method: /users/new has only GET.
	{"PUT", "/users/new", answer{405, "/users/new", "", "GET"}},
	{"GET", "/users/42", answer{200, "/users/:id", "id=42", ""}},
	{"PUT", "/users/42", answer{200, "/users/:id", "id=42", ""}},
	{"PATCH", "/users/42", answer{405, "/users/:id", "id=42", "DELETE, GET, PUT"}},
	{"GET", "/users/42/repos", answer{200, "/users/:id/repos", "id=42", ""}},
	{"GET", "/users/42/repos/lab", answer{200, "/users/:id/repos/:repo", "id=42 repo=lab", ""}},
	{"GET", "/users/42/repos/lab/issues/7", answer{200, "/users/:id/repos/:repo/issues/:number", "id=42 repo=lab number=7", ""}},
	{"POST", "/users/42/repos/lab/issues", answer{200, "/users/:id/repos/:repo/issues", "id=42 repo=lab", ""}},
	{"GET", "/users/42/repos/lab/issues/7/x", answer{404, "", "", ""}},
	// Backtracking: "new" leads to /users/new/repos/template only; other
	// repos of user "new" are the parameter's.
	{"GET", "/users/new/repos/template", answer{200, "/users/new/repos/template", "", ""}},
	{"GET", "/users/new/repos/lab", answer{200, "/users/:id/repos/:repo", "id=new repo=lab", ""}},
	{"GET", "/users/new/followers", answer{200, "/users/:id/followers", "id=new", ""}},
	{"GET", "/repos/golang/go", answer{200, "/repos/:owner/:repo", "owner=golang repo=go", ""}},
	{"GET", "/repos/golang/go/contents/src/net/http/server.go", answer{200, "/repos/:owner/:repo/contents/*path", "owner=golang repo=go path=src/net/http/server.go", ""}},
	{"GET", "/repos/golang/go/contents/src//net/", answer{200, "/repos/:owner/:repo/contents/*path", "owner=golang repo=go path=src//net", ""}},
	{"GET", "/repos/golang/go/contents", answer{200, "/repos/:owner/:repo/contents/*path", "owner=golang repo=go path=", ""}},
	{"GET", "/repos/golang/go/contents/", answer{200, "/repos/:owner/:repo/contents/*path", "owner=golang repo=go path=", ""}},
	{"GET", "/repos/golang/go/pulls/1/files", answer{200, "/repos/:owner/:repo/pulls/:number/files", "owner=golang repo=go number=1", ""}},
	{"GET", "/repos/golang/go/pulls/1", answer{404, "", "", ""}},
	{"GET", "/static/", answer{200, "/static/*filepath", "filepath=", ""}},
	{"GET", "/static/css/site.css", answer{200, "/static/*filepath", "filepath=css/site.css", ""}},
	{"HEAD", "/static/x", answer{405, "/static/*filepath", "filepath=x", "GET"}},
	{"GET", "/api/v1/status", answer{200, "/api/v1/status", "", ""}},
	{"GET", "/api/v1", answer{404, "", "", ""}},
	{"GET", "/api/v1/orgs/acme/teams/core/members", answer{200, "/api/v1/orgs/:org/teams/:team/members", "org=acme team=core", ""}},
	{"GET", "/api/v2/anything/at/all", answer{200, "/api/v2/*rest", "rest=anything/at/all", ""}},
	{"GET", "/api/v3/x", answer{404, "", "", ""}},
	{"GET", "/blog/archive", answer{200, "/blog/archive", "", ""}},
	{"GET", "/blog/archive/03/x", answer{200, "/blog/:year/:month/:slug", "year=archive month=03 slug=x", ""}},
	{"GET", "/blog/2024/05/hello/comments", answer{200, "/blog/:year/:month/:slug/comments", "year=2024 month=05 slug=hello", ""}},
	{"GET", "/blog/2024/05", answer{404, "", "", ""}},
	{"GET", "/über/日本語", answer{404, "", "", ""}},
	{"GET", "/users/über", answer{200, "/users/:id", "id=über", ""}},
	{"GET", "/users/%2F", answer{200, "/users/:id", "id=%2F", ""}},
	{"GET", "/nope", answer{404, "", "", ""}},
	{"GET", "users/7", answer{200, "/users/:id", "id=7", ""}},
}

func TestTable(t *testing.T) {
	for _, s := range stages {
		r := newAPI(t, s.new)
		for round := 0; round < 2; round++ { // the second from the caches
			for _, c := range table {
				if got := lookup(r, c.method, c.path); got != c.want {
					t.Errorf("%s: %s %q = %v, want %v", s.name, c.method, c.path, got, c.want)
				}
			}
		}
	}
}

func TestHandleErrors(t *testing.T) {
	for _, s := range stages {
		r := newAPI(t, s.new)
		for _, c := range []struct{ method, pattern string }{
			{"GET", "users"},                       // no leading slash
			{"GET", "/users/:"},                    // no name
			{"GET", "/static/*"},                   // no name
			{"GET", "/users/:name"},                // :id is there
			{"GET", "/static/*rest"},               // *filepath is there
			{"GET", "/a/*rest/b"},                  // a catch-all not last
			{"GET", "/a/:x/:x"},                    // a name twice
			{"GET", "/users/:id"},                  // twice
			{"GET", "//users//:id/"},               // the same, twice
			{"get", "/lower"},                      // a method in lower case
			{"", "/empty"},                         // no method
			{"GET", "/:a/:b/:c/:d/:e/:f/:g/:h/:i"}, // too many parameters
		} {
			if err := r.Handle(c.method, c.pattern, api.Handler(c.method, c.pattern)); err == nil {
				t.Errorf("%s: Handle(%q, %q) succeeded", s.name, c.method, c.pattern)
			}
		}
		if err := r.Handle("PATCH", "/users/:id", api.Handler("PATCH", "/users/:id")); err != nil {
			t.Errorf("%s: Handle(PATCH /users/:id): %v", s.name, err)
		}
	}
}

// TestHTTP serves the table over HTTP, through ServeHTTP.
func TestHTTP(t *testing.T) {
	for _, s := range stages {
		r := newAPI(t, s.new)
		for _, c := range table {
			if c.path == "" || !strings.HasPrefix(c.path, "/") {
				continue // not a request path
			}
			req := httptest.NewRequest(c.method, "http://127.0.0.1"+pathEscape(c.path), nil)
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != c.want.status {
				t.Errorf("%s: %s %s: status %d, want %d", s.name, c.method, c.path, rec.Code, c.want.status)
				continue
			}
			switch c.want.status {
			case 200:
				want := c.method + " " + c.want.pattern
				if c.want.params != "" {
					want += " " + c.want.params
				}
				if string(body) != want+"\n" {
					t.Errorf("%s: %s %s: body %q, want %q", s.name, c.method, c.path, body, want+"\n")
				}
			case 405:
				if got := rec.Header().Get("Allow"); got != c.want.allow {
					t.Errorf("%s: %s %s: Allow %q, want %q", s.name, c.method, c.path, got, c.want.allow)
				}
			}
		}
	}
}

// pathEscape escapes what a URL cannot hold as it is, so that the
// request's URL.Path is the path.
func pathEscape(p string) string {
	return strings.NewReplacer("%", "%25", " ", "%20").Replace(p)
}

// TestDifferential asks every stage about random paths made of the API's
// segments and others, and requires router1's answers.
func TestDifferential(t *testing.T) {
	words := []string{"", "", "users", "new", "42", "repos", "lab", "issues", "7", "contents", "src",
		"pulls", "files", "static", "api", "v1", "v2", "orgs", "teams", "members", "blog", "archive",
		"2024", "comments", "healthz", "search", "template", "followers", "x y", "é"}
	methods := []string{"GET", "GET", "GET", "POST", "PUT", "DELETE", "PATCH"}
	routers := make([]route.Router, len(stages))
	for i, s := range stages {
		routers[i] = newAPI(t, s.new)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	checked := map[int]int{}
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := rng.IntN(8); k >= 0; k-- {
			b.WriteString("/")
			b.WriteString(words[rng.IntN(len(words))])
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		path, method := b.String(), methods[rng.IntN(len(methods))]
		want := lookup(routers[0], method, path)
		checked[want.status]++
		for j, r := range routers[1:] {
			if got := lookup(r, method, path); got != want {
				t.Fatalf("%s: %s %q = %v; router1 says %v", stages[j+1].name, method, path, got, want)
			}
		}
	}
	t.Logf("%d random requests, by router1's status: %v", n, checked)
	for _, status := range []int{200, 404, 405} {
		if checked[status] < n/100 {
			t.Errorf("only %d random requests got %d: the test does not exercise it", checked[status], status)
		}
	}
}

// TestCacheBound looks up more distinct paths than the caches hold, twice.
func TestCacheBound(t *testing.T) {
	for _, s := range stages {
		r := newAPI(t, s.new)
		for round := 0; round < 2; round++ {
			for i := 0; i < 10000; i++ {
				path := fmt.Sprintf("/users/%d/repos/r%d", i, i%3)
				want := answer{200, "/users/:id/repos/:repo", fmt.Sprintf("id=%d repo=r%d", i, i%3), ""}
				if got := lookup(r, "GET", path); got != want {
					t.Fatalf("%s: GET %s = %v, want %v", s.name, path, got, want)
				}
			}
		}
	}
}

// TestCacheMemoryBound looks up distinct long paths: the caches must not
// keep them (unbounded, 300 paths of 256 KiB would hold 75 MiB).
func TestCacheMemoryBound(t *testing.T) {
	for _, s := range stages {
		r := newAPI(t, s.new)
		heap := func() uint64 {
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		before := heap()
		for i := 0; i < 300; i++ {
			path := fmt.Sprintf("/users/%d/repos/%s", i, strings.Repeat("r", 256<<10))
			if got := lookup(r, "GET", path); got.status != 200 {
				t.Fatalf("%s: GET of a long path: %v", s.name, got)
			}
		}
		if grew := int64(heap()) - int64(before); grew > 16<<20 {
			t.Errorf("%s: the heap grew by %d MiB after 300 long paths: the cache keeps them", s.name, grew>>20)
		}
		runtime.KeepAlive(r)
	}
}

// TestConcurrent routes the load's paths from many goroutines at once
// (the cached stages share their caches between requests).
func TestConcurrent(t *testing.T) {
	paths := api.Paths(512)
	want := make([]answer, len(paths))
	ref := newAPI(t, stages[0].new)
	for i, p := range paths {
		if want[i] = lookup(ref, "GET", p); want[i].status != 200 {
			t.Fatalf("load path %s: %v, want 200", p, want[i])
		}
	}
	for _, s := range stages[1:] {
		r := newAPI(t, s.new)
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 4000; k++ {
					i := (k*7 + g*131) % len(paths)
					if got := lookup(r, "GET", paths[i]); got != want[i] {
						errs <- fmt.Sprintf("%s: GET %s = %v, want %v", s.name, paths[i], got, want[i])
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

// TestAllocs pins what a lookup allocates: nothing from router2 on (the
// cached stages once their cache holds the path), and at least
// strings.Split's slice in router1 (Go 1.27 keeps its small parameter map
// and segment slices on the stack for short paths; deeper paths allocate
// them too).
func TestAllocs(t *testing.T) {
	paths := []string{"/", "/healthz", "/users/42", "/users/42/repos/lab/issues/7",
		"/repos/golang/go/contents/src/net/http/server.go", "/api/v1/orgs/acme/teams/core/members", "/nope"}
	for _, s := range stages {
		r := newAPI(t, s.new)
		for _, path := range paths {
			var p route.Params
			r.Lookup("GET", path, &p) // fills the caches
			got := testing.AllocsPerRun(100, func() { r.Lookup("GET", path, &p) })
			if s.name == "router1" {
				t.Logf("router1: GET %s: %v allocations", path, got)
				if got < 1 {
					t.Errorf("router1: GET %s: no allocation: strings.Split allocates its slice", path)
				}
				continue
			}
			if got != 0 {
				t.Errorf("%s: GET %s: %v allocations, want 0", s.name, path, got)
			}
		}
	}
}

// TestServeAllocs pins ServeHTTP's own allocations beyond the handler's:
// router2's pool of parameters keeps it at none.
func TestServeAllocs(t *testing.T) {
	for _, s := range stages[1:] {
		r := newAPI(t, s.new)
		req := httptest.NewRequest("GET", "http://127.0.0.1/users/42/repos/lab", nil)
		w := discard{h: http.Header{}}
		r.ServeHTTP(w, req)
		if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != 0 {
			t.Errorf("%s: ServeHTTP: %v allocations, want 0", s.name, got)
		}
	}
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d discard) Header() http.Header             { return d.h }
func (discard) Write(b []byte) (int, error)       { return len(b), nil }
func (discard) WriteString(s string) (int, error) { return len(s), nil }
func (discard) WriteHeader(int)                   {}

func TestPathsAreDeterministic(t *testing.T) {
	if a, b := api.Paths(64), api.Paths(64); !slices.Equal(a, b) {
		t.Error("api.Paths differs between calls")
	}
}

// TestLoadFile checks that testdata/load.txt, the benchmark's load, is
// api.Paths(256), every one answered with 200.
func TestLoadFile(t *testing.T) {
	data, err := os.ReadFile("testdata/load.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			got = append(got, line)
		}
	}
	var want []string
	r := newAPI(t, stages[1].new)
	for _, p := range api.Paths(256) {
		want = append(want, "GET "+p)
		if a := lookup(r, "GET", p); a.status != 200 {
			t.Errorf("GET %s: %v, want 200", p, a)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("testdata/load.txt is not api.Paths(256); it should read:\n%s", strings.Join(want, "\n"))
	}
}
