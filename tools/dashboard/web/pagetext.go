package web

import (
	"bytes"
	"regexp"
	"strings"

	"havlak-lab/internal/cli"
)

// A page's text on its way out. html/template keeps every string of a
// result from being markup, not from how it shows: a bidi control in a
// benchmark's name (U+202E) reverses the page's text after it, an
// invisible one makes a name read as another. So the text of every page
// the dashboard makes, and of a night's report it serves, goes out
// through cli.Printable, the lab's one rule of what does not show as
// itself, as a terminal's output does (cli.Terminal): such a character
// shows as its escape, \u202e. Where that happens, at the page's bytes
// rather than at each field of each template, no field is forgotten.
//
// For a reader not signed in, the same pass hides the server's paths
// (hideServerPaths): a path in a message or a report, whoever wrote it,
// shows as readerPath shows it.

// pageText is page, HTML (or SVG), with fix applied to its text: what
// lies between its tags, but not inside a script, style or textarea
// element (code, or a form's value) nor a comment. Tags and their
// attributes are left as they are: an option's value names a series as
// the history has it, and the browser shows no attribute as the page's
// text.
func pageText(page []byte, fix func(string) string) []byte {
	var out bytes.Buffer
	out.Grow(len(page))
	for len(page) > 0 {
		text := bytes.IndexByte(page, '<')
		if text < 0 {
			text = len(page)
		}
		out.WriteString(fix(string(page[:text])))
		page = page[text:]
		n := markupLen(page)
		out.Write(page[:n])
		page = page[n:]
	}
	return out.Bytes()
}

// markupLen is how long the markup at the start of page is (0 for
// none): a comment; a tag, whose quoted attribute values may hold '>';
// and after the start tag of a script, style or textarea element, its
// content, up to its end tag.
func markupLen(page []byte) int {
	switch {
	case len(page) == 0:
		return 0
	case bytes.HasPrefix(page, []byte("<!--")):
		if end := bytes.Index(page, []byte("-->")); end >= 0 {
			return end + len("-->")
		}
		return len(page)
	}
	n := tagLen(page)
	switch name := tagName(page[:n]); name {
	case "script", "style", "textarea":
		if end := bytes.Index(bytes.ToLower(page[n:]), []byte("</"+name)); end >= 0 {
			return n + end
		}
		return len(page)
	}
	return n
}

// tagLen is how long the tag at the start of page is: up to its '>'
// outside quotes, or all of page.
func tagLen(page []byte) int {
	var quote byte
	for i := 1; i < len(page); i++ {
		switch c := page[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		}
	}
	return len(page)
}

// tagName is the name of a start tag, lower case: "script" of
// <script src=...>; "" for an end tag or anything else.
func tagName(tag []byte) string {
	end := 1
	for end < len(tag) && (tag[end] >= 'a' && tag[end] <= 'z' || tag[end] >= 'A' && tag[end] <= 'Z' || tag[end] >= '0' && tag[end] <= '9') {
		end++
	}
	return strings.ToLower(string(tag[1:end]))
}

// absolutePath finds what reads as an absolute path of at least two
// names (/var/lab/history) after a space, a quote, a bracket or a
// separator: not a URL's (https://host/a/b, a relative link's
// stages/havlak6), nor a unit's (requests/s).
var absolutePath = regexp.MustCompile(`(?:^|[\s"'(\[{=,;:>])/[\w.+@~%-]+(?:/[\w.+@~%-]*)+`)

// hideServerPaths is text with every absolute path in it as readerPath
// shows it to a reader not signed in: from the archive's nights/NIGHT/
// on, else only its last name (.../nightly-baseline).
func hideServerPaths(text string) string {
	return absolutePath.ReplaceAllStringFunc(text, func(m string) string {
		before, p := "", m
		if m[0] != '/' {
			before, p = m[:1], m[1:]
		}
		return before + readerPath(viewer{}, p)
	})
}

// textFix is what a page's text goes through for reader v: every
// character that does not show as itself as its escape, and, unless v
// is signed in, the server's paths hidden.
func textFix(v viewer) func(string) string {
	if v.User != "" {
		return cli.Printable
	}
	return func(text string) string { return hideServerPaths(cli.Printable(text)) }
}
