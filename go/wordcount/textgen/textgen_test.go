package textgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

// The text is part of the benchmark: these hashes change only when the
// generator is changed on purpose, and then every number measured on its
// output before is void.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Size: 1 << 16, Seed: 1}, "3c260f591ce63202db6bde196a4452da8a3f09da76ba4759369d208170830d01"},
		{Options{Size: 100_003, Seed: 42, ASCII: true}, "cb00e1c8a953ffc3692cf94815abb3c5ba6629a6494ff21990270f00ab949b73"},
	} {
		sum := sha256.Sum256(Bytes(c.opts))
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("%+v: sha256 %s, want %s", c.opts, got, c.want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := Bytes(Options{Size: 300_000, Seed: 7})
	b := Bytes(Options{Size: 300_000, Seed: 7})
	if !bytes.Equal(a, b) {
		t.Error("same seed and size gave different texts")
	}
	c := Bytes(Options{Size: 300_000, Seed: 8})
	if bytes.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same text")
	}
	// A shorter text is a prefix of a longer one, except for a cut-short
	// last token.
	short := Bytes(Options{Size: 1000, Seed: 7})
	if !bytes.Equal(short[:990], a[:990]) {
		t.Error("a 1000-byte text does not start like a longer one")
	}
}

func TestExactSize(t *testing.T) {
	for size := int64(0); size < 300; size++ {
		for seed := uint64(0); seed < 5; seed++ {
			b := Bytes(Options{Size: size, Seed: seed})
			if int64(len(b)) != size {
				t.Fatalf("size %d seed %d: got %d bytes", size, seed, len(b))
			}
			if !utf8.Valid(b) {
				t.Fatalf("size %d seed %d: invalid UTF-8 %q", size, seed, b)
			}
		}
	}
	if err := Write(new(bytes.Buffer), Options{Size: -1}); err == nil {
		t.Error("negative size: no error")
	}
}

func TestContent(t *testing.T) {
	b := Bytes(Options{Size: 8 << 20, Seed: 1})
	if int64(len(b)) != 8<<20 {
		t.Fatalf("got %d bytes", len(b))
	}
	if !utf8.Valid(b) {
		t.Error("text is not valid UTF-8")
	}
	s := string(b)
	for _, want := range []string{" ", "\t", "\n", "\r\n", "\n\n", "\v", "\f", "  ", "café", "日本語", "\u00a0"} {
		if !strings.Contains(s, want) {
			t.Errorf("text has no %q", want)
		}
	}
	longest := 0
	for _, line := range strings.Split(s, "\n") {
		longest = max(longest, len(line))
	}
	if longest < 128<<10 {
		t.Errorf("longest line is %d bytes, want a line of at least 128 KiB", longest)
	}
	words := strings.Fields(s)
	if n := len(words); n < len(s)/10 || n > len(s)/4 {
		t.Errorf("%d fields in %d bytes: words are not of the usual lengths", n, len(s))
	}

	ascii := Bytes(Options{Size: 1 << 20, Seed: 1, ASCII: true})
	for i, c := range ascii {
		if c >= 0x80 {
			t.Fatalf("ASCII text has byte %#x at offset %d", c, i)
		}
	}
}
