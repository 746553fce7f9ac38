// Package pgolib is a go_library compiled with a profile, for the analysis
// test of the pgoprofile patch (tools/repositories/patches).
package pgolib

// Sum adds up xs.
func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
