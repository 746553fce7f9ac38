package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
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

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"havlak6":               "havlak6",
		"a\x1b]0;pwned\a b":     `a\x1b]0;pwned\a b`,
		"two\nlines\tand a tab": "two\nlines\tand a tab",
		"bad \xff byte, fine é": `bad \xff byte, fine é`,
		"\u009b31m (C1 CSI)":    `\u009b31m (C1 CSI)`,
		"carriage\rreturn":      `carriage\rreturn`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
