package lab

import (
	"fmt"
	"io"
	"os"
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
// writes a heap profile when it ends.
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

	var names []int
	findLoops := f.FindLoops
	if o.CFGFile != "" {
		cfg, err := ReadCFGFile(o.CFGFile)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Read %s: %d blocks, %d edges\n", o.CFGFile, len(cfg.Names), len(cfg.Edges))
		cfg.Replay(f)
		names = cfg.Names
		findLoops = func() (int, error) {
			n, err := f.FindLoops()
			if err != nil {
				return 0, UsageError{fmt.Errorf("%s: %w", o.CFGFile, err)}
			}
			return n, nil
		}
	} else {
		fmt.Fprintln(out, "Constructing simple CFG...")
		BuildSimpleCFG(f)
		fmt.Fprintf(out, "%d dummy loops\n", o.Dummy)
		for i := 0; i < o.Dummy; i++ {
			if _, err := findLoops(); err != nil {
				return err
			}
		}
		fmt.Fprintln(out, "Constructing CFG...")
		BuildWorkload(f, o.Trees, o.Loops, o.BaseLoops)
	}

	fmt.Fprintln(out, "Performing loop recognition")
	fmt.Fprintln(out, "1 iteration")
	loops, err := findLoops()
	if err != nil {
		return err
	}
	writeCount(out, loops)
	if o.Dump {
		if err := WriteDump(out, f.Structure(), names); err != nil {
			return err
		}
	}
	if afterFirstPass != nil {
		if more, err := afterFirstPass(); !more || err != nil {
			return err
		}
	}

	if o.Iterations > 0 {
		fmt.Fprintf(out, "Another %d iterations...\n", o.Iterations)
		for i := 0; i < o.Iterations; i++ {
			if loops, err = findLoops(); err != nil {
				return err
			}
			fmt.Fprint(out, ".")
		}
		fmt.Fprintln(out)
		writeCount(out, loops)
	}
	return nil
}

func writeCount(out io.Writer, loops int) {
	fmt.Fprintf(out, "# of loops: %d (plus 1 artificial root node)\n", loops)
}
