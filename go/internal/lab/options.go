package lab

import (
	"flag"
	"fmt"
	"strings"

	"havlak-lab/internal/cli"
)

// Limits that keep a typo from asking for more memory or time than any
// machine has. The standard workload is 252013 blocks and 51 passes. The
// Go stages' DFS is recursive, as in the article, with about 128 bytes of
// goroutine stack per block of a chain: 4 million blocks stay within Go's
// 1 GB stack limit.
const (
	MaxBlocks = 4_000_000
	MaxEdges  = 50_000_000
	MaxPasses = 1_000_000
	// MaxLineBytes bounds a line of a -cfg file (an edge is two numbers
	// and perhaps a comment), and so the memory a file without newlines,
	// like /dev/zero, can take.
	MaxLineBytes = 64 * 1024
)

// MaxMovedEdges bounds the edges one pass may move to loop headers while it
// resolves irreducible loops. Havlak's algorithm moves an edge into every
// irreducible loop it enters, which on large random CFGs grows
// quadratically (a random CFG of 10000 blocks and 40000 edges needs 10
// million moves); past this bound a pass stops with ErrTooIrreducible
// rather than run out of memory.
const MaxMovedEdges = 1_000_000

// ErrTooIrreducible is the error of a pass that exceeded MaxMovedEdges.
var ErrTooIrreducible = fmt.Errorf("loop recognition gave up: irreducible loops moved more than %d edges "+
	"(Havlak's algorithm grows quadratically on such CFGs)", MaxMovedEdges)

// Options are the flags every stage takes.
type Options struct {
	Dummy      int
	Iterations int
	Trees      int
	Loops      int
	BaseLoops  int
	CFGFile    string
	Dump       bool
}

// workloadFlags shape the generated CFG, so they mean nothing with -cfg.
var workloadFlags = []string{"dummy", "trees", "loops", "baseloops"}

// Register defines the flags on fs, with the standard workload as defaults.
func (o *Options) Register(fs *flag.FlagSet) {
	fs.IntVar(&o.Dummy, "dummy", 15000, "loop-finding passes over a tiny CFG before the main one is built")
	fs.IntVar(&o.Iterations, "iterations", 50, "loop-finding passes over the main CFG after the first")
	fs.IntVar(&o.Trees, "trees", 10, "subtrees of the generated CFG")
	fs.IntVar(&o.Loops, "loops", 100, "outer loops per subtree")
	fs.IntVar(&o.BaseLoops, "baseloops", 25, "three-loop nests per outer loop")
	fs.StringVar(&o.CFGFile, "cfg", "", "read the CFG from `file` (one edge \"FROM TO\" per line, # comments, block 0 is the entry) instead of generating it")
	fs.BoolVar(&o.Dump, "dump", false, "print the loop structure found by the first pass")
}

// Validate checks the parsed flags of fs, which Register defined.
func (o *Options) Validate(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q (all input comes through flags)", fs.Arg(0))
	}
	if o.CFGFile != "" {
		var clash []string
		fs.Visit(func(f *flag.Flag) {
			for _, name := range workloadFlags {
				if f.Name == name {
					clash = append(clash, "-"+name)
				}
			}
		})
		if len(clash) > 0 {
			return cli.Usagef("%s: not allowed with -cfg, which replaces the generated CFG", strings.Join(clash, ", "))
		}
	}
	for _, p := range []struct {
		name  string
		value int
		max   int
	}{
		{"dummy", o.Dummy, MaxPasses},
		{"iterations", o.Iterations, MaxPasses},
		{"trees", o.Trees, MaxBlocks},
		{"loops", o.Loops, MaxBlocks},
		{"baseloops", o.BaseLoops, MaxBlocks},
	} {
		if p.value < 0 || p.value > p.max {
			return cli.Usagef("-%s=%d: must be between 0 and %d", p.name, p.value, p.max)
		}
	}
	if n := WorkloadBlocks(o.Trees, o.Loops, o.BaseLoops); n > MaxBlocks {
		return cli.Usagef("-trees=%d -loops=%d -baseloops=%d: the CFG would have more than %d blocks",
			o.Trees, o.Loops, o.BaseLoops, MaxBlocks)
	}
	return nil
}
