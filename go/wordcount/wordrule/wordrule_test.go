package wordrule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/go/wordcount/wctest"
)

// countString applies the rule the way every stage does.
func countString(s string) int {
	words, inWord := 0, false
	for i := 0; i < len(s); i++ {
		switch Of(s[i]) {
		case Space:
			inWord = false
		case Graphic:
			if !inWord {
				words++
				inWord = true
			}
		}
	}
	return words
}

func TestClasses(t *testing.T) {
	for b := 0; b < 256; b++ {
		want := Transparent
		switch {
		case strings.IndexByte(" \t\n\v\f\r", byte(b)) >= 0:
			want = Space
		case b > ' ' && b < 0x7f:
			want = Graphic
		}
		if got := Of(byte(b)); got != want {
			t.Errorf("Of(%#02x) = %d, want %d", b, got, want)
		}
	}
}

// The counts GNU coreutils 9.1 `LC_ALL=C wc -w` gives for these inputs,
// checked by hand on the lab's machine; the wordcount stages' tests compare
// with the real wc on many more.
var knownCounts = []struct {
	in   string
	want int
}{
	{"", 0},
	{"a b", 2},
	{" \t\n\v\f\r", 0},
	{"a\tb\nc\vd\fe\rf g", 7},
	{"a\r\nb\r\n", 2},
	{"\x01", 0},
	{"a\x01b", 1},
	{"\x01 \x01", 0},
	{"\x01a", 1},
	{"a\x00 b", 2},
	{"\x7f", 0},
	{"\x80\xff \xfe", 0},
	{"café", 1},
	{"caf\u00e9 x", 2},
	{"日本語", 0},
	{"日本語 a", 1},
	{"a\u00a0b", 1}, // no-break space: two words in a UTF-8 locale
	{"a\u2003b", 1}, // em space: two words in a UTF-8 locale
	{"\u00a0", 0},
}

func TestKnownCounts(t *testing.T) {
	for _, c := range knownCounts {
		if got := countString(c.in); got != c.want {
			t.Errorf("%q: %d words, want %d", c.in, got, c.want)
		}
	}
}

// TestKnownCountsAgainstWC checks the hand-written counts above with the
// real wc, so that a wc with another rule shows up here first.
func TestKnownCountsAgainstWC(t *testing.T) {
	dir := t.TempDir()
	for i, c := range knownCounts {
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := wctest.WC(t, path); got != int64(c.want) {
			t.Errorf("%q: LC_ALL=C wc -w says %d, the table %d", c.in, got, c.want)
		}
	}
}
