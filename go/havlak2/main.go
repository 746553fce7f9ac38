// Command havlak2 is stage 2 of the "Profiling Go Programs" study: the CPU
// profile of havlak1 is dominated by map lookups of DFS numbers keyed by
// block pointer; blocks are numbered densely, so a slice indexed by block
// name does the job.
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
	flag.Parse()
	if err := opts.Validate(flag.CommandLine); err != nil {
		return err
	}

	stopCPUProfile, err := lab.StartCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopCPUProfile()) }()

	return lab.Run(os.Stdout, &opts, &finder{cfg: NewCFG()}, nil)
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
