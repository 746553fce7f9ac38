package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseFlags(t *testing.T) {
	for _, c := range []struct {
		args      []string
		help, bad bool
	}{
		{args: []string{"-n=3"}},
		{args: []string{"-h"}, help: true},
		{args: []string{"-help"}, help: true},
		{args: []string{"-nosuchflag"}, bad: true},
		{args: []string{"-n=x"}, bad: true},
	} {
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 1, "a number")
		help, err := ParseFlags(fs, c.args)
		if help != c.help {
			t.Errorf("%q: help %v, want %v", c.args, help, c.help)
		}
		if bad := errors.As(err, new(UsageError)); bad != c.bad || (err != nil && !bad) {
			t.Errorf("%q: error %v, want a UsageError: %v", c.args, err, c.bad)
		}
	}
}

func TestReport(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		said   string
	}{
		{nil, 0, ""},
		{Usagef("-n=%d: too small", 0), 2, "prog: -n=0: too small\n"},
		{fmt.Errorf("reading x: %w", Usagef("x:3: bad line")), 2, "prog: reading x: x:3: bad line\n"},
		{errors.New("disk full"), 1, "prog: disk full\n"},
		{ExitError{Status: 3}, 3, ""},
	} {
		var stderr strings.Builder
		if got := Report(&stderr, "prog", c.err); got != c.status || stderr.String() != c.said {
			t.Errorf("Report(%v) = %d, said %q; want %d, %q", c.err, got, stderr.String(), c.status, c.said)
		}
	}
}

func TestUserPath(t *testing.T) {
	t.Setenv("BUILD_WORKING_DIRECTORY", "/home/me/src")
	if got := UserPath("out/x.json"); got != "/home/me/src/out/x.json" {
		t.Errorf("UserPath(relative) = %q", got)
	}
	if got := UserPath("/tmp/x"); got != "/tmp/x" {
		t.Errorf("UserPath(absolute) = %q", got)
	}
	t.Setenv("BUILD_WORKING_DIRECTORY", "")
	if got := UserPath("x"); got != "x" {
		t.Errorf("UserPath without bazel run = %q", got)
	}
}

// hostile is text from a result that would drive a terminal: ESC
// sequences that clear the screen and retitle the window, the one-byte
// C1 CSI, a bidi override, an invalid byte and a line break.
const hostile = "a\x1b[2J\x1b]0;pwned\a \u009b31m \u202egnp.exe \xff\nb\tc"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"havlak6":                            "havlak6",
		"a\x1b]0;pwned\a b":                  `a\x1b]0;pwned\a b`,
		"two\nlines\tand a tab":              "two\nlines\tand a tab",
		"bad \xff byte, fine é":              `bad \xff byte, fine é`,
		"\u009b31m (C1 CSI)":                 `\u009b31m (C1 CSI)`,
		"carriage\rreturn":                   `carriage\rreturn`,
		"\u202egnp.exe":                      `\u202egnp.exe`,
		"\u2066 \u2069 \u200e \u200f \u061c": `\u2066 \u2069 \u200e \u200f \u061c`,
		"\u0085 next line, \u009f":           `\u0085 next line, \u009f`,
		"zero\u200bwidth, soft\u00adhyphen":  `zero\u200bwidth, soft\u00adhyphen`,
		"tag \U000E0041":                     `tag \udb40\udc41`,
		"U+FFFD \uFFFD stays":                "U+FFFD \uFFFD stays",
		hostile:                              "a\\x1b[2J\\x1b]0;pwned\\a \\u009b31m \\u202egnp.exe \\xff\nb\tc",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestField(t *testing.T) {
	for in, want := range map[string]string{
		"havlak6 real_seconds": "havlak6 real_seconds",
		"two\nlines\r\n":       `two\nlines\r\n`,
		"a\tb":                 `a\tb`,
		hostile:                `a\x1b[2J\x1b]0;pwned\a \u009b31m \u202egnp.exe \xff\nb\tc`,
	} {
		if got := Field(in); got != want {
			t.Errorf("Field(%q) = %q, want %q", in, got, want)
		}
	}
}

// unsafe reports the first rune of text a terminal would not show as
// itself, but newline and tab.
func unsafe(text string) (rune, bool) {
	for _, r := range text {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) || r == utf8.RuneError {
			return r, true
		}
	}
	return 0, false
}

func TestTerminal(t *testing.T) {
	text := "table\n  x\ty\n" + hostile + " é\u202e€𝄞\n"
	want := Printable(text)
	// Written whole, and cut at every byte: a character split between two
	// writes is written whole, never as escaped bytes.
	for cut := 0; cut <= len(text); cut++ {
		var b strings.Builder
		w := Terminal(&b)
		for _, part := range []string{text[:cut], text[cut:]} {
			if n, err := io.WriteString(w, part); n != len(part) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", part, n, err)
			}
		}
		if b.String() != want {
			t.Errorf("cut at %d: wrote %q, want %q", cut, b.String(), want)
		}
		if r, bad := unsafe(b.String()); bad {
			t.Errorf("cut at %d: wrote %U raw", cut, r)
		}
	}
	// Byte by byte.
	var b strings.Builder
	w := Terminal(&b)
	for i := range len(text) {
		w.Write([]byte{text[i]})
	}
	if b.String() != want {
		t.Errorf("byte by byte: wrote %q, want %q", b.String(), want)
	}
	// JSON keeps its meaning: the \u escapes are JSON's, a tag
	// character's (above U+FFFF) too.
	name := hostile + " \U000E0041\u200b"
	doc, _ := json.Marshal(map[string]string{"name": name})
	b.Reset()
	Terminal(&b).Write(doc)
	var back map[string]string
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back["name"] != strings.ToValidUTF8(name, "\uFFFD") {
		t.Errorf("JSON through Terminal: %s: %q, %v", b.String(), back["name"], err)
	}
}

func TestReportIsPrintable(t *testing.T) {
	var stderr strings.Builder
	Report(&stderr, "prog", errors.New("metric "+hostile))
	if r, bad := unsafe(stderr.String()); bad {
		t.Errorf("Report wrote %U raw: %q", r, stderr.String())
	}
}
