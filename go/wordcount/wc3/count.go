package main

import (
	"io"

	"havlak-lab/go/wordcount/wordrule"
)

// count reads r to its end through buf, which it reuses for every read, and
// counts the bytes that start a word: graphic bytes not inside a word. It
// allocates nothing.
func count(r io.Reader, buf []byte) (int64, error) {
	var words int64
	inWord := false
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			switch wordrule.Of(b) {
			case wordrule.Space:
				inWord = false
			case wordrule.Graphic:
				if !inWord {
					words++
				}
				inWord = true
			}
		}
		if err == io.EOF {
			return words, nil
		}
		if err != nil {
			return words, err
		}
	}
}
