package suite

import (
	"errors"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
)

// A Where is where a case's change of one figure of one benchmark went,
// split by the attribution the perf check's comment shows (package
// attribution) with the patch as the change's diff: a regression case's
// figure should move in the patch's lines, a neutral case's instructions
// outside them. Attribution is nil when Err says why.
type Where struct {
	Benchmark, Figure string
	Attribution       *attribution.Attribution
	Err               string
}

// String is where it went in words: "97% in lines the change added or
// edited", "outside the change: layout or code generation", or why not.
func (w Where) String() string {
	a := w.Attribution
	switch {
	case a == nil:
		return "not attributed: " + w.Err
	case a.Delta() == 0:
		return "its line counts show no change"
	case a.Outside():
		return attribution.OutsideLabel
	}
	share := numfmt.Share(a.Parts[attribution.ChangedLines].Delta(), a.Delta())
	if share == "" {
		share = "0%"
	}
	text := share + " in " + attribution.ChangedLines.String()
	most := attribution.ChangedLines
	for p := range attribution.NumParts {
		if abs(a.Parts[p].Delta()) > abs(a.Parts[most].Delta()) {
			most = p
		}
	}
	if most != attribution.ChangedLines {
		text += ", most in " + most.String()
	}
	return text
}

func abs(v int64) int64 { return max(v, -v) }

// figureToAttribute is the figure of a case's benchmark whose change is
// attributed: a regression case's own figure; for a neutral case, the
// program's instructions (its own, for Go, as its gate counts them).
func figureToAttribute(c Case, goProgram bool) string {
	if !c.IsNeutral() {
		return c.Figure
	}
	return cachegrind.GatedMetric(goProgram)
}

// where attributes each benchmark's figure of case c from the base's line
// counts to the change's, against the patched checkout as a change of the
// base (the perf check's change): one Where per benchmark, in the case's
// order.
func (r *Runner) where(c Case, change map[string]measured) []Where {
	src := attribution.NewSource(gitwork.Repo(r.Scratch), r.base, "")
	var out []Where
	for _, b := range c.Benchmarks {
		base, after := r.baseLines[b], change[b]
		w := Where{Benchmark: b, Figure: figureToAttribute(c, after.goProgram)}
		var err error
		switch {
		case !cachegrind.Explains(w.Figure):
			// A figure Cachegrind does not count per line (allocations,
			// system calls): nothing to attribute.
			continue
		case base == nil || after.lines == nil:
			err = errors.New("a side kept no line counts")
		default:
			w.Attribution, err = attribution.Attribute(base, after.lines, src, w.Figure, after.goProgram)
		}
		if err != nil {
			w.Err = err.Error()
		}
		out = append(out, w)
	}
	return out
}
