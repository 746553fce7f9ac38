// Command wc1 is stage 1 of the wordcount study: it counts the words of a
// file the way `wc -w FILE` does, reading the file one byte per read system
// call, straight from the *os.File. Its CPU profile is nearly all system
// call.
//
//	wc1 [-cpuprofile file] [-memprofile file] FILE
//
// The command line is wcmain's; this file is only how the stage reads.
package main

import (
	"io"
	"os"

	"havlak-lab/go/wordcount/wcmain"
	"havlak-lab/go/wordcount/wordrule"
)

func main() { wcmain.Main("wc1", count) }

// run runs the command with args, for the tests.
func run(args []string, stdout, stderr io.Writer) error {
	return wcmain.Run("wc1", count, args, stdout, stderr)
}

// count reads f to its end one byte at a time: every byte costs a read
// system call.
func count(f *os.File) (int64, error) {
	var b [1]byte
	var words int64
	inWord := false
	for {
		n, err := f.Read(b[:])
		if n == 1 {
			switch wordrule.Of(b[0]) {
			case wordrule.Space:
				inWord = false
			case wordrule.Graphic:
				if !inWord {
					words++
					inWord = true
				}
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
