// Command mandelbrot draws the Mandelbrot set into a grayscale PNG, with
// the work spread over goroutines in one of several modes (see package
// render). Every mode writes the same bytes; they differ in how they use
// the processors, which -trace records for `go tool trace`.
//
//	mandelbrot [-mode seq|px|row|workers|workers-buffered] [-workers N]
//	           [-size N] [-iterations N] [-o file.png] [-trace file] [-cpuprofile file]
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"runtime"
	"runtime/trace"

	"havlak-lab/go/internal/lab"
	"havlak-lab/go/mandelbrot/render"
	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
)

// Limits that keep a typo from asking for more than the machine has: -size
// 16384 in px mode is already 268 million goroutines.
const (
	maxSize       = 16384
	maxIterations = 1_000_000
	maxWorkers    = 100_000
)

func main() {
	cli.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("mandelbrot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", "seq", "how to spread the work: "+render.ModeNames())
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines of the workers modes")
	size := fs.Int("size", 1024, "width and height of the image, in pixels")
	iterations := fs.Int("iterations", 1000, "iterations before a point counts as inside the set")
	out := fs.String("o", "mandelbrot.png", "write the image to `file`")
	traceFile := fs.String("trace", "", "write an execution trace of the drawing to `file`")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	m, err := render.Lookup(*mode)
	if err != nil {
		return cli.Usagef("-mode: %v", err)
	}
	for _, f := range []struct {
		name       string
		value, max int
	}{
		{"size", *size, maxSize},
		{"iterations", *iterations, maxIterations},
		{"workers", *workers, maxWorkers},
	} {
		if f.value < 1 || f.value > f.max {
			return cli.Usagef("-%s=%d: must be between 1 and %d", f.name, f.value, f.max)
		}
	}

	// Every file is created before the drawing, so that a bad path fails
	// at once.
	img, err := atomicfile.Create(*out)
	if err != nil {
		return cli.UsageError{Err: fmt.Errorf("-o: %w", err)}
	}
	defer img.Abort()
	var tf *os.File
	if *traceFile != "" {
		if tf, err = lab.CreateProfile("-trace", *traceFile); err != nil {
			return err
		}
		defer tf.Close()
	}
	stopCPUProfile, err := lab.StartCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopCPUProfile()) }()

	if tf != nil {
		if err := trace.Start(tf); err != nil {
			return fmt.Errorf("-trace: %w", err)
		}
	}
	pic := m.Draw(render.Params{Size: *size, Iterations: *iterations}, *workers)
	if tf != nil {
		trace.Stop()
		if err := tf.Close(); err != nil {
			return fmt.Errorf("-trace: %w", err)
		}
	}

	w := bufio.NewWriter(img)
	if err := png.Encode(w, pic); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return img.Commit()
}
