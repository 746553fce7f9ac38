// Package wcmain is the command line every word-count stage shares: its
// flags, its profiles, opening the file and its report line, so that each
// stage's own code is only how it reads the open file.
//
//	wcN [-cpuprofile file] [-memprofile file] FILE
package wcmain

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"havlak-lab/go/internal/lab"
	"havlak-lab/internal/cli"
)

// A Count counts the words of f, reading it to its end.
type Count func(f *os.File) (int64, error)

// CountFile counts the words of the file at path with count. A file that
// cannot be opened is a usage error.
func CountFile(path string, count Count) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, cli.UsageError{Err: err}
	}
	defer f.Close()
	return count(f)
}

// Main runs the stage called name and exits.
func Main(name string, count Count) {
	cli.Exit(Run(name, count, os.Args[1:], os.Stdout, os.Stderr))
}

// Run runs the stage called name with args and prints "N FILE", as
// wc -w FILE does.
func Run(name string, count Count, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [-cpuprofile file] [-memprofile file] FILE\n", name)
		fs.PrintDefaults()
	}
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	memProfile := fs.String("memprofile", "", "write a profile of every heap allocation to `file` at the end")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.Usagef("want one FILE argument, got %d", fs.NArg())
	}
	path := fs.Arg(0)

	if *memProfile != "" {
		f, err := lab.CreateProfile("-memprofile", *memProfile)
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

	words, err := CountFile(path, count)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d %s\n", words, path)
	return err
}
