// Package lab holds what every Go stage of the Havlak benchmark shares and
// what is not part of the optimisation story: command-line options, the
// standard workload, CFG files, the canonical loop dump, and the driver that
// runs a stage. Each stage brings only its own CFG, loop structure graph and
// loop finder.
package lab

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// A UsageError is bad input: a flag, its value, or an input file. Programs
// exit with status 2 for it, as the flag package does for unknown flags.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// ParseFlags parses args with fs, a flag.ContinueOnError set. It reports
// help when args asked for the usage (-h or -help), which fs has printed:
// the program should end with status 0. A bad flag, which fs has printed
// with the usage, is a UsageError.
func ParseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, UsageError{err}
	}
	return false, nil
}

// Exit ends the program: silently with status 0 when err is nil, otherwise
// with the program's name and err on stderr and status 2 for a UsageError, 1
// for anything else.
func Exit(err error) {
	if err == nil {
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
	if errors.As(err, new(UsageError)) {
		os.Exit(2)
	}
	os.Exit(1)
}
