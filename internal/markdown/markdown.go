// Package markdown makes text from results safe to put in Markdown: the
// lab's annotations and reports are Markdown, and a result is untrusted
// input (a pull request's, say).
package markdown

import "strings"

// Escape makes text inert in Markdown, and in the HTML that Markdown
// passes through: table cells, emphasis, code, links, tags and entities
// are escaped, line breaks become spaces, other control characters go.
// Underscores stay: names are snake_case, and inside a word GitHub's
// Markdown takes them as they are.
func Escape(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < ' ' || r == 0x7f:
			// Control characters: dropped.
		case strings.ContainsRune("\\`*[]<>|&", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code is text as inline code: `text`, with a fence longer than any run
// of backticks inside it, and table pipes escaped.
func Code(text string) string {
	text = strings.NewReplacer("\n", " ", "\r", " ", "|", `\|`).Replace(text)
	fence := "`"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		text = " " + text + " "
	}
	return fence + text + fence
}
