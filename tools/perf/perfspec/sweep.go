package perfspec

import (
	"fmt"

	"havlak-lab/internal/complexity"
)

// Sweep is how to see a program's cost grow with its workload: the
// program counted under Cachegrind once at each of several sizes N, in a
// test, after its counted runs (the runner's sweep.go). perf_benchmark's
// sweep and quick_sweep declare it (tools/perf/private/sweep.bzl).
type Sweep struct {
	// N says what the sizes count, for people ("loops found").
	N string `json:"n"`
	// Points are the sizes, in increasing order.
	Points []SweepPoint `json:"points"`
}

// A SweepPoint is one size of a sweep: N, the program's arguments that
// make a workload of that size, and the regular expression of the lines
// of a correct run's output ("" checks nothing).
type SweepPoint struct {
	N      int      `json:"n"`
	Args   []string `json:"args"`
	Expect string   `json:"expect"`
}

// Check tells what is wrong with the sweep, if anything: it needs at least
// complexity.MinPoints sizes, increasing, each with arguments.
func (s *Sweep) Check() error {
	if s.N == "" {
		return fmt.Errorf("program.sweep.n: empty (say what N counts)")
	}
	if len(s.Points) < complexity.MinPoints {
		return fmt.Errorf("program.sweep.points: %d sizes, want at least %d", len(s.Points), complexity.MinPoints)
	}
	for i, p := range s.Points {
		switch {
		case p.N < 1 || i > 0 && p.N <= s.Points[i-1].N:
			return fmt.Errorf("program.sweep.points[%d].n %d: want sizes of 1 or more, increasing", i, p.N)
		case len(p.Args) == 0:
			return fmt.Errorf("program.sweep.points[%d].args: empty (the arguments make the size)", i)
		}
	}
	return nil
}
