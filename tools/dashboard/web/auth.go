package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"havlak-lab/tools/history"
)

// Sign-in. Reading is open unless Options.ReadRequiresSignIn; every write
// needs a signed-in user and the CSRF token of their session:
//
//   - a user signs in with the token an admin made for them (dashboard
//     users add NAME, history.AddUser) at POST /signin, which opens a
//     session (history.SignIn): its random id goes to the browser in a
//     cookie (HttpOnly, SameSite=Strict, Secure over TLS), the history
//     keeps its hash and when it expires;
//   - every write (POST) must come from the dashboard's own pages
//     (http.CrossOriginProtection: Sec-Fetch-Site, else Origin, when the
//     browser sends them) and carry the session's CSRF token, in the form's
//     csrf field or an X-CSRF-Token header, compared in constant time;
//   - otherwise it is refused, before anything is read or changed: 401 for
//     no user, 403 for a bad token or another origin.
//
// Behind an authenticating reverse proxy, Options.ProxyHeader names the
// header that carries its user; it is believed only on connections from
// Options.TrustedProxies. Such a user's CSRF token is keyed by the server's
// random key, made when it starts.

// sessionCookie holds the session id; signinCookie the sign-in form's own
// CSRF token, before there is a session.
const (
	sessionCookie = "havlak_session"
	signinCookie  = "havlak_signin"
	csrfHeader    = "X-CSRF-Token"
	// maxForm is the largest body a write takes.
	maxForm = 64 << 10
)

// Options are how the dashboard trusts its users.
type Options struct {
	// ReadRequiresSignIn: every page but sign-in's needs a signed-in user.
	ReadRequiresSignIn bool
	// ProxyHeader is the header in which an authenticating reverse proxy
	// names its user, believed only from TrustedProxies ("": none).
	ProxyHeader    string
	TrustedProxies []netip.Prefix
	// SessionTTL is how long a session lasts (0: 12 hours).
	SessionTTL time.Duration
	// Archive is the directory of the nightly job's archive, which holds
	// history.NightsDir (archive.go); "": none is served.
	Archive string
	// Repo is the lab's checkout, which git reads (never writes) for the
	// diff between two results' commits and their source (attribution.go);
	// "": attributions show lines by file:line only.
	Repo string
	// Links make commits, ranges and new issues links to the team's forge.
	Links Links
}

// A viewer is who sends a request: User "" for nobody signed in.
type viewer struct {
	User string
	// CSRF is the token the user's writes must carry; Session the
	// session's id ("" when the proxy signed the user in).
	CSRF    string
	Session string
}

type viewerKey struct{}

// viewerOf is the request's viewer, as ServeHTTP found it.
func viewerOf(r *http.Request) viewer {
	v, _ := r.Context().Value(viewerKey{}).(viewer)
	return v
}

// identify finds who sends r: the trusted proxy's user, else the session
// of r's cookie.
func (s *Server) identify(r *http.Request) viewer {
	if name := r.Header.Get(s.opts.ProxyHeader); s.opts.ProxyHeader != "" && name != "" && s.fromProxy(r) {
		if err := history.CheckUserName(name); err != nil {
			s.logf("%s from the proxy %s: %v", s.opts.ProxyHeader, r.RemoteAddr, err)
			return viewer{}
		}
		mac := hmac.New(sha256.New, s.proxyKey)
		mac.Write([]byte(name))
		return viewer{User: name, CSRF: hex.EncodeToString(mac.Sum(nil))}
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return viewer{}
	}
	session, err := s.db.Session(r.Context(), c.Value)
	if err != nil {
		if !errors.Is(err, history.ErrSignIn) {
			s.logf("reading a session: %v", err)
		}
		return viewer{}
	}
	return viewer{User: session.User, CSRF: csrfOf(c.Value), Session: c.Value}
}

// csrfOf is a session's CSRF token: a hash of its id, which only its
// browser has, so that the server stores nothing more and the token says
// nothing of the id.
func csrfOf(session string) string {
	h := sha256.Sum256([]byte("havlak-lab dashboard csrf\x00" + session))
	return hex.EncodeToString(h[:])
}

// fromProxy tells whether r came over a connection from a trusted proxy.
func (s *Server) fromProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// overTLS tells whether the browser reached the dashboard over TLS: its
// own, or a trusted proxy's that says so.
func (s *Server) overTLS(r *http.Request) bool {
	return r.TLS != nil || s.fromProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func (s *Server) cookie(r *http.Request, name, value, path string, expires time.Time) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: true, Secure: s.overTLS(r),
		SameSite: http.SameSiteStrictMode, Expires: expires}
	if value == "" {
		c.MaxAge = -1
	}
	return c
}

// withViewer is the handler with the request's viewer found, refusing a
// page to nobody when reading requires sign-in.
func (s *Server) withViewer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := s.identify(r)
		r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, v))
		open := r.URL.Path == "/signin" || strings.HasPrefix(r.URL.Path, "/static/") || strings.HasPrefix(r.URL.Path, "/uplot/")
		if s.opts.ReadRequiresSignIn && v.User == "" && !open {
			s.signinPage(w, r, http.StatusUnauthorized, "Reading this dashboard requires signing in.")
			return
		}
		next.ServeHTTP(&viewerWriter{ResponseWriter: w, viewer: v}, r)
	})
}

// A viewerWriter is a response that knows whom it answers, for render.
type viewerWriter struct {
	http.ResponseWriter
	viewer viewer
}

// Unwrap lets http.ResponseController reach the response beneath.
func (w *viewerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// viewerOfWriter is the viewer of the request w answers: nobody for a
// response that did not pass withViewer.
func viewerOfWriter(w http.ResponseWriter) viewer {
	if vw, ok := w.(*viewerWriter); ok {
		return vw.viewer
	}
	return viewer{}
}

// write is a handler of a write: it runs only for a signed-in user whose
// request carries their CSRF token and comes from the dashboard's pages.
func (s *Server) write(h func(http.ResponseWriter, *http.Request, viewer)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		v := viewerOf(r)
		if v.User == "" {
			w.Header().Set("Cache-Control", "no-store")
			s.refuse(w, r, http.StatusUnauthorized, "not signed in: sign in at /signin with the token an admin gave you (dashboard users add NAME); nothing was changed")
			return
		}
		if err := s.origins.Check(r); err != nil {
			s.refuse(w, r, http.StatusForbidden, "refused: "+err.Error()+"; nothing was changed")
			return
		}
		if status, message := readForm(r); status != 0 {
			s.refuse(w, r, status, message)
			return
		}
		token := r.Header.Get(csrfHeader)
		if token == "" {
			token = r.PostFormValue("csrf")
		}
		if subtle.ConstantTimeCompare([]byte(token), []byte(v.CSRF)) != 1 {
			s.refuse(w, r, http.StatusForbidden, "refused: the request's CSRF token is not your session's (reload the page and try again); nothing was changed")
			return
		}
		h(w, r, v)
	}
}

// readForm reads a write's form, its body at most maxForm bytes: a status
// and what to say when it cannot (413 for a body too big, which without
// this check would read as a form with no CSRF token), 0 when it can.
func readForm(r *http.Request) (int, string) {
	err := r.ParseForm()
	if err == nil {
		return 0, ""
	}
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("refused: the request's body is over %d KiB; nothing was changed", maxForm>>10)
	}
	return http.StatusBadRequest, "refused: the request's form could not be read; nothing was changed"
}

// api tells whether r is a script's request (it sends the CSRF token as a
// header), which gets JSON back, not a page.
func api(r *http.Request) bool { return r.Header.Get(csrfHeader) != "" }

// refuse answers a write that is not made: a page, or for a script JSON.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, message string) {
	if api(r) {
		writeJSON(w, status, map[string]string{"error": message})
		return
	}
	if status == http.StatusUnauthorized {
		s.signinPage(w, r, status, message)
		return
	}
	s.fail(w, "alerts", status, message)
}

type signinPage struct {
	Nav     string
	User    string // who is signed in, if anyone
	CSRF    string // the sign-in form's token, or the session's for signing out
	Next    string
	Message string
}

// signinPage shows the sign-in form, with a token of its own (a cookie and
// the form's field, which must match), or who is signed in.
func (s *Server) signinPage(w http.ResponseWriter, r *http.Request, status int, message string) {
	v := viewerOf(r)
	p := signinPage{Nav: "signin", User: v.User, Next: localPath(param(r, "next")), Message: message}
	if p.Next == "" && r.URL.Path != "/signin" && r.Method == http.MethodGet {
		p.Next = r.URL.RequestURI()
	}
	if v.User != "" {
		p.CSRF = v.CSRF
	} else {
		token, err := random()
		if err != nil {
			s.fail(w, "signin", http.StatusInternalServerError, err.Error())
			return
		}
		http.SetCookie(w, s.cookie(r, signinCookie, token, "/signin", time.Now().Add(time.Hour)))
		p.CSRF = token
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, status, "signin", p)
}

// signin signs a user in with their token: a session and its cookie, then
// back to the page they came from.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	w.Header().Set("Cache-Control", "no-store")
	if err := s.origins.Check(r); err != nil {
		s.fail(w, "signin", http.StatusForbidden, "refused: "+err.Error())
		return
	}
	if status, message := readForm(r); status != 0 {
		s.fail(w, "signin", status, message)
		return
	}
	c, err := r.Cookie(signinCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		s.fail(w, "signin", http.StatusForbidden, "refused: the sign-in form's token does not match its cookie (open /signin again)")
		return
	}
	session, id, err := s.db.SignIn(r.Context(), r.PostFormValue("token"), s.ttl())
	if errors.Is(err, history.ErrSignIn) {
		s.signinPage(w, r, http.StatusUnauthorized, "That token signs nobody in.")
		return
	}
	if err != nil {
		s.fail(w, "signin", http.StatusInternalServerError, err.Error())
		return
	}
	http.SetCookie(w, s.cookie(r, signinCookie, "", "/signin", time.Time{}))
	http.SetCookie(w, s.cookie(r, sessionCookie, id, "/", session.Expires))
	next := localPath(r.PostFormValue("next"))
	if next == "" {
		next = "/alerts"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signout ends the session (a write: signed in, with its CSRF token).
func (s *Server) signout(w http.ResponseWriter, r *http.Request, v viewer) {
	if v.Session != "" {
		if err := s.db.SignOut(r.Context(), v.Session); err != nil {
			s.fail(w, "signin", http.StatusInternalServerError, err.Error())
			return
		}
	}
	http.SetCookie(w, s.cookie(r, sessionCookie, "", "/", time.Time{}))
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

func (s *Server) ttl() time.Duration {
	if s.opts.SessionTTL > 0 {
		return s.opts.SessionTTL
	}
	return 12 * time.Hour
}

// localPath is p if it is a path of this site ("/alerts/3"), else "": a
// sign-in never sends the browser elsewhere.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return ""
	}
	return p
}

// random is 32 random bytes, as text.
func random() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
