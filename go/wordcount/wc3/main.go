// Command wc3 is stage 3 of the wordcount study: it reads the file in
// 64 KiB pieces into one buffer, allocated once, and counts the word starts
// in each piece in a loop that allocates nothing. Its heap profile holds
// that buffer and little else; its CPU profile is the counting loop.
//
//	wc3 [-cpuprofile file] [-memprofile file] FILE
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"havlak-lab/go/internal/lab"
)

func main() {
	lab.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("wc3", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: wc3 [-cpuprofile file] [-memprofile file] FILE")
		fs.PrintDefaults()
	}
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	memProfile := fs.String("memprofile", "", "write a profile of every heap allocation to `file` at the end")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return lab.UsageError{Err: err}
	}
	if fs.NArg() != 1 {
		return lab.Usagef("want one FILE argument, got %d", fs.NArg())
	}
	path := fs.Arg(0)

	if *memProfile != "" {
		f, err := lab.CreateProfile("memprofile", *memProfile)
		if err != nil {
			return err
		}
		runtime.MemProfileRate = 1
		defer func() { err = errors.Join(err, lab.WriteHeapProfile(f)) }()
	}
	stopCPUProfile, err := lab.StartCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopCPUProfile()) }()

	words, err := countFile(path, make([]byte, bufSize))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d %s\n", words, path)
	return err
}

// bufSize is the size of the one read buffer.
const bufSize = 64 << 10

// countFile counts the words of the file at path, reading it into buf. A
// file that cannot be opened is a usage error.
func countFile(path string, buf []byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, lab.UsageError{Err: err}
	}
	defer f.Close()
	return count(f, buf)
}
