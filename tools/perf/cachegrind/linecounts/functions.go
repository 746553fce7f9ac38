package linecounts

import (
	"cmp"
	"slices"
	"strings"

	"havlak-lab/tools/perf/cachegrind"
)

// A FunctionCount is the instructions one function ran, over every line
// it ran: its own sources' and any inlined into it.
type FunctionCount struct {
	Function     string
	Instructions uint64
}

// OwnFunctions are the n functions of the program's own code that ran
// the most instructions, most first (then by name): the functions that
// ran a line of the program's own sources (Origin KindOwn), the Go
// runtime's aside as the figures set it apart (cachegrind.GoRuntime),
// each with all its instructions (what File.Counts gives it). The
// toolchain's and the standard library's own functions are left out:
// they are the toolchain's, not the program's. n ≤ 0 gives none.
func (f *File) OwnFunctions(n int) []FunctionCount {
	if n <= 0 {
		return nil
	}
	own := map[string]bool{}
	counts := map[string]uint64{}
	for _, r := range f.Records {
		if cachegrind.GoRuntime(r.Function) {
			continue
		}
		if Origin(r.File) == KindOwn {
			own[r.Function] = true
		}
		// A checked file's total fits in 64 bits: so does a function's.
		counts[r.Function] += r.Events[cachegrind.Ir]
	}
	var out []FunctionCount
	for fn := range own {
		if counts[fn] > 0 {
			out = append(out, FunctionCount{Function: fn, Instructions: counts[fn]})
		}
	}
	slices.SortFunc(out, func(a, b FunctionCount) int {
		return cmp.Or(cmp.Compare(b.Instructions, a.Instructions), strings.Compare(a.Function, b.Function))
	})
	return out[:min(n, len(out))]
}
