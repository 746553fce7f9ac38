package markdown

import (
	"strings"
	"testing"
	"unicode"
)

// raw reports whether text holds a control character or a bidi control.
func raw(text string) bool {
	return strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) >= 0
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"havlak6":                      "havlak6",
		"C++":                          "C++",
		"wc_w":                         "wc_w",
		"a|b":                          `a\|b`,
		"<img src=x onerror=alert(1)>": `\<img src=x onerror=alert(1)\>`,
		"[link](javascript:x)":         `\[link\](javascript:x)`,
		"two\nlines\x1b[2J":            `two lines\\x1b\[2J`,
		"\x1b]0;title\a":               `\\x1b\]0;title\\a`,
		"\u009b2J \u202etxt.exe \xff":  `\\u009b2J \\u202etxt.exe \\xff`,
		"a\\b":                         `a\\b`,
		"&lt;":                         `\&lt;`,
	} {
		if got := Escape(in); got != want || raw(got) {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"main.find":                            "`main.find`",
		"a`b":                                  "``a`b``",
		"`x":                                   "`` `x ``",
		"f(a|b)":                               "`f(a\\|b)`",
		"two\nlines\x1b[2J \u009b \u202e \xff": "`two lines\\x1b[2J \\u009b \\u202e \\xff`",
	} {
		if got := Code(in); got != want || raw(got) {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

// A code block holds its lines as they are, one a line: no run of
// backticks closes it, no line break or escape sequence gets through.
func TestCodeBlock(t *testing.T) {
	got := CodeBlock([]string{"\tfor i := range n {", "x := \"```\" // </details><script>alert(1)</script>", "two\nlines\r\x1b[2J \u202e", "| a | b |"})
	want := "````\n    for i := range n {\nx := \"```\" // </details><script>alert(1)</script>\ntwo lines \\x1b[2J \\u202e\n| a | b |\n````\n"
	if got != want || raw(strings.ReplaceAll(got, "\n", "")) {
		t.Errorf("CodeBlock = %q, want %q", got, want)
	}
	if got := CodeBlock([]string{"plain"}); got != "```\nplain\n```\n" {
		t.Errorf("CodeBlock(plain) = %q", got)
	}
}
