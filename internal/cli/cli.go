// Package cli is what every command of the lab does the same way, programs
// and tools alike: bad input is a usage error with exit status 2, -h is not
// an error, and paths a user types under `bazel run` are relative to where
// they typed it.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"havlak-lab/internal/runtimemetrics"
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

// An ExitError ends a command with Status and no further message: the
// command has already said why (a gate that printed its table, say).
type ExitError struct{ Status int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Status) }

// Status is the exit status for err: 0 for nil, an ExitError's own, 2 for a
// UsageError, 1 for anything else.
func Status(err error) int {
	var exit ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Status
	case errors.As(err, new(UsageError)):
		return 2
	}
	return 1
}

// Report writes err to stderr after the program's name, unless it is nil or
// an ExitError, and returns its exit status.
func Report(stderr io.Writer, program string, err error) int {
	if err != nil && !errors.As(err, new(ExitError)) {
		fmt.Fprintf(stderr, "%s: %s\n", program, Printable(err.Error()))
	}
	return Status(err)
}

// Printable makes text safe for a terminal: its control characters but
// newline and tab (an escape sequence in a result's name, say, which
// would move the cursor or retitle the window) are written as Go escapes,
// and so are invalid UTF-8 bytes.
func Printable(text string) string {
	var b strings.Builder
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Exit ends the program with err reported as Report does, after
// recording the run's runtime figures when the perf runner asks for them
// (internal/runtimemetrics).
func Exit(err error) {
	if recordErr := runtimemetrics.Record(); recordErr != nil {
		err = errors.Join(err, recordErr)
	}
	os.Exit(Report(os.Stderr, filepath.Base(os.Args[0]), err))
}

// UserPath resolves a path the user typed: under `bazel run`, relative to
// the directory it was typed in (BUILD_WORKING_DIRECTORY), else as it is.
func UserPath(path string) string {
	if dir := os.Getenv("BUILD_WORKING_DIRECTORY"); dir != "" && !filepath.IsAbs(path) {
		return filepath.Join(dir, path)
	}
	return path
}

// WorkspaceRoot is the workspace under `bazel run` (BUILD_WORKSPACE_DIRECTORY),
// else the current directory.
func WorkspaceRoot() string {
	if dir := os.Getenv("BUILD_WORKSPACE_DIRECTORY"); dir != "" {
		return dir
	}
	return "."
}
