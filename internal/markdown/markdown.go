// Package markdown makes text from results safe to put in Markdown: the
// lab's annotations and reports are Markdown, and a result is untrusted
// input (a pull request's, say).
package markdown

import (
	"strings"

	"havlak-lab/internal/cli"
)

// Escape makes text inert in Markdown, and in the HTML that Markdown
// passes through: table cells, emphasis, code, links, tags and entities
// are escaped, line breaks become spaces, and what would not show as
// itself (a control character such as ESC or the C1 CSI U+009B, a bidi
// override such as U+202E, an invalid byte) is shown as cli.Field shows
// it on a terminal: \x1b, \u202e. Underscores stay: names are snake_case,
// and inside a word GitHub's Markdown takes them as they are.
func Escape(text string) string {
	var b strings.Builder
	for _, r := range cli.Field(lineBreaks.Replace(text)) {
		// Field's escapes start with a backslash, which is escaped here
		// and so shows.
		if strings.ContainsRune("\\`*[]<>|&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lineBreaks become spaces: a cell of a table is one line.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// Code is text as inline code: `text`, with a fence longer than any run
// of backticks inside it, table pipes escaped, and what would not show as
// itself shown as cli.Field shows it (inside code, a backslash is itself).
func Code(text string) string {
	text = strings.ReplaceAll(cli.Field(lineBreaks.Replace(text)), "|", `\|`)
	fence := "`"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		text = " " + text + " "
	}
	return fence + text + fence
}
