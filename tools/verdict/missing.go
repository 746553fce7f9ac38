package verdict

import (
	"fmt"
	"maps"
	"slices"
)

// A Gone is a benchmark of the baseline that this side has no result of:
// missing, which fails (what a gate cannot see), unless it was retired on
// purpose (--retire), which leaves the baseline with it.
type Gone struct {
	Name string
	// Why says what was looked for; Retired, that it left on purpose.
	Why     string
	Retired bool
}

// GoneBenchmarks is the lab's one rule of missing benchmarks: each
// benchmark of the baseline (name → where its result is) that tonight has
// no result of, in name order, retired when retire names it. Why says
// where the baseline's result is and what tonight lacks (what, as "this
// report has no result of it").
func GoneBenchmarks(baseline map[string]string, tonight map[string]bool, retire []string, what string) []Gone {
	var gone []Gone
	for _, name := range slices.Sorted(maps.Keys(baseline)) {
		if !tonight[name] {
			gone = append(gone, Gone{Name: name, Retired: slices.Contains(retire, name),
				Why: fmt.Sprintf("the baseline has it (%s), %s", baseline[name], what)})
		}
	}
	return gone
}

// CheckRetire refuses a retirement of a benchmark the baseline does not
// have, or that is still measured: retiring is on purpose, never a guess.
func CheckRetire(baseline map[string]string, tonight map[string]bool, retire []string) error {
	for _, name := range retire {
		switch {
		case baseline[name] == "":
			return fmt.Errorf("--retire %s: the baseline has no such benchmark", name)
		case tonight[name]:
			return fmt.Errorf("--retire %s: it is still measured", name)
		}
	}
	return nil
}
