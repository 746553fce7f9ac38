package check

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"havlak-lab/internal/markdown"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// An Attributed is where one regressed or improved counted figure's change
// went (package attribution): its split between the lines the change
// added or edited, the rest of the functions it edited, the program's
// other code and the toolchain, from both sides' counts per line and the
// change's diff. It is information shown under the verdict, never part of
// it.
type Attributed struct {
	Benchmark, Figure string
	*attribution.Attribution
	// Excerpt are the lines of the change's own code (its changed lines
	// and the functions it edited) that moved the figure most, in the
	// order of the source.
	Excerpt []ExcerptLine
}

// An ExcerptLine is one line of an Attributed's excerpt: its counts on
// both sides and its text as the change's diff shows it (Text is "" when
// the diff does not show the line).
type ExcerptLine struct {
	attribution.LineDelta
	Text string
}

// Limits of what an Attributed shows: its text is the change's.
const (
	// excerptLines bounds an excerpt's lines.
	excerptLines = 6
	// excerptText bounds a line's text, in characters.
	excerptText = 120
	// shownName bounds a file's or a function's name, in characters.
	shownName = 160
	// shownFunctions are the functions named for a move outside the
	// change.
	shownFunctions = 3
	// mixedMoves: parts that moved against each other by more than this,
	// the sum of their moves over the whole's, are shown as counts.
	mixedMoves = 1.25
)

// Attribute says where the change of each regressed or improved gated
// figure of s's benchmarks went that line counts explain
// (attribution.Explains: Cachegrind's figures of a program's run, and a
// go_test's own instructions per operation of each benchmark function),
// when both sides kept the line counts of that figure
// (linecounts.OpenFigure: a benchmark function's own, the run's for a
// program), with the change src (its diff read once, when a figure needs
// it). A figure whose sides kept none is left out, saying nothing; what
// could not be read or split is the error, beside the attributions that
// could, and fails nothing.
func Attribute(s *summary.Summary, base, change map[string]Measured, src *attribution.Source) ([]Attributed, error) {
	var out []Attributed
	var errs []error
	var d *attribution.Diff
	for _, b := range s.Benchmarks {
		if base[b.Name].Result == nil || change[b.Name].Result == nil {
			continue
		}
		goProgram := cachegrind.CountsGoProgram(change[b.Name].Result)
		for _, figure := range attributedFigures(b) {
			sides, err := figureLines(base[b.Name], change[b.Name], figure)
			if errors.Is(err, linecounts.ErrNone) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: where %s went: %w", b.Name, figure, err))
				continue
			}
			if d == nil {
				if d, err = src.Diff(); err != nil {
					return out, errors.Join(append(errs, fmt.Errorf("where the figures went: %w", err))...)
				}
			}
			a, err := attribution.Attribute(sides[0], sides[1], src, figure, goProgram)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: where %s went: %w", b.Name, figure, err))
				continue
			}
			out = append(out, Attributed{Benchmark: b.Name, Figure: figure, Attribution: a, Excerpt: excerpt(a, d)})
		}
	}
	return out, errors.Join(errs...)
}

// attributedFigures are b's gated figures that regressed or improved and
// that line counts explain, each once, in b's order.
func attributedFigures(b summary.Benchmark) []string {
	var figures []string
	for _, v := range b.Figures {
		shown := v.Rule.Gated && (v.Outcome == verdict.Regressed || v.Outcome == verdict.Improved)
		if shown && attribution.Explains(v.Figure) && !slices.Contains(figures, v.Figure) {
			figures = append(figures, v.Figure)
		}
	}
	return figures
}

// figureLines are the line counts that explain figure on each side,
// base's first (linecounts.OpenFigure; ErrNone when either kept none).
func figureLines(base, change Measured, figure string) ([2]*linecounts.File, error) {
	var sides [2]*linecounts.File
	for i, m := range []Measured{base, change} {
		f, err := linecounts.OpenFigure(m.Result, m.Outputs, figure)
		if err != nil {
			return sides, err
		}
		sides[i] = f
	}
	return sides, nil
}

// excerpt are the lines of the change's own code that moved a's figure
// most, in the order of the source: its changed lines and the unchanged
// lines of the functions it edited, each with its text from d.
func excerpt(a *attribution.Attribution, d *attribution.Diff) []ExcerptLine {
	var lines []ExcerptLine
	for _, l := range a.Lines { // largest change first
		if len(lines) == excerptLines {
			break
		}
		if l.Delta() == 0 || l.Part != attribution.ChangedLines && l.Part != attribution.EditedFunctions {
			continue
		}
		text, _ := d.Text(l.File, l.Line, l.BaseLine)
		lines = append(lines, ExcerptLine{LineDelta: l, Text: text})
	}
	slices.SortStableFunc(lines, func(x, y ExcerptLine) int {
		return cmp.Or(strings.Compare(x.File, y.File), compareLine(x, y))
	})
	return lines
}

// compareLine orders two lines of one file: by the change's line, a
// removed one near where the base's line was.
func compareLine(x, y ExcerptLine) int {
	at := func(l ExcerptLine) uint64 { return cmp.Or(l.Line, l.BaseLine) }
	return cmp.Compare(at(x), at(y))
}

// Markdown is the attribution as the comment shows it: one line saying
// where the change went, and, folded under it, the excerpt of the lines
// that moved it most with their counts before and after. Every name and
// line of source is the change's, escaped (a source line only ever inside
// a code block, markdown.CodeBlock).
func (a Attributed) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** %s %s: ", markdown.Escape(a.Benchmark), numfmt.Signed(a.Delta()), markdown.Escape(a.Figure))
	switch {
	case !slices.ContainsFunc(a.Parts[:], func(p attribution.Sums) bool { return p.Delta() != 0 }):
		b.WriteString("its line counts show no change (a median over runs may move where one run's counts do not)")
	case a.Outside():
		b.WriteString("**" + attribution.OutsideLabel + "**")
		if own := a.Parts[attribution.ChangedLines].Delta() + a.Parts[attribution.EditedFunctions].Delta(); own != 0 {
			fmt.Fprintf(&b, " (%s in the change's own lines and functions)", numfmt.Signed(own))
		}
		var moved []string
		for _, f := range a.Functions[:min(len(a.Functions), shownFunctions)] {
			moved = append(moved, markdown.Code(numfmt.Cut(f.Function, shownName))+" "+numfmt.Signed(f.Delta()))
		}
		if len(moved) > 0 {
			b.WriteString("; moved most: " + strings.Join(moved, ", "))
		}
	default:
		b.WriteString(a.partsText())
	}
	b.WriteString("\n")
	if len(a.Excerpt) > 0 && !a.Outside() {
		var lines []string
		file := ""
		for _, l := range a.Excerpt {
			if l.File != file {
				file = l.File
				lines = append(lines, numfmt.Cut(file, shownName))
			}
			label := fmt.Sprintf("%d", l.Line)
			switch {
			case l.Part == attribution.ChangedLines && l.Line == 0:
				label = fmt.Sprintf("-%d", l.BaseLine)
			case l.Part == attribution.ChangedLines:
				label = "+" + label
			}
			lines = append(lines, fmt.Sprintf("%13s → %-13s %7s  %s", numfmt.Number(float64(l.Base)), numfmt.Number(float64(l.Change)), label, numfmt.Cut(l.Text, excerptText)))
		}
		fmt.Fprintf(&b, "\n<details><summary>the lines that moved it most: %s before → after (+ added or edited, - removed, base's line)</summary>\n\n%s\n</details>\n",
			markdown.Escape(a.Weight), markdown.CodeBlock(lines))
	}
	return b.String()
}

// partsText says how the change split, the lines the change added or
// edited first with where they are: each part that moved as its share of
// the whole (a part that moved against it, negative), unless parts moved
// against each other by more than mixedMoves of the whole, when shares
// would mislead (+600% and -500%): then as its own signed count.
func (a Attributed) partsText() string {
	total := a.Delta()
	var moved float64
	for _, p := range a.Parts {
		moved += math.Abs(float64(p.Delta()))
	}
	shares := total != 0 && moved <= mixedMoves*math.Abs(float64(total))
	var parts []string
	for i, p := range a.Parts {
		d := p.Delta()
		if d == 0 {
			continue
		}
		text := numfmt.Signed(d)
		if shares {
			text = numfmt.Share(d, total)
		}
		text += " in " + attribution.Part(i).String()
		if attribution.Part(i) == attribution.ChangedLines {
			text += where(a.Lines)
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}

// where are the lines of the change's side that the change added or edited
// and that moved: the file whose line moved most, from its first such
// line to its last, and how many other files have some.
func where(lines []attribution.LineDelta) string {
	file := ""
	var first, last uint64
	others := map[string]bool{}
	for _, l := range lines { // largest change first
		if l.Part != attribution.ChangedLines || l.Delta() == 0 {
			continue
		}
		switch {
		case file == "":
			file, first, last = l.File, l.Line, l.Line
		case l.File != file:
			others[l.File] = true
			continue
		}
		if l.Line != 0 && (first == 0 || l.Line < first) {
			first = l.Line
		}
		last = max(last, l.Line)
	}
	if file == "" {
		return ""
	}
	at := file
	switch {
	case first == 0: // only lines it removed
	case first == last:
		at += fmt.Sprintf(":%d", first)
	default:
		at += fmt.Sprintf(":%d–%d", first, last)
	}
	text := ", " + markdown.Code(numfmt.Cut(at, shownName))
	if len(others) > 0 {
		text += fmt.Sprintf(" and %d more files", len(others))
	}
	return text
}
