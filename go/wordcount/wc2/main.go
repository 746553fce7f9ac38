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

	"havlak-lab/go/internal/lab"
	"havlak-lab/go/wordcount/wcmain"
	"havlak-lab/go/wordcount/wordrule"
)

func main() { wcmain.Main("wc2", countFile) }

// run runs the command with args, for the tests.
func run(args []string, stdout, stderr io.Writer) error {
	return wcmain.Run("wc2", countFile, args, stdout, stderr)
}

// countFile counts the words of the file at path. A file that cannot be
// opened is a usage error.
func countFile(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, lab.UsageError{Err: err}
	}
	defer f.Close()
	return count(bufio.NewReader(f))
}

// count reads r to its end one byte at a time.
func count(r *bufio.Reader) (int64, error) {
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
