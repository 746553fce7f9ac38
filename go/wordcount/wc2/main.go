// Command wc2 is stage 2 of the wordcount study: stage 1's byte-at-a-time
// loop, reading through a bufio.Reader, so that a read system call brings
// in 4 KiB instead of one byte. Its CPU profile is the loop itself and
// bufio's ReadByte.
//
//	wc2 [-cpuprofile file] [-memprofile file] FILE
//
// The command line is wcmain's; this file is only how the stage reads.
package main

import (
	"bufio"
	"io"
	"os"

	"havlak-lab/go/wordcount/wcmain"
	"havlak-lab/go/wordcount/wordrule"
)

func main() { wcmain.Main("wc2", count) }

// run runs the command with args, for the tests.
func run(args []string, stdout, stderr io.Writer) error {
	return wcmain.Run("wc2", count, args, stdout, stderr)
}

// count reads f to its end one byte at a time, through a bufio.Reader.
func count(f *os.File) (int64, error) {
	r := bufio.NewReader(f)
	var words int64
	inWord := false
	for {
		b, err := r.ReadByte()
		if err == io.EOF {
			return words, nil
		}
		if err != nil {
			return words, err
		}
		switch wordrule.Of(b) {
		case wordrule.Space:
			inWord = false
		case wordrule.Graphic:
			if !inWord {
				words++
				inWord = true
			}
		}
	}
}
