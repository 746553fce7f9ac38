// Command wc3 is stage 3 of the wordcount study: it reads the file in
// 64 KiB pieces into one buffer, allocated once, and counts the word starts
// in each piece in a loop that allocates nothing. Its heap profile holds
// that buffer and little else; its CPU profile is the counting loop.
//
//	wc3 [-cpuprofile file] [-memprofile file] FILE
//
// The command line is wcmain's; this file is only how the stage reads.
package main

import (
	"io"
	"os"

	"havlak-lab/go/wordcount/wcmain"
)

func main() { wcmain.Main("wc3", countFile) }

// run runs the command with args, for the tests.
func run(args []string, stdout, stderr io.Writer) error {
	return wcmain.Run("wc3", countFile, args, stdout, stderr)
}

// bufSize is the size of the one read buffer.
const bufSize = 64 << 10

// countFile counts the words of f through one buffer, made here, once per
// file.
func countFile(f *os.File) (int64, error) {
	return count(f, make([]byte, bufSize))
}
