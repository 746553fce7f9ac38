package main

import (
	"bytes"
	"sync"
	"testing"

	"havlak-lab/go/internal/lab"
	"havlak-lab/go/internal/lab/labtest"
)

func newFinder() lab.LoopFinder { return &finder{reuseLoopGraph: true} }

func newFinderNoReuse() lab.LoopFinder { return &finder{} }

func TestHandMadeCFGs(t *testing.T) { labtest.HandMade(t, newFinder) }

func TestHandMadeCFGsNoReuse(t *testing.T) { labtest.HandMade(t, newFinderNoReuse) }

func TestWorkload(t *testing.T) { labtest.Workload(t, newFinder) }

func TestWorkloadNoReuse(t *testing.T) { labtest.Workload(t, newFinderNoReuse) }

func TestTooIrreducible(t *testing.T) { labtest.TooIrreducible(t, newFinder) }

// The CSR adjacency keeps each block's edges in the order they were added,
// duplicates included, and is rebuilt when edges are added after a pass.
func TestCSR(t *testing.T) {
	var cfg CFG
	for _, e := range [][2]int{{0, 2}, {1, 0}, {0, 1}, {2, 0}, {0, 2}} {
		cfg.AddEdge(e[0], e[1])
	}
	cfg.build()
	succ := func(b int) []int32 { return cfg.succ[cfg.succStart[b]:cfg.succStart[b+1]] }
	pred := func(b int) []int32 { return cfg.pred[cfg.predStart[b]:cfg.predStart[b+1]] }
	if got := succ(0); len(got) != 3 || got[0] != 2 || got[1] != 1 || got[2] != 2 {
		t.Errorf("successors of 0: %v, want [2 1 2]", got)
	}
	if got := pred(0); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("predecessors of 0: %v, want [1 2]", got)
	}
	cfg.AddEdge(3, 1)
	cfg.build()
	if got := pred(1); len(got) != 2 || got[0] != 0 || got[1] != 3 {
		t.Errorf("after another edge, predecessors of 1: %v, want [0 3]", got)
	}
}

// Separate LoopFinders share no memory, so they may run at once (the race
// detector is on for this test).
func TestConcurrentFinders(t *testing.T) {
	dump := func() string {
		f := newFinder()
		lab.BuildSimpleCFG(f)
		lab.BuildWorkload(f, 1, 2, 3)
		for pass := 0; pass < 2; pass++ {
			if _, err := f.FindLoops(); err != nil {
				t.Error(err)
			}
		}
		var b bytes.Buffer
		if err := lab.WriteDump(&b, f.Structure(), nil); err != nil {
			t.Error(err)
		}
		return b.String()
	}
	want := dump()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := dump(); got != want {
				t.Errorf("concurrent finder found\n%s\nwant\n%s", got, want)
			}
		}()
	}
	wg.Wait()
}
