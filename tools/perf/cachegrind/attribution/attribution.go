// Package attribution splits the change of a Cachegrind figure between two
// runs, a base and a change, by where it happened, from the runs' counts
// per line (package linecounts) and the change's diff (Source): did
// the change's own lines do it? It is the one owner of that split; the
// perf check's comment, the dashboard and the nightly show what it says.
//
// Each line of the change's side is mapped to the base's through the diff:
// a line outside every hunk moves by the lines the hunks before it added
// and removed, a context line to its pair; a line the change added or
// edited (a "+" line) has none, nor has a base line it removed or edited
// (a "-" line). Every counted line of either side then lands in exactly
// one of four parts:
//
//	ChangedLines     lines the change added or edited, and the base's
//	                 lines it removed or edited
//	EditedFunctions  unchanged lines of the program's own sources in a
//	                 function the change edited: one that ran a line
//	                 among the changed lines of either side (any event
//	                 counted there, whatever the figure)
//	OtherOwnCode     the rest of the program's own sources
//	Toolchain        the Go SDK (runtime and standard library), other
//	                 repositories and the toolchain's libraries
//	                 (linecounts.Origin other than KindOwn)
//
// A part's change is its lines' sum on the change's side less their sum on
// the base's, so the four add up to the figure's change exactly, whatever
// the lines did. A move of the last two alone, nothing in the first two,
// is the compiler's or the layout's doing, not the author's lines.
//
// # Limits
//
//   - Cachegrind counts a line where the machine code came from: an
//     inlined function's cost is on the inlined function's lines, under the
//     function it was inlined into. A change to a small function inlined
//     elsewhere lands in ChangedLines (its lines) and makes the functions
//     it was inlined into edited ones. The other way round, library code
//     inlined into the program's own (a std::vector's push_back, a Go
//     standard library helper) counts on the library's lines, in
//     Toolchain, even when the change's added line is what called it:
//     Cachegrind keeps no call site, so a patch whose work is mostly
//     inlined library code shows less of it in ChangedLines.
//   - A changed line that counts nothing (a declaration, a comment, a line
//     the compiler folded into another) edits no function: a change of
//     code generation it causes lands in OtherOwnCode.
//   - A function is known by Cachegrind's name on both sides: a renamed
//     function, or a C++ one whose signature changed, is two.
//   - Go's runtime is set apart as the figures set it apart
//     (cachegrind.GoRuntime): a Go program's own instructions and cache
//     figures leave its functions out of every part; its total
//     instructions keep them, in Toolchain.
//   - The split is of the two line-count files, each of one run (the
//     count's first, cache-simulated): exact for a C or C++ program,
//     whose counts repeat; a Go program's figure is a median over runs
//     and may differ from one run's by the runtime's noise.
//   - A go_test's own instructions per operation of one benchmark function
//     (Explains) is split over that function's own line counts, one
//     operation's (the difference of its first repetition's runs, each
//     line to the nearest instruction: perop.PerOperation), never over the
//     run's, which add up every function's: a line run less often than
//     every second operation is not among them.
package attribution

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

// A Part is where a line's counts land.
type Part int

// The parts, in the order a reader is shown them.
const (
	ChangedLines Part = iota
	EditedFunctions
	OtherOwnCode
	Toolchain
	NumParts
)

var partNames = [NumParts]string{"lines the change added or edited", "unchanged lines of functions the change edited",
	"other code of the program's own sources", "the toolchain, runtime and standard library"}

func (p Part) String() string {
	if p < 0 || p >= NumParts {
		return fmt.Sprintf("Part(%d)", int(p))
	}
	return partNames[p]
}

// A Weight is what is attributed: how a line's events count, and whether
// the Go runtime's functions are left out.
type Weight struct {
	Name  string
	Value func(cachegrind.Events) uint64
	// LeaveOutGoRuntime leaves out cachegrind.GoRuntime's functions.
	LeaveOutGoRuntime bool
	// NeedsCache: the value reads the cache simulation's events.
	NeedsCache bool
}

// Explains tells whether a change of figure can be split by line: one of
// Cachegrind's figures of a run (cachegrind.Explains), or a go_test's own
// instructions per operation of one benchmark function
// (result.OfBenchmark), which its function's own line counts explain
// (linecounts.OpenFigure), one operation's.
func Explains(figure string) bool {
	family, _, ok := result.OfBenchmark(figure)
	return cachegrind.Explains(figure) || ok && family == result.FigureOwnInstructionsPerOp
}

// figureWeight is the weight of figure, a name of cachegrind's Metrics or
// CacheMetrics, as that figure counts it for a Go program or another, or
// a benchmark function's own instructions per operation: its
// instructions outside the Go runtime, whoever asks.
func figureWeight(figure string, goProgram bool) (Weight, error) {
	if family, _, ok := result.OfBenchmark(figure); ok && family == result.FigureOwnInstructionsPerOp {
		ir := func(e cachegrind.Events) uint64 { return e[cachegrind.Ir] }
		return Weight{Name: figure, Value: ir, LeaveOutGoRuntime: true}, nil
	}
	value, own, err := cachegrind.FigureEvents(figure, goProgram)
	if err != nil {
		return Weight{}, err
	}
	needsCache := figure != cachegrind.MetricInstructions && figure != cachegrind.MetricOwnInstructions
	return Weight{Name: figure, Value: value, LeaveOutGoRuntime: own, NeedsCache: needsCache}, nil
}

// eventWeight is the weight of one of Cachegrind's events ("Ir", "D1mr",
// ...: cachegrind.CacheEvents), every function counted.
func eventWeight(event string) (Weight, error) {
	i := slices.Index(cachegrind.CacheEvents[:], event)
	if i < 0 {
		return Weight{}, fmt.Errorf("event %q: Cachegrind's are %s", event, strings.Join(cachegrind.CacheEvents[:], " "))
	}
	return Weight{Name: event, Value: func(e cachegrind.Events) uint64 { return e[i] }, NeedsCache: i != cachegrind.Ir}, nil
}

// An Attribution is a figure's change split by where it happened.
type Attribution struct {
	Weight       string
	Base, Change uint64 // the figure's sums over each side's lines
	// Parts are each part's sums on each side; their changes add up to
	// Change-Base.
	Parts [NumParts]Sums
	// Lines are the lines whose counts changed, and every changed line
	// that counted, by the change's file and line (the base's for a
	// removed one), largest change first.
	Lines []LineDelta
	// Functions are the functions whose counts changed, largest change
	// first.
	Functions []FunctionDelta
	// weight is how it counted a line (LineSums counts so too).
	weight Weight
}

// Sums are one part's counts on each side.
type Sums struct{ Base, Change uint64 }

// Delta is the change from base to change.
func (s Sums) Delta() int64 { return int64(s.Change) - int64(s.Base) }

// Delta is the figure's change.
func (a *Attribution) Delta() int64 { return int64(a.Change) - int64(a.Base) }

// A LineDelta is one line's counts on each side, of the functions whose
// lines there land in Part.
type LineDelta struct {
	File string
	// Line is the change's line, 0 for a base line the change removed;
	// BaseLine the base's, 0 for a line the change added.
	Line, BaseLine uint64
	Part           Part
	Sums
}

// A FunctionDelta is one function's counts on each side.
type FunctionDelta struct {
	Function string
	Edited   bool // the change edited it (EditedFunctions)
	Sums
}

// maxSum keeps every sum and difference in an int64.
const maxSum = math.MaxInt64

// attribute splits w's change from base to change, whose sources differ
// by d (nil: by nothing), into the parts.
func attribute(base, change *linecounts.File, d *Diff, w Weight) (*Attribution, error) {
	if w.NeedsCache && (!base.Cache || !change.Cache) {
		return nil, fmt.Errorf("%s: needs the cache simulation's events, which a run without it has not", w.Name)
	}
	if d == nil {
		d = &Diff{}
	}
	a := &attributor{d: d, w: w, edited: map[string]bool{}, lines: map[lineKey]*Sums{}, functions: map[string]*Sums{}}
	a.findEdited(base, baseSide)
	a.findEdited(change, changeSide)
	out := &Attribution{Weight: w.Name, weight: w}
	for _, s := range []side{baseSide, changeSide} {
		f := map[side]*linecounts.File{baseSide: base, changeSide: change}[s]
		for _, r := range f.Records {
			if err := a.add(out, s, r); err != nil {
				return nil, err
			}
		}
	}
	out.Lines, out.Functions = a.lineDeltas(), a.functionDeltas()
	return out, nil
}

// attributor is Attribute's state.
type attributor struct {
	d         *Diff
	w         Weight
	edited    map[string]bool // the functions the change edited
	lines     map[lineKey]*Sums
	functions map[string]*Sums
}

type lineKey struct {
	file           string
	line, baseLine uint64
	part           Part
}

// counted is a record's weight, or 0 when the weight leaves it out.
func (a *attributor) counted(r linecounts.Record) uint64 {
	if a.w.LeaveOutGoRuntime && cachegrind.GoRuntime(r.Function) {
		return 0
	}
	return a.w.Value(r.Events)
}

// fileOn is the diff's file of an own file of side s, or nil.
func (a *attributor) fileOn(s side, file string) *fileDiff {
	if linecounts.Origin(file) != linecounts.KindOwn {
		return nil
	}
	if s == baseSide {
		return a.d.byBase[file]
	}
	return a.d.byChange[file]
}

// findEdited adds the functions that ran a line only side s has. Any
// record counts, whatever the weight: which functions the change edited
// is a fact of the diff and the runs, the same for every figure, so that
// a function whose added loop misses no D1 line is edited for D1 misses
// as it is for instructions.
func (a *attributor) findEdited(f *linecounts.File, s side) {
	for _, r := range f.Records {
		if fd := a.fileOn(s, r.File); fd != nil && fd.changed(s, int(min(r.Line, maxLineNumber+1))) {
			a.edited[r.Function] = true
		}
	}
}

// add adds a record of side s to its part, line and function.
func (a *attributor) add(out *Attribution, s side, r linecounts.Record) error {
	v := a.counted(r)
	if v == 0 {
		return nil
	}
	key := lineKey{file: r.File, part: a.partOf(s, r)}
	fd := a.fileOn(s, r.File)
	key.line, key.baseLine = r.Line, r.Line
	switch {
	case fd == nil:
	case key.part == ChangedLines && s == changeSide:
		key.baseLine = 0
	case key.part == ChangedLines:
		key.file, key.line = cmpOr(fd.change, fd.base), 0
	default:
		other, _ := fd.mapLine(s, int(min(r.Line, maxLineNumber+1)))
		key.file = cmpOr(fd.change, fd.base)
		if s == baseSide {
			key.line = uint64(other)
		} else {
			key.baseLine = uint64(other)
		}
	}
	if a.lines[key] == nil {
		a.lines[key] = &Sums{}
	}
	if a.functions[r.Function] == nil {
		a.functions[r.Function] = &Sums{}
	}
	for _, sums := range []*Sums{&out.Parts[key.part], a.lines[key], a.functions[r.Function]} {
		if !addTo(sums, s, v) {
			return errors.New(a.w.Name + ": counts over 2^63")
		}
	}
	total := &Sums{out.Base, out.Change}
	if !addTo(total, s, v) {
		return errors.New(a.w.Name + ": counts over 2^63")
	}
	out.Base, out.Change = total.Base, total.Change
	return nil
}

// addTo adds v to side s of sums, false past maxSum.
func addTo(sums *Sums, s side, v uint64) bool {
	at := &sums.Base
	if s == changeSide {
		at = &sums.Change
	}
	sum, carry := bits.Add64(*at, v, 0)
	if carry != 0 || sum > maxSum {
		return false
	}
	*at = sum
	return true
}

// partOf is the part a record of side s lands in.
func (a *attributor) partOf(s side, r linecounts.Record) Part {
	if linecounts.Origin(r.File) != linecounts.KindOwn {
		return Toolchain
	}
	if fd := a.fileOn(s, r.File); fd != nil && fd.changed(s, int(min(r.Line, maxLineNumber+1))) {
		return ChangedLines
	}
	if a.edited[r.Function] {
		return EditedFunctions
	}
	return OtherOwnCode
}

// lineDeltas are the lines that changed, or that the change changed,
// largest change first.
func (a *attributor) lineDeltas() []LineDelta {
	var out []LineDelta
	for k, s := range a.lines {
		if s.Delta() != 0 || k.part == ChangedLines {
			out = append(out, LineDelta{File: k.file, Line: k.line, BaseLine: k.baseLine, Part: k.part, Sums: *s})
		}
	}
	slices.SortFunc(out, func(x, y LineDelta) int {
		return cmp.Or(cmp.Compare(abs(y.Delta()), abs(x.Delta())), strings.Compare(x.File, y.File),
			cmp.Compare(x.Line, y.Line), cmp.Compare(x.BaseLine, y.BaseLine), cmp.Compare(x.Part, y.Part))
	})
	return out
}

// functionDeltas are the functions whose counts changed, largest change
// first.
func (a *attributor) functionDeltas() []FunctionDelta {
	var out []FunctionDelta
	for name, s := range a.functions {
		if s.Delta() != 0 {
			out = append(out, FunctionDelta{Function: name, Edited: a.edited[name], Sums: *s})
		}
	}
	slices.SortFunc(out, func(x, y FunctionDelta) int {
		return cmp.Or(cmp.Compare(abs(y.Delta()), abs(x.Delta())), strings.Compare(x.Function, y.Function))
	})
	return out
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
