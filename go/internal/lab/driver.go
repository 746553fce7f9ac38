package lab

import (
	"fmt"
	"io"
	"os"

	"havlak-lab/internal/cli"
)

// A LoopFinder is one stage's loop recognition, bound to the CFG it builds.
type LoopFinder interface {
	Graph
	// FindLoops runs loop recognition over the CFG built so far, into a new
	// loop structure graph, and returns the number of loops it found, not
	// counting the artificial root. Its only error is ErrTooIrreducible.
	FindLoops() (int, error)
	// Structure describes the loop structure graph of the last FindLoops.
	Structure() Structure
}

// Run drives a stage through the benchmark and writes its report to out:
// the warm-up passes over the simple CFG, the main CFG (generated, or read
// from -cfg), one pass with its loop count (and its dump with -dump), then
// -iterations more passes. afterFirstPass, if not nil, runs after that first
// pass; when it returns false, Run stops there. With HeapProfileEnv set, Run
// writes a heap profile when it ends. A failed write of the report ends the
// run with its error.
func Run(out io.Writer, o *Options, f LoopFinder, afterFirstPass func() (more bool, err error)) (err error) {
	if path := os.Getenv(HeapProfileEnv); path != "" {
		heapProfile, err := CreateProfile("$"+HeapProfileEnv, path)
		if err != nil {
			return err
		}
		defer func() {
			if err == nil {
				err = WriteHeapProfile(heapProfile)
			} else {
				heapProfile.Close()
			}
		}()
	}

	// A report that cannot be written ends the run: it would be lost.
	w := &reportWriter{w: out}
	var names []int
	findLoops := f.FindLoops
	if o.CFGFile != "" {
		cfg, err := ReadCFGFile(o.CFGFile)
		if err != nil {
			return err
		}
		w.printf("Read %s: %d blocks, %d edges\n", o.CFGFile, len(cfg.Names), len(cfg.Edges))
		cfg.Replay(f)
		names = cfg.Names
		findLoops = func() (int, error) {
			n, err := f.FindLoops()
			if err != nil {
				return 0, cli.UsageError{Err: fmt.Errorf("%s: %w", o.CFGFile, err)}
			}
			return n, nil
		}
	} else {
		w.printf("Constructing simple CFG...\n")
		BuildSimpleCFG(f)
		w.printf("%d dummy loops\n", o.Dummy)
		for i := 0; i < o.Dummy && w.err == nil; i++ {
			if _, err := findLoops(); err != nil {
				return err
			}
		}
		w.printf("Constructing CFG...\n")
		BuildWorkload(f, o.Trees, o.Loops, o.BaseLoops)
	}

	w.printf("Performing loop recognition\n")
	w.printf("1 iteration\n")
	if w.err != nil {
		return w.err
	}
	loops, err := findLoops()
	if err != nil {
		return err
	}
	writeCount(w, loops)
	if o.Dump && w.err == nil {
		w.err = WriteDump(out, f.Structure(), names)
	}
	if w.err != nil {
		return w.err
	}
	if afterFirstPass != nil {
		if more, err := afterFirstPass(); !more || err != nil {
			return err
		}
	}

	if o.Iterations > 0 {
		w.printf("Another %d iterations...\n", o.Iterations)
		for i := 0; i < o.Iterations && w.err == nil; i++ {
			if loops, err = findLoops(); err != nil {
				return err
			}
			w.printf(".")
		}
		w.printf("\n")
		writeCount(w, loops)
	}
	return w.err
}

// reportWriter writes the report and keeps the first error; after one, it
// writes nothing more.
type reportWriter struct {
	w   io.Writer
	err error
}

func (w *reportWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

func writeCount(w *reportWriter, loops int) {
	w.printf("# of loops: %d (plus 1 artificial root node)\n", loops)
}
