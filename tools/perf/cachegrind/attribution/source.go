package attribution

import (
	"math"

	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// OutsideShare: a move with at most this share of it, each part counted
// absolutely, in the change's lines and the functions it edited is
// outside the change (Outside).
const OutsideShare = 0.05

// OutsideLabel is how every renderer names a move outside the change.
const OutsideLabel = "outside the change: layout or code generation"

// Outside tells whether the change moved the figure from outside its own
// code: no more than OutsideShare of the move, counting each part's
// absolutely, in the lines it changed and the functions it edited. A move
// mostly in the toolchain's code when the changed lines ran is not called
// so: it may be library code those lines call, which Cachegrind counts on
// the library's lines (the package's limits). It means something only of
// an attribution made with the change's diff: without one no line is
// changed.
func (a *Attribution) Outside() bool {
	abs := func(p Part) float64 { return math.Abs(float64(a.Parts[p].Delta())) }
	var all float64
	for p := range NumParts {
		all += abs(p)
	}
	ran := a.Parts[ChangedLines] != Sums{}
	return all > 0 && abs(ChangedLines)+abs(EditedFunctions) <= OutsideShare*all &&
		!(ran && 2*abs(Toolchain) > all)
}

// LineSums are the sums of the records of file on one side, by line,
// every function's together, as a counted them (the Go runtime's
// functions left out when w leaves them out): the counts a page showing
// the source prints beside lines whose counts did not change, which
// Attribution.Lines leaves out.
func (a *Attribution) LineSums(f *linecounts.File, file string) map[uint64]uint64 {
	c := &attributor{w: a.weight}
	sums := map[uint64]uint64{}
	for _, r := range f.Records {
		if r.File == file {
			sums[r.Line] += c.counted(r)
		}
	}
	return sums
}

// BaseOf is the base's file and line of line of the change's file: the
// line itself when the diff (nil: none) does not touch the file; ok is
// false for a line the change added or edited.
func (d *Diff) BaseOf(file string, line uint64) (baseFile string, baseLine uint64, ok bool) {
	if d == nil || d.byChange[file] == nil {
		return file, line, true
	}
	f := d.byChange[file]
	if f.base == "" || line == 0 || line > maxLineNumber {
		return f.base, 0, false
	}
	n, ok := f.mapLine(changeSide, int(line))
	if !ok {
		return f.base, 0, false
	}
	return f.base, uint64(n), true
}
