package console

import (
	"strings"
	"testing"
)

func TestFigureKeepsEveryDigitOfACount(t *testing.T) {
	for v, want := range map[float64]string{169025503: "169025503", 169026000.5: "169026000", 1.29817: "1.29817", 0.0123456789: "0.0123457", 999999: "999999"} {
		if got := figure(v); got != want {
			t.Errorf("figure(%v) = %q, want %q", v, got, want)
		}
	}
}

// The names a "no series" error lists are sorted, each once, escaped, and
// at most MaxKnown of them.
func TestKnownList(t *testing.T) {
	if got := knownList(nil); got != "none" {
		t.Errorf("knownList(nil) = %q, want none", got)
	}
	if got := knownList([]string{"b", "a\x1b[2J", "b"}); got != `a\x1b[2J, b` {
		t.Errorf("knownList = %q, want sorted, once each, escaped", got)
	}
	var many []string
	for i := range MaxKnown + 3 {
		many = append(many, string(rune('a'+i)))
	}
	got := knownList(many)
	if !strings.HasSuffix(got, ", … 3 more") || strings.Count(got, ", ") != MaxKnown {
		t.Errorf("knownList of %d names = %q, want %d and the rest counted", len(many), got, MaxKnown)
	}
}
