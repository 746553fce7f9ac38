package web

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckLinkTemplate(t *testing.T) {
	for _, c := range []struct {
		kind, template string
		ok             bool
	}{
		{"commit", "", true},
		{"commit", "https://forge.example/org/repo/commit/{commit}", true},
		{"range", "https://forge.example/org/repo/compare/{base}...{change}", true},
		{"issue", "https://forge.example/org/repo/issues/new?title={title}", true},
		{"commit", "https://forge.example/org/repo/commit/", false},          // no placeholder
		{"range", "https://forge.example/org/repo/compare/{base}...", false}, // one of two
		{"commit", "javascript:alert(1)//{commit}", false},
		{"commit", "/commit/{commit}", false}, // not absolute
		{"commit", "ftp://forge.example/{commit}", false},
		{"nightly", "https://forge.example/{commit}", false},
	} {
		if err := CheckLinkTemplate(c.kind, c.template); (err == nil) != c.ok {
			t.Errorf("CheckLinkTemplate(%q, %q) = %v, want ok %v", c.kind, c.template, err, c.ok)
		}
	}
}

// A commit or title from the history fills its template escaped: it can
// add no path segment, query or fragment of its own.
func TestLinksEscapeWhatTheyFill(t *testing.T) {
	l := Links{Commit: "https://forge.example/r/commit/{commit}", Range: "https://forge.example/r/compare/{base}...{change}",
		Issue: "https://forge.example/r/issues/new?title={title}"}
	for _, c := range []struct{ got, want string }{
		{l.CommitURL("3f2a9c1e07"), "https://forge.example/r/commit/3f2a9c1e07"},
		{l.CommitURL("../x?y#z"), "https://forge.example/r/commit/..%2Fx%3Fy%23z"},
		{l.RangeURL("aaa", "bbb"), "https://forge.example/r/compare/aaa...bbb"},
		{l.IssueURL("havlak6 +5% & more"), "https://forge.example/r/issues/new?title=havlak6+%2B5%25+%26+more"},
		{l.RangeURL("", "bbb"), ""},
		{Links{}.CommitURL("3f2a9c1e07"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// With --commit-url and --range-url, an alert's page links its range and
// its commits to the forge; without them it prints them as text.
func TestAlertPageLinksToTheForge(t *testing.T) {
	db, _ := testHistory(t)
	s, err := New(db, Options{Archive: filepath.Dir(db.Name()), Links: Links{
		Commit: "https://forge.example/r/commit/{commit}", Range: "https://forge.example/r/compare/{base}...{change}"}})
	if err != nil {
		t.Fatal(err)
	}
	linked := httptest.NewServer(s)
	defer linked.Close()
	from, to := commitOf(nights-2), commitOf(nights-1)
	_, body := get(t, linked.URL, "/alerts/1")
	for _, want := range []string{
		`<a class="commit" href="https://forge.example/r/commit/` + to + `"`,
		`<a class="range" href="https://forge.example/r/compare/` + from + `...` + to + `"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the alert's page lacks %s", want)
		}
	}
	_, plain := get(t, serve(t, db).URL, "/alerts/1")
	if strings.Contains(plain, "forge.example") || strings.Contains(plain, `<a class="commit"`) || !strings.Contains(plain, `<span class="commit">`+to[:10]) {
		t.Errorf("without templates, the alert's page still links its commits or lost them")
	}
}
