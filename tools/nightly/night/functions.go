package night

// The functions an alert names: a regression or change point of a
// figure Cachegrind counts per line, between two results that kept their
// line counts (tools/perf/cachegrind/linecounts), names the functions
// whose counts of it moved most (attribution.MovedFunctions) in its
// evidence, which the alert keeps and every view of it prints; when the
// bisect names the first bad commit, the evidence also says how much of
// the move is in that commit's lines (commitLines).

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/changepoint"
	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/history"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

const (
	// namedLines is how many of the first bad commit's lines an alert
	// names.
	namedLines = 3
	// namedFunctions is how many functions an alert names.
	namedFunctions = 3
	// namedFunctionRunes bounds a function's name in an alert, in
	// characters: a C++ name of nested templates runs to KiB.
	namedFunctionRunes = 120
	// movedErrorRunes bounds what an alert says of line counts it could
	// not read.
	movedErrorRunes = 300
)

// movedFunctions is what an alert on figure between the results base and
// change says of the functions that moved it most: "" when the figure is
// not counted per line (attribution.Explains) or either result kept no
// line counts of it (linecounts.FigureFile: a testing.B's per-op figure
// its own function's), else "; moved most in its line counts: F +N, ..." or why
// they could not be read (information only: it fails nothing).
func movedFunctions(figure string, base, change *result.Result, baseOut, changeOut result.Outputs) string {
	if !attribution.Explains(figure) || base == nil || change == nil ||
		linecounts.FigureFile(base, figure) == "" || linecounts.FigureFile(change, figure) == "" {
		return ""
	}
	var sides [2]*linecounts.File
	var err error
	for i, s := range []struct {
		r   *result.Result
		out result.Outputs
	}{{base, baseOut}, {change, changeOut}} {
		if sides[i], err = linecounts.OpenFigure(s.r, s.out, figure); err != nil {
			break
		}
	}
	var moved []attribution.FunctionDelta
	if err == nil {
		goProgram := cachegrind.CountsGoProgram(change)
		moved, err = attribution.MovedFunctions(sides[0], sides[1], figure, goProgram, namedFunctions)
	}
	if err != nil {
		return "; its line counts could not be compared: " + numfmt.Cut(err.Error(), movedErrorRunes)
	}
	if len(moved) == 0 {
		return "; its line counts show no function moved"
	}
	var names []string
	for _, f := range moved {
		names = append(names, numfmt.Cut(f.Function, namedFunctionRunes)+" "+numfmt.Signed(f.Delta()))
	}
	return "; moved most in its line counts: " + strings.Join(names, ", ")
}

// movedFunctionsAt is movedFunctions between the results of two points of
// a history series, read from where the history keeps them.
func movedFunctionsAt(figure string, base, change history.Point) string {
	if !attribution.Explains(figure) {
		return ""
	}
	var rs [2]*result.Result
	var outs [2]result.Outputs
	var errs []error
	for i, p := range []history.Point{base, change} {
		r, out, err := result.Read(p.Source)
		if out != nil {
			defer out.Close()
		}
		rs[i], outs[i] = r, out
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return "; its line counts could not be compared: " + numfmt.Cut(err.Error(), movedErrorRunes)
	}
	return movedFunctions(figure, rs[0], rs[1], outs[0], outs[1])
}

// changeFunctions is movedFunctions of a change point of s: between the
// results of the points on its two sides (the last before the change and
// the first after it), found by their commits and times.
func changeFunctions(s history.Series, cp changepoint.ChangePoint) string {
	if !attribution.Explains(s.Figure) {
		return ""
	}
	find := func(p changepoint.Point) (history.Point, bool) {
		i := slices.IndexFunc(s.Points, func(q history.Point) bool { return q.Commit == p.ID && q.Started.Equal(p.Time) })
		if i < 0 {
			return history.Point{}, false
		}
		return s.Points[i], true
	}
	base, ok := find(cp.Before)
	change, ok2 := find(cp.After)
	if !ok || !ok2 {
		return "; its line counts could not be compared: the change point's results are not among the series' points"
	}
	return movedFunctionsAt(s.Figure, base, change)
}

// commitLines says how much of the bisected figure's move from the first
// bad commit's parent to it is in the lines that commit added or edited
// (attribution.Attribute with the commit as the change, in checkout), and which
// of them moved it most: "" when the answer kept no line counts or its
// figure is not counted per line, else "; in the first bad commit's
// lines: S of its ±N (FILE:LINE ±N, ...)" or why it could not say.
func commitLines(checkout string, b *answer.Answer) string {
	if b.ParentLines == nil || b.FirstBadLines == nil || !cachegrind.Explains(b.Figure) {
		return ""
	}
	fail := func(err error) string {
		return "; the first bad commit's lines could not be attributed: " + numfmt.Cut(err.Error(), movedErrorRunes)
	}
	src := attribution.NewSource(gitwork.Repo(checkout), b.Parent.Commit, b.FirstBad.Commit)
	a, err := attribution.Attribute(b.ParentLines, b.FirstBadLines, src, b.Figure, b.GoProgram)
	if err != nil {
		return fail(err)
	}
	changed := a.Parts[attribution.ChangedLines].Delta()
	share := "none"
	if total := a.Delta(); total != 0 {
		share = fmt.Sprintf("%.0f%%", 100*float64(changed)/float64(total))
	}
	var lines []string
	for _, l := range a.Lines { // largest change first
		if len(lines) == namedLines {
			break
		}
		if l.Part != attribution.ChangedLines || l.Delta() == 0 {
			continue
		}
		at := l.Line
		if at == 0 {
			at = l.BaseLine // a line the commit removed
		}
		lines = append(lines, fmt.Sprintf("%s:%d %s", numfmt.Cut(l.File, namedFunctionRunes), at, numfmt.Signed(l.Delta())))
	}
	text := fmt.Sprintf("; in the first bad commit's lines: %s of its %s %s", share, numfmt.Signed(a.Delta()), b.Figure)
	if len(lines) > 0 {
		text += " (" + strings.Join(lines, ", ") + ")"
	}
	return text
}
