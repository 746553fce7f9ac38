package summary

import (
	"fmt"
	"net/url"
	"strings"

	"havlak-lab/internal/markdown"
)

// DashboardEnv names the environment variable that gives the commands
// which write a comparison (the perf check, the nightly job) the
// dashboard's address (tools/dashboard), when their --dashboard flag does
// not: their rows then link to its compare page.
const DashboardEnv = "HAVLAK_LAB_DASHBOARD"

// ParseDashboard checks a dashboard's address: an http or https URL with
// a host, no user, query or fragment (a compare page's query is the
// link's own). "" is no dashboard.
func ParseDashboard(address string) (*url.URL, error) {
	if address == "" {
		return nil, nil
	}
	u, err := url.Parse(address)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the dashboard's address %q: %w", address, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("the dashboard's address %q: want http://HOST[:PORT][/PATH] or https://…", address)
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("the dashboard's address %q: want no user, query or fragment", address)
	}
	return u, nil
}

// A Pair is the two commits a comparison compared, and the dashboard that
// can show them side by side.
type Pair struct {
	// Dashboard is the dashboard's address (ParseDashboard), nil for
	// none.
	Dashboard *url.URL
	// Base and Change are the commits compared: the baseline's (or the
	// change's base) and tonight's (or the change's).
	Base, Change string
}

// CompareURL is the dashboard's compare page of the pair,
// DASHBOARD/compare?a=BASE&b=CHANGE, or "" without a dashboard or
// without either commit.
func (p Pair) CompareURL() string {
	if p.Dashboard == nil || p.Base == "" || p.Change == "" {
		return ""
	}
	u := *p.Dashboard
	u.Path = strings.TrimSuffix(u.Path, "/") + "/compare"
	u.RawPath = ""
	u.RawQuery = url.Values{"a": {p.Base}, "b": {p.Change}}.Encode()
	return u.String()
}

// linkParens are what could end a Markdown link's destination early:
// url.URL keeps parentheses in a path.
var linkParens = strings.NewReplacer("(", "%28", ")", "%29")

// Link is text (escaped here) as a Markdown link to the pair's compare
// page, or text alone when there is none.
func (p Pair) Link(text string) string {
	target := p.CompareURL()
	if target == "" {
		return markdown.Escape(text)
	}
	return "[" + markdown.Escape(text) + "](" + linkParens.Replace(target) + ")"
}
