package markdown

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"havlak6":                      "havlak6",
		"C++":                          "C++",
		"wc_w":                         "wc_w",
		"a|b":                          `a\|b`,
		"<img src=x onerror=alert(1)>": `\<img src=x onerror=alert(1)\>`,
		"[link](javascript:x)":         `\[link\](javascript:x)`,
		"two\nlines\x1b[2J":            `two lines\[2J`,
		"&lt;":                         `\&lt;`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"main.find": "`main.find`",
		"a`b":       "``a`b``",
		"`x":        "`` `x ``",
		"f(a|b)":    "`f(a\\|b)`",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}
