package main

import (
	"testing"

	"havlak-lab/go/internal/lab"
	"havlak-lab/go/internal/lab/labtest"
)

func newFinder() lab.LoopFinder { return &finder{cfg: NewCFG()} }

func TestHandMadeCFGs(t *testing.T) { labtest.HandMade(t, newFinder) }

func TestWorkload(t *testing.T) { labtest.Workload(t, newFinder) }

func TestTooIrreducible(t *testing.T) { labtest.TooIrreducible(t, newFinder) }
