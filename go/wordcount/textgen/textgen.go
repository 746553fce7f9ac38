// Package textgen writes the deterministic pseudo-random text that the
// wordcount stages are measured and tested on: words of varied lengths,
// some with punctuation or digits, some UTF-8 words, whitespace of every
// kind in varied runs (mostly single spaces, tabs, newlines, some \r\n line
// ends, blank lines, rare \v and \f), and every few MiB a line of hundreds
// of KiB with no newline.
//
// The same Options always give the same bytes: the generator uses its own
// pseudo-random number generator, not one whose stream could change with
// the Go release.
package textgen

import (
	"fmt"
	"io"
)

// Options say what to write.
type Options struct {
	Size  int64  // exact length of the text in bytes
	Seed  uint64 // same seed and size, same text
	ASCII bool   // only ASCII words, no UTF-8 ones
}

// Write writes the text o describes to w.
func Write(w io.Writer, o Options) error {
	if o.Size < 0 {
		return fmt.Errorf("text size %d is negative", o.Size)
	}
	g := &generator{
		rng:  rng{state: o.Seed},
		opts: o,
		out:  make([]byte, 0, chunkSize+maxToken),
	}
	g.nextLong = 1<<20 + g.rng.int64n(2<<20)
	for g.pos() < o.Size {
		g.word()
		g.space()
		if len(g.out) >= chunkSize {
			if err := g.flush(w); err != nil {
				return err
			}
		}
	}
	return g.flush(w)
}

// Bytes returns the text o describes.
func Bytes(o Options) []byte {
	var b sliceWriter
	if err := Write(&b, o); err != nil {
		panic(err) // only a negative size fails, and sliceWriter never does
	}
	return b
}

type sliceWriter []byte

func (s *sliceWriter) Write(p []byte) (int, error) {
	*s = append(*s, p...)
	return len(p), nil
}

const (
	chunkSize = 64 << 10
	maxToken  = 128 // longer than any word or whitespace run the generator makes
)

type generator struct {
	rng      rng
	opts     Options
	out      []byte // generated, not yet written
	written  int64  // bytes written before out
	longEnd  int64  // no newline before this offset: a long line
	nextLong int64  // offset after which the next long line starts
}

func (g *generator) pos() int64 { return g.written + int64(len(g.out)) }

func (g *generator) flush(w io.Writer) error {
	if len(g.out) == 0 {
		return nil
	}
	_, err := w.Write(g.out)
	g.written += int64(len(g.out))
	g.out = g.out[:0]
	return err
}

// emit appends a token, cut short at the end of the text. A word cut short
// keeps its start if it is ASCII and becomes ASCII letters otherwise, so
// the text never ends in a partial UTF-8 sequence.
func (g *generator) emit(tok []byte, isWord bool) {
	left := g.opts.Size - g.pos()
	if int64(len(tok)) <= left {
		g.out = append(g.out, tok...)
		return
	}
	if left <= 0 {
		return
	}
	tok = tok[:left]
	if isWord && !isASCII(tok) {
		for i := range tok {
			g.out = append(g.out, 'x'+byte(i%3))
		}
		return
	}
	g.out = append(g.out, tok...)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// Letters weighted roughly as in English text.
const letters = "eeeeeeeeeeeetttttttttaaaaaaaaoooooooiiiiiiinnnnnnnsssssshhhhhhrrrrrrddddlllluuucccmmmwwffggyyppbbvkjxqz"

// Words from outside ASCII: accented Latin, other scripts, symbols, emoji,
// and words with a no-break space, thin space or soft hyphen inside, which
// are one word in the C locale but not in a UTF-8 one.
var utf8Words = [][]byte{
	[]byte("café"), []byte("naïve"), []byte("façade"), []byte("Grüße"),
	[]byte("smörgåsbord"), []byte("Ærøskøbing"), []byte("ñandú"), []byte("jalapeño"),
	[]byte("Ελληνικά"), []byte("λόγος"), []byte("русский"), []byte("привіт"),
	[]byte("日本語"), []byte("東京"), []byte("中文"), []byte("한국어"),
	[]byte("עברית"), []byte("العربية"), []byte("हिन्दी"), []byte("ไทย"),
	[]byte("😀"), []byte("🙂👍"), []byte("€100"), []byte("½"), []byte("20°C"),
	[]byte("non\u00a0breaking"), []byte("thin\u2009space"), []byte("soft\u00adhyphen"),
}

func (g *generator) word() {
	var buf [maxToken]byte
	tok := buf[:0]
	r := g.rng.intn(1000)
	if r < 60 && g.opts.ASCII {
		r = 999 // an ordinary word instead
	}
	switch {
	case r < 60:
		g.emit(utf8Words[g.rng.intn(len(utf8Words))], true)
		return
	case r < 80: // a number
		for n := 1 + g.rng.intn(6); n > 0; n-- {
			tok = append(tok, '0'+byte(g.rng.intn(10)))
		}
		g.emit(tok, true)
		return
	case r < 85: // a very long word
		tok = g.letters(tok, 20+g.rng.intn(60))
	default:
		n := 1
		for n < 14 && g.rng.intn(100) < 82 {
			n++
		}
		tok = g.letters(tok, n)
	}
	if g.rng.intn(100) < 8 {
		tok[0] -= 'a' - 'A'
	}
	if g.rng.intn(100) < 2 {
		tok = append([]byte{"(\"'"[g.rng.intn(3)]}, tok...)
	}
	if g.rng.intn(100) < 10 {
		tok = append(tok, ".,;:!?)-"[g.rng.intn(8)])
	}
	g.emit(tok, true)
}

func (g *generator) letters(tok []byte, n int) []byte {
	for ; n > 0; n-- {
		tok = append(tok, letters[g.rng.intn(len(letters))])
	}
	return tok
}

func (g *generator) space() {
	var buf [maxToken]byte
	tok := buf[:0]
	pos := g.pos()
	r := g.rng.intn(1000)
	if r < 80 && pos < g.longEnd {
		r = 999 // within a long line: a space instead
	}
	switch {
	case r < 80: // a line end
		switch r := g.rng.intn(100); {
		case r < 10:
			tok = append(tok, "\r\n"...)
		case r < 18:
			tok = append(tok, "\n\n"...)
		default:
			tok = append(tok, '\n')
		}
		switch r := g.rng.intn(100); {
		case r < 3:
			tok = append(tok, '\t')
		case r < 6:
			tok = append(tok, "    "...)
		}
		if pos >= g.nextLong {
			g.longEnd = pos + 128<<10 + g.rng.int64n(896<<10)
			g.nextLong = g.longEnd + 3<<20 + g.rng.int64n(2<<20)
		}
	case r < 110:
		tok = append(tok, '\t')
	case r < 130: // a run of blanks
		for n := 2 + g.rng.intn(7); n > 0; n-- {
			tok = append(tok, " \t"[g.rng.intn(2)])
		}
	case r < 132:
		tok = append(tok, "\v\f"[g.rng.intn(2)])
	default:
		tok = append(tok, ' ')
	}
	g.emit(tok, false)
}

// rng is SplitMix64: small, fast, and fixed here for good.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a number in [0, n); the modulo bias is far too small to
// matter for text.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) int64n(n int64) int64 { return int64(r.next() % uint64(n)) }
