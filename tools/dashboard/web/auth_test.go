package web

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
)

// A browser of the test: a client with its cookies, not following
// redirects.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newBrowser(t *testing.T, srv *httptest.Server) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: srv.Client().Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{t: t, base: srv.URL, client: client}
}

// do sends a request; form is its body, header its extra headers.
func (b *browser) do(method, path string, form url.Values, header map[string]string) (*http.Response, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return resp, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the page at path.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	_, body := b.do(http.MethodGet, path, nil, nil)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		b.t.Fatalf("%s has no CSRF field:\n%s", path, body)
	}
	return html.UnescapeString(m[1])
}

// signIn signs the browser in with token, as the sign-in form does.
func (b *browser) signIn(token string) *http.Response {
	b.t.Helper()
	resp, body := b.do(http.MethodPost, "/signin", url.Values{"csrf": {b.csrf("/signin")}, "token": {token}, "next": {"/alerts/1"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts/1" {
		b.t.Fatalf("signing in: %s to %q:\n%s", resp.Status, resp.Header.Get("Location"), body)
	}
	return resp
}

// addUser adds a user to db and returns their token.
func addUser(t *testing.T, db *history.DB, name string) string {
	t.Helper()
	token, err := db.AddUser(context.Background(), name, "admin")
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// changes is alert id's record of states.
func changes(t *testing.T, db *history.DB, id int64) []alert.Change {
	t.Helper()
	a, err := db.Alert(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a.Changes
}

// A write without a signed-in user is refused with 401, one without the
// session's CSRF token or from another site with 403, and neither changes
// anything.
func TestWritesNeedSignInAndCSRF(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	before := changes(t, db, 1)
	ack := url.Values{"note": {"known"}}
	anon := newBrowser(t, srv)
	for _, c := range []struct {
		header map[string]string
		json   bool
	}{{nil, false}, {map[string]string{"Cookie": sessionCookie + "=forged"}, false}, {map[string]string{csrfHeader: "x"}, true}} {
		resp, body := anon.do(http.MethodPost, "/alerts/1/ack", ack, c.header)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not signed in") ||
			c.json != (resp.Header.Get("Content-Type") == "application/json") {
			t.Errorf("a write without sign-in (%v): %s %s:\n%s", c.header, resp.Status, resp.Header.Get("Content-Type"), body)
		}
	}

	ann := newBrowser(t, srv)
	ann.signIn(addUser(t, db, "ann"))
	bob := newBrowser(t, srv)
	bob.signIn(addUser(t, db, "bob"))
	annCSRF, bobCSRF := ann.csrf("/alerts/1"), bob.csrf("/alerts/1")
	if annCSRF == bobCSRF {
		t.Fatal("two sessions have the same CSRF token")
	}
	for name, c := range map[string]struct {
		form   url.Values
		header map[string]string
	}{
		"no token":                {url.Values{"note": {"known"}}, nil},
		"a wrong token":           {url.Values{"note": {"known"}, "csrf": {otherLastDigit(annCSRF)}}, nil},
		"another session's token": {url.Values{"note": {"known"}, "csrf": {bobCSRF}}, nil},
		"a wrong header":          {url.Values{"note": {"known"}}, map[string]string{csrfHeader: bobCSRF}},
		"another site's page":     {url.Values{"note": {"known"}, "csrf": {annCSRF}}, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"another origin":          {url.Values{"note": {"known"}, "csrf": {annCSRF}}, map[string]string{"Origin": "https://evil.example"}},
	} {
		resp, body := ann.do(http.MethodPost, "/alerts/1/ack", c.form, c.header)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "nothing was changed") {
			t.Errorf("%s: %s, want 403:\n%s", name, resp.Status, body)
		}
	}
	if resp, _ := ann.do(http.MethodPost, "/signout", url.Values{"csrf": {bobCSRF}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("signing out with another session's token: %s, want 403", resp.Status)
	}
	if after := changes(t, db, 1); len(after) != len(before) {
		t.Fatalf("refused writes changed alert 1: %+v", after)
	}

	// The right token, from the page: made.
	resp, body := ann.do(http.MethodPost, "/alerts/1/ack", url.Values{"note": {"known"}, "csrf": {annCSRF}}, map[string]string{"Sec-Fetch-Site": "same-origin"})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts/1" {
		t.Fatalf("ack with the token: %s:\n%s", resp.Status, body)
	}
	if after := changes(t, db, 1); len(after) != len(before)+1 || after[len(after)-1].By != "ann" || after[len(after)-1].State != alert.Acknowledged {
		t.Errorf("after ann's ack: %+v", after)
	}
	// Signed out, the session and its token are gone.
	if resp, _ := ann.do(http.MethodPost, "/signout", url.Values{"csrf": {annCSRF}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signing out: %s", resp.Status)
	}
	if resp, _ := ann.do(http.MethodPost, "/alerts/1/fix", url.Values{"csrf": {annCSRF}}, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a write after signing out: %s, want 401", resp.Status)
	}
}

// Signing in: a wrong token is refused, the form's own token must match
// its cookie, the session's cookie is HttpOnly, SameSite=Strict, and
// Secure over TLS; a sign-in never leaves the site.
func TestSignIn(t *testing.T) {
	db, _ := testHistory(t)
	token := addUser(t, db, "ann")
	srv := serve(t, db)
	b := newBrowser(t, srv)
	if resp, body := b.do(http.MethodPost, "/signin", url.Values{"csrf": {b.csrf("/signin")}, "token": {token + "x"}}, nil); resp.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(body, "That token signs nobody in.") {
		t.Errorf("a wrong token: %s:\n%s", resp.Status, body)
	}
	if resp, _ := b.do(http.MethodPost, "/signin", url.Values{"csrf": {"forged"}, "token": {token}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a sign-in without the form's token: %s, want 403", resp.Status)
	}
	resp, _ := b.do(http.MethodPost, "/signin", url.Values{"csrf": {b.csrf("/signin")}, "token": {token}, "next": {"//evil.example/x"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts" {
		t.Errorf("next=//evil.example/x: %s to %q, want /alerts", resp.Status, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Secure || session.Value == token {
		t.Errorf("the session's cookie over HTTP: %+v", session)
	}
	if _, body := b.do(http.MethodGet, "/signin", nil, nil); !strings.Contains(body, `<span id="signed-in">ann</span>`) {
		t.Errorf("/signin does not say who is signed in:\n%s", body)
	}

	s, err := New(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv := httptest.NewTLSServer(s)
	defer tlsSrv.Close()
	tb := newBrowser(t, tlsSrv)
	for _, c := range tb.signIn(token).Cookies() {
		if c.Name == sessionCookie && (!c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode) {
			t.Errorf("the session's cookie over TLS: %+v, want Secure", c)
		}
	}
}

// Triage from the dashboard goes through tools/alert's rules and leaves
// the same record as history alerts: by the signed-in user, with the
// note; what the rules refuse is said and changes nothing.
func TestTriage(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	ann := newBrowser(t, srv)
	ann.signIn(addUser(t, db, "ann"))
	csrf := ann.csrf("/alerts/1")
	for _, c := range []struct {
		path   string
		form   url.Values
		status int
		says   string
	}{
		{"/alerts/1/ack", url.Values{}, http.StatusBadRequest, "ack needs a note or an issue link"},
		{"/alerts/1/ignore", url.Values{"note": {"x"}}, http.StatusBadRequest, "ignore needs a reason"},
		{"/alerts/1/ack", url.Values{"issue": {"javascript:alert(1)"}}, http.StatusBadRequest, "want the issue&#39;s http(s) link"},
		{"/alerts/1/reopen", url.Values{}, http.StatusConflict, "not allowed in its state"},
		{"/alerts/2/accept", url.Values{"reason": {"r"}}, http.StatusConflict, "only a change of level"},
		{"/alerts/1/close", url.Values{}, http.StatusNotFound, `action &#34;close&#34;`},
		{"/alerts/9/fix", url.Values{}, http.StatusNotFound, "no alert 9"},
		{"/alerts/1/ack", url.Values{"note": {"n"}, "seen": {"0"}}, http.StatusConflict, "changed since it was shown: it is new now (by nightly"},
	} {
		c.form.Set("csrf", csrf)
		resp, body := ann.do(http.MethodPost, c.path, c.form, nil)
		if resp.StatusCode != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s %v: %s, want %d saying %q:\n%s", c.path, c.form, resp.Status, c.status, c.says, body)
		}
	}
	if got := changes(t, db, 1); len(got) != 1 {
		t.Fatalf("refused changes changed alert 1: %+v", got)
	}
	hostileNote := `<script>alert(1)</script>`
	resp, body := ann.do(http.MethodPost, "/alerts/1/ack", url.Values{"csrf": {csrf}, "seen": {"1"}, "note": {hostileNote},
		"issue": {"https://example.com/issues/7"}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("ack: %s:\n%s", resp.Status, body)
	}
	got := changes(t, db, 1)
	if c := got[len(got)-1]; len(got) != 2 || c.State != alert.Acknowledged || c.By != "ann" || c.Note != hostileNote || c.Issue != "https://example.com/issues/7" {
		t.Errorf("the record after the ack: %+v", got)
	}
	_, page := ann.do(http.MethodGet, "/alerts/1", nil, nil)
	for _, want := range []string{`<span id="alert-state" class="state">acknowledged</span>`, `<td class="by">ann</td>`,
		`&lt;script&gt;alert(1)&lt;/script&gt; <a href="https://example.com/issues/7"`, `<td class="by">nightly</td>`,
		`id="action-fix"`, `name="seen" value="2"`, "1 → 1.5 s"} {
		if !strings.Contains(page, want) {
			t.Errorf("alert 1's page lacks %s", want)
		}
	}
	if strings.Contains(page, hostileNote) || strings.Contains(page, `id="action-reopen"`) != true {
		t.Errorf("alert 1's page: the note as markup, or no reopen")
	}
	// A script's write: the token in a header, the alert back as JSON.
	resp, body = ann.do(http.MethodPost, "/alerts/1/fix", url.Values{"note": {"reverted"}}, map[string]string{csrfHeader: csrf})
	var a alert.Alert
	if err := json.Unmarshal([]byte(body), &a); resp.StatusCode != http.StatusOK || err != nil || a.State() != alert.Fixed || a.Current().By != "ann" {
		t.Errorf("fix by a script: %s %v: %s", resp.Status, err, body)
	}
	// Nobody signed in sees the alert and no form.
	_, page = newBrowser(t, srv).do(http.MethodGet, "/alerts/1", nil, nil)
	if strings.Contains(page, `name="csrf"`) || !strings.Contains(page, `<a id="signin-link" href="/signin?next=%2Falerts%2F1">`) {
		t.Errorf("alert 1's page to nobody: forms, or no sign-in link:\n%s", page)
	}
}

// Two people triaging one alert at once, each with their session: one
// consistent state. Each saw the alert new: one change is made, the other
// refused (409) and not recorded. Asked without what they saw, both are
// judged by the state machine one after the other.
func TestConcurrentTriage(t *testing.T) {
	db, _ := testHistory(t)
	srv := serve(t, db)
	ann, bob := newBrowser(t, srv), newBrowser(t, srv)
	ann.signIn(addUser(t, db, "ann"))
	bob.signIn(addUser(t, db, "bob"))
	annCSRF, bobCSRF := ann.csrf("/alerts/1"), bob.csrf("/alerts/1")
	race := func(a, b url.Values) (int, int) {
		var wg sync.WaitGroup
		var sa, sb int
		wg.Add(2)
		go func() {
			defer wg.Done()
			resp, _ := ann.do(http.MethodPost, "/alerts/1/"+a.Get("action"), a, nil)
			sa = resp.StatusCode
		}()
		go func() {
			defer wg.Done()
			resp, _ := bob.do(http.MethodPost, "/alerts/1/"+b.Get("action"), b, nil)
			sb = resp.StatusCode
		}()
		wg.Wait()
		return sa, sb
	}
	sa, sb := race(url.Values{"action": {"ignore"}, "reason": {"noise"}, "seen": {"1"}, "csrf": {annCSRF}},
		url.Values{"action": {"accept"}, "reason": {"intended"}, "seen": {"1"}, "csrf": {bobCSRF}})
	got := changes(t, db, 1)
	switch {
	case sa == http.StatusSeeOther && sb == http.StatusConflict:
		if len(got) != 2 || got[1].By != "ann" || got[1].State != alert.Ignored {
			t.Errorf("ann's ignore made, bob's accept refused; the record: %+v", got)
		}
	case sa == http.StatusConflict && sb == http.StatusSeeOther:
		if len(got) != 2 || got[1].By != "bob" || got[1].State != alert.Accepted {
			t.Errorf("bob's accept made, ann's ignore refused; the record: %+v", got)
		}
	default:
		t.Fatalf("ignore and accept of what each saw, at once: %d and %d, want one 303 and one 409", sa, sb)
	}
	// Without what they saw: reopened twice at once is one reopen and a
	// refusal (new may not become new), whatever the order.
	sa, sb = race(url.Values{"action": {"reopen"}, "csrf": {annCSRF}}, url.Values{"action": {"reopen"}, "csrf": {bobCSRF}})
	if after := changes(t, db, 1); len(after) != 3 || after[2].State != alert.New || sa+sb != http.StatusSeeOther+http.StatusConflict {
		t.Errorf("two reopens at once: %d and %d; the record: %+v", sa, sb, after)
	}
}

// Reading can require sign-in; a trusted proxy's user header is believed
// from the proxy's address only, and its user's writes need their CSRF
// token too.
func TestReadRequiresSignInAndProxy(t *testing.T) {
	db, _ := testHistory(t)
	token := addUser(t, db, "ann")
	s, err := New(db, Options{ReadRequiresSignIn: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	b := newBrowser(t, srv)
	for path, want := range map[string]int{"/alerts": 401, "/alerts/1": 401, "/api/series": 401, "/series": 401, "/signin": 200, "/static/dashboard.css": 200} {
		if resp, body := b.do(http.MethodGet, path, nil, nil); resp.StatusCode != want || want == 401 && !strings.Contains(body, `id="signin"`) {
			t.Errorf("%s, not signed in: %s, want %d (the sign-in form)", path, resp.Status, want)
		}
	}
	b.signIn(token)
	if resp, _ := b.do(http.MethodGet, "/alerts", nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/alerts signed in: %s", resp.Status)
	}

	for _, c := range []struct {
		trusted string
		user    string
	}{{"127.0.0.0/8", "carol"}, {"10.0.0.0/8", ""}} {
		s, err := New(db, Options{ProxyHeader: "X-Remote-User", TrustedProxies: []netip.Prefix{netip.MustParsePrefix(c.trusted)}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(s)
		defer srv.Close()
		p := newBrowser(t, srv)
		as := map[string]string{"X-Remote-User": "carol"}
		_, page := p.do(http.MethodGet, "/alerts/2", nil, as)
		m := csrfField.FindStringSubmatch(page)
		if (m != nil) != (c.user != "") {
			t.Errorf("proxy %s: the page's forms for the header's user: %v, want %v", c.trusted, m != nil, c.user != "")
			continue
		}
		if m == nil {
			if resp, _ := p.do(http.MethodPost, "/alerts/2/fix", url.Values{"csrf": {"x"}}, as); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("the header from an untrusted address: %s, want 401", resp.Status)
			}
			continue
		}
		if resp, _ := p.do(http.MethodPost, "/alerts/2/fix", url.Values{}, as); resp.StatusCode != http.StatusForbidden {
			t.Errorf("the proxy's user without the CSRF token: %s, want 403", resp.Status)
		}
		if resp, body := p.do(http.MethodPost, "/alerts/2/fix", url.Values{"csrf": {html.UnescapeString(m[1])}, "note": {"gone"}}, as); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("the proxy's user's fix: %s:\n%s", resp.Status, body)
		}
		if got := changes(t, db, 2); got[len(got)-1].By != "carol" || got[len(got)-1].State != alert.Fixed {
			t.Errorf("the proxy's user's fix: %+v", got)
		}
	}
}

// otherLastDigit is token with its last hex digit changed: a token one
// digit off, never the token itself (replacing the digit with a fixed one
// would give the token back whenever it already ended in that digit).
func otherLastDigit(token string) string {
	last := "0"
	if strings.HasSuffix(token, last) {
		last = "1"
	}
	return token[:len(token)-1] + last
}
