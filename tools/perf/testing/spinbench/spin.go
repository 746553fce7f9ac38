// Package spinbench is the testing.B of a made-up study
// (tools/perf/testing): a loop of multiplications, whose work per operation
// its variants change by a known amount, to show that a go_benchmark's
// count catches 1% more work in a benchmark and raises no alarm on a
// change that does none; and a second benchmark function, a loop of
// shifts that no variant changes, to show that the extra work is
// attributed to the first one's lines alone.
package spinbench

import "strconv"

// Set by the linker (go_test's x_defs) in the variants: extraTurns adds
// turns to every operation's 1000; variant names a build, which changes
// the binary and not its work.
var (
	extraTurns = "0"
	variant    = "base"
)

// Turns are the turns of one operation, 1000 and the variant's extra
// turns; an extraTurns that is no number is an error.
func Turns() (int, error) {
	extra, err := strconv.Atoi(extraTurns)
	return 1000 + extra, err
}

// Variant names the build.
func Variant() string { return variant }

// Spin is n turns of a linear congruential generator: about six
// instructions a turn, none of them the runtime's.
func Spin(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s = s*6364136223846793005 + uint64(i)
	}
	return s
}

// StirTurns are the turns of one Stir operation, in every variant.
const StirTurns = 1000

// Stir is n turns of a xorshift generator: a few instructions a
// turn, none of them the runtime's.
func Stir(n int) uint64 {
	s := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
	}
	return s
}
