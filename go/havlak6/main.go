// Command havlak6 is stage 6 of the "Profiling Go Programs" study, the
// final idiomatic version: a LoopFinder value owns the reusable memory
// instead of a package-level cache, so separate finders are safe to run
// concurrently; the node pool doubles as the work list; and the loop
// structure graph keeps its storage from one pass to the next unless
// -reuseloopgraph=false.
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
	return lab.Run(os.Stdout, &opts, &finder{cfg: NewCFG(), reuseLoopGraph: *reuseLoopGraph}, afterFirstPass)
}

// finder runs a LoopFinder over one CFG, each pass into a new LSG or into
// the last one, reset.
type finder struct {
	cfg            *CFG
	lsg            *LSG
	loopFinder     LoopFinder
	reuseLoopGraph bool
}

func (f *finder) CreateNode(name int)      { f.cfg.CreateNode(name) }
func (f *finder) AddEdge(from, to int)     { NewBasicBlockEdge(f.cfg, from, to) }
func (f *finder) Structure() lab.Structure { return f.lsg.Structure() }

func (f *finder) FindLoops() (int, error) {
	if f.reuseLoopGraph && f.lsg != nil {
		f.lsg.Reset()
	} else {
		f.lsg = NewLSG()
	}
	err := f.loopFinder.FindLoops(f.cfg, f.lsg)
	return f.lsg.NumLoops(), err
}
