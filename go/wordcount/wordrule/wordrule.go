// Package wordrule is the one thing the wordcount stages share: which bytes
// make up words, decided exactly as GNU coreutils 9.1 `wc -w` decides in the
// C (POSIX) locale, the coreutils of this lab's machines.
//
// That wc walks the input one byte at a time in three classes:
//
//   - Space: the six C-locale whitespace bytes ' ', \t, \n, \v, \f, \r end
//     a word;
//   - Graphic: the printable non-space ASCII bytes 0x21-0x7E start a word,
//     or continue the current one;
//   - Transparent: every other byte (control bytes 0x00-0x08, 0x0E-0x1F,
//     DEL 0x7F, and all non-ASCII bytes 0x80-0xFF) neither starts nor ends
//     a word: it is skipped, as if it were not there.
//
// So in the C locale "café" is one word (the "caf" starts it), "日本語" on
// its own is no word at all (all of its bytes are non-ASCII), "a\u00a0b"
// (with a no-break space) is one word, and "\x01" is no word. In a UTF-8
// locale the same wc decodes characters instead and counts 1, 1, 2 and 0;
// the lab pins LC_ALL=C. coreutils 9.5 and later changed the C-locale rule
// to "a word is a run of non-whitespace bytes", treating transparent bytes
// as word bytes; this package follows the wc the lab runs on, 9.1.
package wordrule

// A Class is what a byte does to word counting.
type Class uint8

const (
	// Transparent bytes neither start nor end a word.
	Transparent Class = iota
	// Space bytes end a word.
	Space
	// Graphic bytes start a word or continue the current one.
	Graphic
)

// Of returns the class of b.
func Of(b byte) Class { return classes[b] }

var classes = func() (t [256]Class) {
	for b := 0x21; b <= 0x7e; b++ {
		t[b] = Graphic
	}
	for _, b := range []byte(" \t\n\v\f\r") {
		t[b] = Space
	}
	return t
}()
