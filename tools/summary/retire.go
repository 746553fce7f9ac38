package summary

import (
	"strings"

	"havlak-lab/tools/result"
)

// Retire is the value of a --retire flag, given once per benchmark: the
// baseline's benchmarks that left the suite on purpose, each a benchmark
// name (result.CheckName). A comparison told of them does not count them
// missing, and marks them Retired.
type Retire []string

// String lists the names, comma-separated.
func (r *Retire) String() string { return strings.Join(*r, ",") }

// Set adds a name, refusing one that cannot name a benchmark.
func (r *Retire) Set(name string) error {
	if err := result.CheckName(name); err != nil {
		return err
	}
	*r = append(*r, name)
	return nil
}
