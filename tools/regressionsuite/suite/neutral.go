package suite

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"havlak-lab/internal/markdown"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/verdict"
)

// HalfThreshold is the neutral corpus's goal for every move: under half
// its figure's threshold, so that a neutral change stays clear of the gate
// by as much again as it moved.
const HalfThreshold = 0.5

// A Move is a gated figure of a benchmark a neutral case reaches, judged
// against the unchanged base.
type Move struct {
	Benchmark string
	Verdict   verdict.Verdict
}

// Share is the move as a fraction of its threshold, either way: 1 is the
// threshold itself. A figure with a threshold of 0 moved infinitely far if
// it moved at all; one not judged (missing, not comparable) did not move.
func (m Move) Share() float64 {
	if !m.judged() {
		return 0
	}
	change := math.Abs(float64(m.Verdict.Change))
	if change == 0 {
		return 0
	}
	return change / m.Verdict.Rule.Threshold
}

// judged tells whether the figure was compared: its change means
// something.
func (m Move) judged() bool {
	switch m.Verdict.Outcome {
	case verdict.Unchanged, verdict.Regressed, verdict.Improved:
		return true
	}
	return false
}

// Alarm tells whether the move set the gate off: a gated figure that
// failed the comparison or improved beyond its threshold. An improvement
// passes a change, but a neutral one should not move that far either way.
func (m Move) Alarm() bool {
	return m.Verdict.Fails() || m.Verdict.Outcome == verdict.Improved
}

// String is the move for a log or an error: "instructions +0.30% in
// havlak7cc (0.12 of its threshold)".
func (m Move) String() string {
	return fmt.Sprintf("%s %s in %s (%s of its threshold)", m.Verdict.Figure, m.moveText(), m.Benchmark, shareText(m.Share()))
}

// moveText is the change, or why there is none.
func (m Move) moveText() string {
	if !m.judged() {
		return m.Verdict.Label()
	}
	return m.Verdict.ChangeText(2)
}

func shareText(share float64) string {
	if math.IsInf(share, 1) {
		return "∞ (a threshold of 0)"
	}
	return fmt.Sprintf("%.2f", share)
}

// Moves are the gated figures of a neutral case's benchmarks; none for a
// regression case, whose figures are the detection matrix's.
func (o Outcome) Moves() []Move {
	if !o.Case.IsNeutral() {
		return nil
	}
	var moves []Move
	for _, b := range o.Benchmarks {
		for _, f := range b.Figures {
			if f.Rule.Gated {
				moves = append(moves, Move{Benchmark: b.Name, Verdict: f})
			}
		}
	}
	return moves
}

// Alarms are a neutral case's moves that set the gate off: each a false
// alarm.
func (o Outcome) Alarms() []Move {
	var alarms []Move
	for _, m := range o.Moves() {
		if m.Alarm() {
			alarms = append(alarms, m)
		}
	}
	return alarms
}

// largest is the index of the move of moves furthest from no move,
// relative to its threshold, the first of equals; -1 without moves.
func largest(moves []Move) int {
	top := -1
	for i, m := range moves {
		if top < 0 || m.Share() > moves[top].Share() {
			top = i
		}
	}
	return top
}

// neutralSummary is a neutral outcome that ran, in a line.
func (o Outcome) neutralSummary() string {
	if alarms := o.Alarms(); len(alarms) > 0 {
		var said []string
		for _, a := range alarms {
			said = append(said, a.String())
		}
		return "FALSE ALARM: " + strings.Join(said, ", ")
	}
	moves := o.Moves()
	top := largest(moves)
	if top < 0 {
		return "no gated figure measured in " + strings.Join(o.Case.Benchmarks, ", ")
	}
	return "no alarm; the largest move: " + moves[top].String()
}

// figureMoves are one gated figure's moves over the neutral corpus, each
// with the case it is of.
type figureMoves struct {
	figure string
	moves  []Move
	cases  []string // by move
	alarms int
}

// writeNeutral writes the neutral matrix: per gated figure, its largest
// move over the neutral cases as a fraction of its threshold, and the
// false alarms; then each case that raised one or could not be run.
// Nothing when no neutral case was run.
func (m *Matrix) writeNeutral(w io.Writer) {
	var ran, notRun []Outcome
	for _, o := range m.Outcomes {
		switch {
		case !o.Case.IsNeutral():
		case o.Err != "":
			notRun = append(notRun, o)
		default:
			ran = append(ran, o)
		}
	}
	if len(ran)+len(notRun) == 0 {
		return
	}
	var figures []*figureMoves
	alarms, overHalf := 0, 0
	for _, o := range ran {
		for _, mv := range o.Moves() {
			i := slices.IndexFunc(figures, func(f *figureMoves) bool { return f.figure == mv.Verdict.Figure })
			if i < 0 {
				figures = append(figures, &figureMoves{figure: mv.Verdict.Figure})
				i = len(figures) - 1
			}
			f := figures[i]
			f.moves = append(f.moves, mv)
			f.cases = append(f.cases, o.Case.Name)
			if mv.Alarm() {
				f.alarms++
				alarms++
			}
			if mv.Share() >= HalfThreshold {
				overHalf++
			}
		}
	}
	slices.SortFunc(figures, func(a, b *figureMoves) int { return strings.Compare(a.figure, b.figure) })

	fmt.Fprintf(w, "\nNeutral changes: false alarms: %d in %d cases run (goal: 0); moves of a gated figure at or over half its threshold: %d (goal: 0).\n", alarms, len(ran), overHalf)
	fmt.Fprintln(w, "Each case changes code without changing what it computes or the work it does (a string reworded, code reordered or moved, a local renamed); each gated figure of every benchmark it reaches is judged against the unchanged base, and one that moves past its threshold, either way, is a false alarm.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| gated figure | largest move / threshold | that move | judged | false alarms |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, f := range figures {
		i := largest(f.moves)
		top := f.moves[i]
		share := shareText(top.Share())
		if top.Share() >= HalfThreshold {
			share = "**" + share + "**"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s of %s in %s (%s) | %d | %d |\n", f.figure, share,
			top.moveText(), verdict.Percent(top.Verdict.Rule.Threshold), markdown.Escape(top.Benchmark), markdown.Escape(f.cases[i]), len(f.moves), f.alarms)
	}
	m.writeNeutralWhere(w, ran)
	var lines []string
	for _, o := range ran {
		for _, a := range o.Alarms() {
			lines = append(lines, fmt.Sprintf("%s: **false alarm**: %s", o.Case.Name, markdown.Escape(a.String())))
		}
	}
	for _, o := range notRun {
		lines = append(lines, fmt.Sprintf("%s: not run: %s", o.Case.Name, markdown.Escape(o.Err)))
	}
	if len(lines) > 0 {
		fmt.Fprintln(w)
		for _, l := range lines {
			fmt.Fprintf(w, "- %s\n", l)
		}
	}
}

// writeNeutralWhere says where the neutral cases' instructions moved, by
// the perf check's attribution with the patch as the diff: a neutral
// change's own lines should not carry the move (the outside ones are
// layout or code generation), so each move that is not outside is named.
func (m *Matrix) writeNeutralWhere(w io.Writer, ran []Outcome) {
	var moved, outside int
	var inside []string
	for _, o := range ran {
		for _, where := range o.Where {
			a := where.Attribution
			// A figure is a checked metric name (ParseCase, or the
			// instructions' own); the rest is escaped.
			named := fmt.Sprintf("%s: %s `%s`", markdown.Escape(o.Case.Name), markdown.Escape(where.Benchmark), where.Figure)
			if a == nil || a.Delta() == 0 {
				inside = append(inside, named+": "+markdown.Escape(where.String()))
				continue
			}
			moved++
			if a.Outside() {
				outside++
				continue
			}
			inside = append(inside, named+" "+numfmt.Signed(a.Delta())+": "+markdown.Escape(where.String()))
		}
	}
	if moved+len(inside) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhere their instructions moved (the perf check's attribution, the patch as the diff): %d of %d moves %s; the others:\n\n", outside, moved, attribution.OutsideLabel)
	for _, line := range inside {
		fmt.Fprintf(w, "- %s\n", line)
	}
}
