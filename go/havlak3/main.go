// Command havlak3 is stage 3 of the "Profiling Go Programs" study: havlak2
// plus -memprofile, to see where the memory goes. The heap profile is
// written after the first loop-finding pass, and the program stops there.
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
	return lab.Run(os.Stdout, &opts, &finder{cfg: NewCFG()}, afterFirstPass)
}

// finder runs FindLoops over one CFG, each pass into a new LSG.
type finder struct {
	cfg *CFG
	lsg *LSG
}

func (f *finder) CreateNode(name int)      { f.cfg.CreateNode(name) }
func (f *finder) AddEdge(from, to int)     { NewBasicBlockEdge(f.cfg, from, to) }
func (f *finder) Structure() lab.Structure { return f.lsg.Structure() }

func (f *finder) FindLoops() (int, error) {
	f.lsg = NewLSG()
	err := FindLoops(f.cfg, f.lsg)
	return f.lsg.NumLoops(), err
}
