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

// CodeBlock is lines as a fenced code block, ending in a newline: its
// fence of backticks longer than any run of them inside, so that no line
// ends it; each line one line (line breaks become spaces, a tab four
// spaces); and what would not show as itself shown as cli.Field shows it.
// Inside, nothing is Markdown or HTML.
func CodeBlock(lines []string) string {
	var body strings.Builder
	longest := 0
	for _, line := range lines {
		line = cli.Field(strings.ReplaceAll(blockBreaks.Replace(line), "\t", "    "))
		run := 0
		for _, r := range line {
			if r != '`' {
				run = 0
				continue
			}
			run++
			longest = max(longest, run)
		}
		body.WriteString(line + "\n")
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + body.String() + fence + "\n"
}

// blockBreaks become spaces: a line of a code block is one line.
var blockBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
