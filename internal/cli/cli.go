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
	"sync"
	"unicode"
	"unicode/utf16"
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

// Hidden tells whether r does not show as itself: a control character
// (ESC starting a sequence that clears the screen or retitles the window,
// a C1 control such as U+009B, the one-byte CSI) or a format character,
// Unicode's category Cf: a bidi control (U+202E reverses the text after
// it: a name could read as another) or an invisible one (a zero-width
// space, a tag character: a name could hide text, or look like another).
// It is the lab's one rule of what a terminal (Printable) and a page (the
// dashboard's) show as an escape instead.
func Hidden(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// Escape is the escape that stands for r where it would not show as
// itself (Hidden): Go's (\x1b, \u202e), or, above U+FFFF, its UTF-16
// surrogates (\udb40\udc01 for U+E0001), which JSON and JavaScript read
// back as r, as they read the others.
func Escape(r rune) string {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		return fmt.Sprintf(`\u%04x\u%04x`, hi, lo)
	}
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1]
}

// Printable makes a message safe for a terminal, and for the logs of CI
// that render a terminal's escape sequences: what would not show as
// itself (Hidden) is written as its escape instead (Escape), but newline
// and tab; so is an invalid UTF-8 byte (\xff).
//
// Printable is for whole messages, whose newlines and tabs are the
// program's own. A single field of a line (a name, a reason, a path from
// a result or a commit) goes through Field, which escapes those too.
func Printable(text string) string { return escape(text, "\n\t") }

// Field makes one field of a line safe as Printable does, and escapes
// newline, carriage return and tab too: a name from a result never starts
// a line of its own nor breaks a table's columns.
func Field(text string) string { return escape(text, "") }

// escape writes text with each rune that does not show as itself as a Go
// escape, but those in keep.
func escape(text, keep string) string {
	var b strings.Builder
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case strings.ContainsRune(keep, r):
			b.WriteRune(r)
		case Hidden(r):
			b.WriteString(Escape(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Terminal returns a writer that writes what it is given to w through
// Printable: the standard output and error of a command that shows text
// from results. Escaping where text reaches the stream, rather than at
// each line that carries a name, covers every line, those added later and
// the output of child processes too. It leaves the lab's own output as it
// is: that is text with newlines and tabs (tables are aligned with spaces
// or tabs), and no tool of the lab writes colour or other escape
// sequences. A child process writing through it sees a pipe, not a
// terminal, so it writes no colour either (Bazel's --color=auto).
//
// JSON passes unchanged in meaning: its encoder escapes C0 controls and
// invalid UTF-8 itself, and the \u escapes Printable writes for a C1
// control or a format character are JSON's (and JavaScript's) for the
// same character.
//
// A character split between two writes (a child's output copied through
// a pipe) waits for its end in the next write; one never completed is
// dropped with the writer.
func Terminal(w io.Writer) io.Writer { return &terminal{w: w} }

type terminal struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a character split between writes
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	text := append(t.pending, p...)
	t.pending = nil
	// At most the last three bytes can start an incomplete character.
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRune(text[i:]) {
				t.pending = append([]byte(nil), text[i:]...)
				text = text[:i]
			}
			break
		}
	}
	if _, err := io.WriteString(t.w, Printable(string(text))); err != nil {
		return 0, err
	}
	return len(p), nil
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
