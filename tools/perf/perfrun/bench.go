package perfrun

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// A bench is a benchmark being run, what every mode shares.
type bench struct {
	*perfspec.Spec
	runfiles      string // the working directory
	binary, pprof string // absolute
	// named is the program at its runfiles path, under its own name, for
	// the timed runs (xtime reports the command by name) and what a person
	// reads: the count place counts a copy named "program" (countFrom).
	named    string
	args     []string
	out      string         // the directory of the outputs
	expectRE *regexp.Regexp // the spec's expect, or nil
}

// newBench prepares the run of spec, whose paths are relative to the
// working directory.
func newBench(spec *perfspec.Spec) (*bench, error) {
	runfiles, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	b := &bench{Spec: spec}
	b.rootAt(runfiles)
	if spec.Expect != "" {
		if b.expectRE, err = regexp.Compile(spec.Expect); err != nil {
			return nil, fmt.Errorf("expect: %w", err)
		}
	}
	return b, nil
}

// rootAt makes runfiles the tree the spec's paths are relative to.
func (b *bench) rootAt(runfiles string) {
	b.runfiles = runfiles
	b.binary = b.path(b.Binary)
	b.named = b.binary
	b.pprof = b.path(b.PProf)
}

func (b *bench) path(p string) string { return filepath.Join(b.runfiles, p) }

func (b *bench) outPath(name string) string { return filepath.Join(b.out, name) }

// withOutputs returns args with {outputs} replaced by dir.
func withOutputs(args []string, dir string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = strings.ReplaceAll(arg, "{outputs}", dir)
	}
	return out
}

// startTest starts a test whose outputs go to the directory out (Test);
// it returns the environment of the measurement.
func (b *bench) startTest(out string) (result.Environment, error) {
	b.out = out
	status, err := result.ParseStatus(b.path(b.Status))
	if err != nil {
		return result.Environment{}, fmt.Errorf("the build's status: %w", err)
	}
	return result.Capture(status, b.Build), nil
}

// runTo runs cmd with its standard output in the outputs' file name.
func (b *bench) runTo(cmd *exec.Cmd, name string) error {
	f, err := os.Create(filepath.Join(b.out, name))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := execute(cmd, nil, f); err != nil {
		return err
	}
	return f.Close()
}

// execute runs cmd with stdin and stdout, its standard error on ours. A
// run that fails ends the runner with the run's status, as a shell gives
// it: the exit code, or 128+N for signal N.
func execute(cmd *exec.Cmd, stdin io.Reader, stdout io.Writer) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return cli.ExitError{Status: 128 + int(ws.Signal())}
		}
		return cli.ExitError{Status: exit.ExitCode()}
	}
	return err
}

// matches is how many lines of the outputs' file name match expect.
func (b *bench) matches(name string) int { return b.matchesRE(name, b.expectRE) }

func (b *bench) matchesRE(name string, re *regexp.Regexp) int {
	data, _ := os.ReadFile(filepath.Join(b.out, name))
	return countMatches(data, re)
}

// countMatches counts the lines of data that re matches (every line when
// re is nil), as grep -c does.
func countMatches(data []byte, re *regexp.Regexp) int {
	n := 0
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(nil, 1<<30)
	for s.Scan() {
		if re == nil || re.Match(s.Bytes()) {
			n++
		}
	}
	return n
}

// checkOutput fails unless want lines of the outputs' file name match
// expect; without expect, it checks nothing.
func (b *bench) checkOutput(name string, want int) error {
	if b.expectRE == nil {
		return nil
	}
	if got := b.matches(name); got != want {
		fmt.Fprintf(os.Stderr, "perf: %d lines of %s match '%s', not %d:\n", got, name, b.Expect, want)
		data, _ := os.ReadFile(filepath.Join(b.out, name))
		os.Stderr.Write(data)
		return cli.ExitError{Status: 1}
	}
	return nil
}
