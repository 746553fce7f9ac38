// Command havlak7 goes one chapter beyond "Profiling Go Programs": the
// fastest correct loop finder we could write in Go, with the same flags and
// output as havlak6. The CFG becomes compressed sparse rows of int32 built
// once, the loop finder a struct of int32 slices with an iterative DFS and
// a flat union-find, and the loop structure graph a few parallel slices
// whose member lists are rebuilt only when -dump asks. docs/havlak7.md
// tells, profile by profile, what each step bought.
package main

import (
	"errors"
	"flag"
	"os"

	"havlak-lab/go/internal/lab"
	"havlak-lab/internal/cli"
)

func main() {
	cli.Exit(run())
}

func run() (err error) {
	var opts lab.Options
	opts.Register(flag.CommandLine)
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	memProfile := flag.String("memprofile", "", "write a heap profile to `file` after the first pass, and stop")
	reuseLoopGraph := flag.Bool("reuseloopgraph", true, "reuse the loop structure graph's memory from one pass to the next")
	flag.Parse()
	if err := opts.Validate(flag.CommandLine); err != nil {
		return err
	}

	stopCPUProfile, err := lab.StartCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopCPUProfile()) }()

	var afterFirstPass func() (bool, error)
	if *memProfile != "" {
		f, err := lab.CreateProfile("-memprofile", *memProfile)
		if err != nil {
			return err
		}
		afterFirstPass = func() (bool, error) { return false, lab.WriteHeapProfile(f) }
	}
	return lab.Run(os.Stdout, &opts, &finder{reuseLoopGraph: *reuseLoopGraph}, afterFirstPass)
}

// finder runs a LoopFinder over one CFG, each pass into a new LSG or into
// the last one, reset.
type finder struct {
	cfg            CFG
	lsg            *LSG
	loopFinder     LoopFinder
	reuseLoopGraph bool
}

func (f *finder) CreateNode(name int)      { f.cfg.CreateNode(name) }
func (f *finder) AddEdge(from, to int)     { f.cfg.AddEdge(from, to) }
func (f *finder) Structure() lab.Structure { return f.lsg.Structure() }

func (f *finder) FindLoops() (int, error) {
	if !f.reuseLoopGraph || f.lsg == nil {
		f.lsg = new(LSG)
	}
	err := f.loopFinder.FindLoops(&f.cfg, f.lsg)
	return f.lsg.NumLoops(), err
}
