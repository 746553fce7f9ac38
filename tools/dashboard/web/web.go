// Package web is the lab's dashboard: a web app over the results history
// (tools/history), a handler per page, the same history and the same one
// comparison (tools/verdict) behind every page as behind the commands.
//
// Its pages are html/template files under templates/ and its CSS and
// JavaScript files under static/, all embedded: Go fills the templates and
// never writes markup. Every string from a result or the history (names,
// figures, notes) reaches a page through html/template, which escapes it
// for where it lands (text, attribute, URL), or as JSON that the page's
// script puts in as text. The pages run no inline script: the Content
// Security Policy allows only the dashboard's own files.
//
// Pages (each addressed by its URL, so that a link to it is shareable):
//
//	/[?night=DATE]                                           a night against the one before (landing.go)
//	/series?benchmark=B&figure=F&unit=U&workload=W&env=KEY   a series chart
//	/api/series?...                                          its points, JSON
//	/series/multiples?figure=F&unit=U&workload=W             one figure across benchmarks
//	/compare?a=COMMIT&b=COMMIT[&verdict=O][&sort=COLUMN]     two commits, B judged against A
//	/alerts[?state=S]                                        the alerts
//	/alerts/{id}                                             one alert, its record
//	/nights/{night}/report/{path...}                         a night's report, from the archive
//	/results/{id}/profiles/{kind}/{page}                     a result's profile, in pprof's UI
//	/results/{b}/diff/{a}/{kind}/{page}                      b's profile against a's (-diff_base)
//	/results/{b}/attribution/{a}?figure=F                    why F moved from a to b, by function and line
//	/signin                                                  sign-in (auth.go)
//
// Writes, each a POST behind sign-in and its CSRF token (auth.go), and
// registered apart from the reading routes:
//
//	/alerts/{id}/{action}   ack, accept, ignore, fix, reopen, assign (tools/alert)
//	/alerts/bulk/{action}   the same, on the alerts ticked (bulk.go)
//	/signin, /signout
//
// Reading is open to whoever can reach the server, unless
// Options.ReadRequiresSignIn.
package web

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/numfmt"
	"havlak-lab/internal/uplot"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
)

//go:embed templates static
var files embed.FS

// A Server serves the dashboard's pages over one history.
type Server struct {
	db   *history.DB
	opts Options
	// origins refuses writes from other sites' pages; proxyKey keys the
	// CSRF tokens of the users a trusted proxy names.
	origins  *http.CrossOriginProtection
	proxyKey []byte
	pages    map[string]*template.Template
	mux      *http.ServeMux
	// pprof keeps pprof's UIs of the profiles asked for (profiles.go).
	pprof *profileCache
	// attributing bounds the attributions made at once, attributions
	// keeps the finished ones (attribution.go).
	attributing  chan struct{}
	attributions *recentCache[*attributionPage]
	// Log receives what went wrong on the server's side; nil is the
	// standard logger.
	Log *log.Logger
}

// New returns the dashboard over db, which it reads and never closes;
// opts say whom it trusts (auth.go).
func New(db *history.DB, opts Options) (*Server, error) {
	s := &Server{db: db, opts: opts, origins: http.NewCrossOriginProtection(), proxyKey: make([]byte, 32),
		pages: map[string]*template.Template{}, mux: http.NewServeMux(), pprof: newProfileCache(),
		attributing: make(chan struct{}, maxAttributingAtOnce), attributions: newRecentCache[*attributionPage](keptAttributions)}
	if _, err := rand.Read(s.proxyKey); err != nil {
		return nil, err
	}
	funcs := template.FuncMap{"short": gitwork.Short, "day": day, "dict": dict, "minute": minute, "archived": archivedLink,
		"actions": alert.ActionsUsage, "commitURL": opts.Links.CommitURL, "rangeURL": opts.Links.RangeURL,
		"issueURL": opts.Links.IssueURL, "attributionLink": attributionLink,
		// Each request's own (render): who reads the page, and a path of
		// the server's as they may see it.
		"viewer": func() viewer { return viewer{} }, "serverPath": func(p string) string { return p }}
	for _, page := range []string{"series", "multiples", "compare", "alerts", "alert", "signin", "error", "landing", "attribution"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+page+".html")
		if err != nil {
			return nil, err
		}
		s.pages[page] = t
	}
	s.routes()
	return s, nil
}

// routes registers every page. None of the GET handlers ever writes; the
// writes, below them, are each wrapped in write, which checks the session
// and the CSRF token before the handler runs.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /{$}", s.landing)
	s.mux.HandleFunc("GET /series", s.series)
	s.mux.HandleFunc("GET /series/multiples", s.multiples)
	s.mux.HandleFunc("GET /api/series", s.seriesPoints)
	s.mux.HandleFunc("GET /compare", s.compare)
	s.mux.HandleFunc("GET /alerts", s.alerts)
	s.mux.HandleFunc("GET /alerts/{id}", s.alert)
	s.mux.HandleFunc("GET /nights/{night}/report/{path...}", s.nightReport)
	s.mux.HandleFunc("GET /nights/{night}/report", slash)
	s.mux.HandleFunc("GET /results/{id}/profiles/{kind}/{page}", s.profiles)
	s.mux.HandleFunc("GET /results/{id}/profiles/{kind}/{$}", s.profiles)
	s.mux.HandleFunc("GET /results/{id}/profiles/{kind}", slash)
	s.mux.HandleFunc("GET /results/{id}/diff/{base}/{kind}/{page}", s.profiles)
	s.mux.HandleFunc("GET /results/{id}/diff/{base}/{kind}/{$}", s.profiles)
	s.mux.HandleFunc("GET /results/{id}/diff/{base}/{kind}", slash)
	s.mux.HandleFunc("GET /results/{id}/attribution/{base}", s.attribution)
	s.mux.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) { s.signinPage(w, r, http.StatusOK, "") })
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // static is embedded above
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /states.css", asset("text/css; charset=utf-8", statesCSS()))
	s.mux.HandleFunc("GET /uplot/uPlot.iife.min.js", asset("text/javascript; charset=utf-8", uplot.Script))
	s.mux.HandleFunc("GET /uplot/uPlot.min.css", asset("text/css; charset=utf-8", uplot.Style))
	s.mux.HandleFunc("GET /uplot/LICENSE", asset("text/plain; charset=utf-8", uplot.License))

	// Writes.
	s.mux.HandleFunc("POST /signin", s.signin)
	s.mux.HandleFunc("POST /signout", s.write(s.signout))
	s.mux.HandleFunc("POST /alerts/{id}/{action}", s.write(s.triage))
	s.mux.HandleFunc("POST /alerts/bulk/{action}", s.write(s.bulk))
}

// contentSecurity lets the pages run and style with the dashboard's own
// files only: no inline script, no other origin, no frame around them.
const contentSecurity = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// ServeHTTP serves the dashboard.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurity)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if len(r.URL.RawQuery) > maxQuery {
		// No page's address is this long: a page would only say it back.
		s.fail(w, "", http.StatusRequestURITooLong, fmt.Sprintf("the address' query is %d KiB, over %d KiB: no page's is as long",
			len(r.URL.RawQuery)>>10, maxQuery>>10))
		return
	}
	s.withViewer(s.mux).ServeHTTP(w, r)
}

// maxQuery bounds a request's query: a series page with ten series on its
// chart has one of 2 KiB.
const maxQuery = 16 << 10

// statesCSS are the alert states' colours (tools/alert.Rules) as the
// pages' style: a state's alerts listed under a chart (class "marker
// STATE") in its chart's colour. Made from the table, never from the
// history, so it holds nothing a result could write.
func statesCSS() string {
	var b strings.Builder
	for _, r := range alert.Rules {
		fmt.Fprintf(&b, ".markers li.%s, .markers li.%s a { color: %s; }\n", r.State, r.State, r.Colour)
	}
	return b.String()
}

// slash redirects to the address with a slash at its end: the pages
// under it link to each other relatively.
func slash(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, r.URL.EscapedPath()+"/", http.StatusMovedPermanently)
}

func asset(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write([]byte(body))
	}
}

// render fills page's template with data and sends it with status. The
// page's own copy of the template knows its viewer (withViewer): the
// header names who is signed in, and serverPath shows a path of the
// server's in full to a signed-in user only (readerPath). The copy is
// escaped afresh, some 0.2 ms a page; the pages' data stay as they are.
// The page's text goes out through textFix (pagetext.go).
func (s *Server) render(w http.ResponseWriter, status int, page string, data any) {
	var b bytes.Buffer
	v := viewerOfWriter(w)
	t, err := s.pages[page].Clone()
	if err == nil {
		t.Funcs(template.FuncMap{"viewer": func() viewer { return v },
			"serverPath": func(p string) string { return readerPath(v, p) }})
		err = t.Execute(&b, data)
	}
	if err != nil {
		s.logf("page %s: %v", page, err)
		http.Error(w, "the page could not be made; the server's log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(pageText(b.Bytes(), textFix(v)))
}

// An errorPage says what was wrong with a request, or that the history
// failed.
type errorPage struct {
	Nav     string
	Status  int
	Message string
}

// fail answers with an error page: status and message for the user's own
// mistakes (4xx), which name what they asked for; a server error is logged
// and its page says only that.
func (s *Server) fail(w http.ResponseWriter, nav string, status int, message string) {
	if status >= 500 {
		s.logf("%s", message)
		message = "the history could not be read; the server's log says why"
	}
	s.render(w, status, "error", errorPage{Nav: nav, Status: status, Message: clipWords(message)})
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// link is path with its query: every link between pages is made here, and
// html/template escapes it again where it lands.
func link(path string, query url.Values) string {
	if len(query) == 0 {
		return path
	}
	return path + "?" + query.Encode()
}

// query is a url.Values of pairs, leaving out those whose value is "".
func query(pairs ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	return q
}

// writeJSON sends v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// minute is t to the minute, UTC.
func minute(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// echoRunes is how much of a parameter a page says back: a bad one of a
// megabyte still makes a small page.
const echoRunes = 80

// clip is s cut to echoRunes runes, "…" marking the cut.
func clip(s string) string { return numfmt.Cut(s, echoRunes) }

// clipWords clips each word of a message (clip), and the message to ten
// times its rune budget in all: what a page says about a parameter it
// could not use stays short whoever wrote the message.
func clipWords(message string) string {
	words := strings.Split(message, " ")
	for i, w := range words {
		words[i] = clip(w)
	}
	message = strings.Join(words, " ")
	if utf8.RuneCountInString(message) > 10*echoRunes {
		message = string([]rune(message)[:10*echoRunes]) + "…"
	}
	return message
}

// param is a request's query parameter, trimmed.
func param(r *http.Request, name string) string {
	return strings.TrimSpace(r.URL.Query().Get(name))
}

// dict makes a map of its key and value pairs, for a template that takes
// more than one value.
func dict(pairs ...any) (map[string]any, error) {
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("dict of %d values: want key and value pairs", len(pairs))
	}
	m := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		key, ok := pairs[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", pairs[i])
		}
		m[key] = pairs[i+1]
	}
	return m, nil
}
