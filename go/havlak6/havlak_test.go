package main

import (
	"bytes"
	"sync"
	"testing"

	"havlak-lab/go/internal/lab"
	"havlak-lab/go/internal/lab/labtest"
)

func newFinder() lab.LoopFinder { return &finder{cfg: NewCFG(), reuseLoopGraph: true} }

func newFinderNoReuse() lab.LoopFinder { return &finder{cfg: NewCFG()} }

func TestHandMadeCFGs(t *testing.T) { labtest.HandMade(t, newFinder) }

func TestHandMadeCFGsNoReuse(t *testing.T) { labtest.HandMade(t, newFinderNoReuse) }

func TestWorkload(t *testing.T) { labtest.Workload(t, newFinder) }

func TestWorkloadNoReuse(t *testing.T) { labtest.Workload(t, newFinderNoReuse) }

func TestTooIrreducible(t *testing.T) { labtest.TooIrreducible(t, newFinder) }

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
