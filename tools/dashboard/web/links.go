package web

import (
	"fmt"
	"net/url"
	"strings"
)

// Links are the templates of the addresses outside the dashboard that its
// pages link to: a commit, a range of commits and a new issue on the
// team's forge. Each is "" (no link: the page prints the text alone) or
// an absolute http(s) URL with its placeholders, which the pages fill with
// path-escaped values: a commit from the history is untrusted text.
type Links struct {
	// Commit holds {commit}: https://host/org/repo/commit/{commit}.
	Commit string
	// Range holds {base} and {change}:
	// https://host/org/repo/compare/{base}...{change}.
	Range string
	// Issue holds {title}, filled query-escaped:
	// https://host/org/repo/issues/new?title={title}.
	Issue string
}

// The placeholders each template must hold.
var linkPlaceholders = map[string][]string{
	"commit": {"{commit}"},
	"range":  {"{base}", "{change}"},
	"issue":  {"{title}"},
}

// CheckLinkTemplate says what is wrong with a link template of kind
// ("commit", "range" or "issue"), or nil: "" is allowed (no links).
func CheckLinkTemplate(kind, template string) error {
	if template == "" {
		return nil
	}
	wants, ok := linkPlaceholders[kind]
	if !ok {
		return fmt.Errorf("no link template of kind %q", kind)
	}
	u, err := url.Parse(template)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q: want an absolute http or https URL", template)
	}
	for _, want := range wants {
		if !strings.Contains(template, want) {
			return fmt.Errorf("%q: want %s in it", template, strings.Join(wants, " and "))
		}
	}
	return nil
}

// fill is template with each placeholder replaced by its value, escaped by
// escape; "" when there is no template or a value is empty.
func fill(template string, escape func(string) string, pairs ...string) string {
	if template == "" {
		return ""
	}
	args := make([]string, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return ""
		}
		args = append(args, pairs[i], escape(pairs[i+1]))
	}
	return strings.NewReplacer(args...).Replace(template)
}

// CommitURL is the forge's page of commit, or "".
func (l Links) CommitURL(commit string) string {
	return fill(l.Commit, url.PathEscape, "{commit}", commit)
}

// RangeURL is the forge's comparison of base with change, or "".
func (l Links) RangeURL(base, change string) string {
	return fill(l.Range, url.PathEscape, "{base}", base, "{change}", change)
}

// IssueURL opens a new issue titled title on the forge, or is "".
func (l Links) IssueURL(title string) string {
	return fill(l.Issue, url.QueryEscape, "{title}", title)
}
