// Package labtest checks a stage's loop finder against the hand-made CFGs in
// testdata/cfgs, whose loop structures were worked out by hand.
package labtest

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/go/internal/lab"
)

// Path returns the absolute path of a file or directory given relative to
// the workspace root: under Bazel from the test's runfiles, under plain
// "go test" by walking up from the package directory.
func Path(t testing.TB, rel string) string {
	t.Helper()
	if srcdir, ws := os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"); srcdir != "" && ws != "" {
		return filepath.Join(srcdir, ws, rel)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "WORKSPACE")); err == nil {
			return filepath.Join(dir, rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no WORKSPACE above the test's directory to find %s in", rel)
		}
		dir = parent
	}
}

// HandMade runs the loop finders newFinder returns over each hand-made CFG
// and compares their dumps with the expected ones.
func HandMade(t *testing.T, newFinder func() lab.LoopFinder) {
	cfgs, err := filepath.Glob(filepath.Join(Path(t, "testdata/cfgs"), "*.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) == 0 {
		t.Fatal("no hand-made CFGs found")
	}
	for _, path := range cfgs {
		name := strings.TrimSuffix(filepath.Base(path), ".cfg")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(path, ".cfg") + ".dump")
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := lab.ReadCFGFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := newFinder()
			cfg.Replay(f)
			if _, err := f.FindLoops(); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := lab.WriteDump(&got, f.Structure(), cfg.Names); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("loop structure of %s:\n%s\nwant:\n%s", path, got.String(), want)
			}

			// A second pass over the same CFG must find the same loops:
			// later stages reuse memory between passes.
			if _, err := f.FindLoops(); err != nil {
				t.Fatal(err)
			}
			got.Reset()
			if err := lab.WriteDump(&got, f.Structure(), cfg.Names); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("second pass over %s:\n%s\nwant:\n%s", path, got.String(), want)
			}
		})
	}
}

// Workload checks the loop count of a reduced standard workload, whose
// shape gives 3 loops per base loop plus 1 per outer loop.
func Workload(t *testing.T, newFinder func() lab.LoopFinder) {
	const trees, loops, baseLoops = 2, 3, 4
	f := newFinder()
	lab.BuildSimpleCFG(f)
	if got, err := f.FindLoops(); got != 0 || err != nil {
		t.Errorf("simple CFG: %d loops, %v; want 0, no error", got, err)
	}
	lab.BuildWorkload(f, trees, loops, baseLoops)
	want := trees * loops * (3*baseLoops + 1)
	for pass := 1; pass <= 2; pass++ {
		if got, err := f.FindLoops(); got != want || err != nil {
			t.Errorf("pass %d: %d loops, %v; want %d, no error", pass, got, err, want)
		}
	}
}

// TooIrreducible checks that a pass over a random CFG dense enough to need
// millions of irreducible edge moves stops with lab.ErrTooIrreducible.
func TooIrreducible(t *testing.T, newFinder func() lab.LoopFinder) {
	const blocks, edges = 5000, 20000
	rng := rand.New(rand.NewPCG(1, 2))
	f := newFinder()
	f.CreateNode(0)
	for i := 0; i < edges; i++ {
		f.AddEdge(rng.IntN(blocks), rng.IntN(blocks))
	}
	if _, err := f.FindLoops(); err != lab.ErrTooIrreducible {
		t.Errorf("FindLoops over a random CFG of %d blocks and %d edges: %v, want %v", blocks, edges, err, lab.ErrTooIrreducible)
	}
}
