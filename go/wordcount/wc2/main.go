// Command wc2 is stage 2 of the wordcount study: stage 1's byte-at-a-time
// loop, reading through a bufio.Reader, so that a read system call brings
// in 4 KiB instead of one byte. Its CPU profile is the loop itself and
// bufio's ReadByte.
//
//	wc2 [-cpuprofile file] [-memprofile file] FILE
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"havlak-lab/go/internal/lab"
	"havlak-lab/go/wordcount/wordrule"
)

func main() {
	lab.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("wc2", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: wc2 [-cpuprofile file] [-memprofile file] FILE")
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

	words, err := countFile(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d %s\n", words, path)
	return err
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
