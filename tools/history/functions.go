package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"

	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

// A result that keeps Cachegrind's counts per line (its line_counts,
// package linecounts) adds, beside its figures, a series per function of
// the program's own code among the TopFunctions that ran the most
// instructions (linecounts.File.OwnFunctions): which functions a counted
// figure's change is in, night after night. A function series is charted
// and searched for change points, never gated: its figure is declared
// ungated, its source is FunctionSource, and the table of series marks it
// of KindFunction, which staleness reads (a function leaves the top when
// another outgrows it, and its series stops: that is not a benchmark gone
// quiet). Its name is FunctionFigure's: readable, but never parsed.

// TopFunctions is how many functions of a result get a series.
const TopFunctions = 10

// FunctionSource is the source of every function series' figure, and of
// no figure a result declares: ingest refuses a result whose figure
// claims it.
const FunctionSource = "cachegrind line counts: one function's instructions"

// FunctionUnit is a function series' unit.
const FunctionUnit = result.UnitInstructions

// The kinds of series in the table of series: a result's own figure, or
// a function's (ingest derives it from the result's line counts).
const (
	KindFigure   = ""
	KindFunction = "function"
)

// MaxFunctionFigureBytes bounds a function figure's name: a C++ name of
// nested templates runs to KiB, which no menu or chart shows.
const MaxFunctionFigureBytes = 200

// functionPrefix starts a function figure's name, for people.
const functionPrefix = "function "

// FunctionFigure is the figure's name of function's series: the prefix
// and the name, or, for a name longer than MaxFunctionFigureBytes
// allows, its start, "…" and the first 12 hex digits of its SHA-256, so
// that two long names that start alike stay two series.
func FunctionFigure(function string) string {
	name := functionPrefix + function
	if len(name) <= MaxFunctionFigureBytes {
		return name
	}
	sum := sha256.Sum256([]byte(function))
	tail := "…" + hex.EncodeToString(sum[:])[:12]
	cut := MaxFunctionFigureBytes - len(tail)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + tail
}

// Function tells whether s is a function's series (FunctionSource).
func (s Series) Function() bool { return s.Source == FunctionSource }

// functionFigures are the function series' figures of r (none without
// line counts), each of one value, the line counts' one run. Line counts
// that a result names and that do not read refuse the result, as any
// file of it that does not.
func functionFigures(r *result.Result, out result.Outputs) ([]result.Figure, error) {
	f, err := linecounts.Open(r, out)
	if errors.Is(err, linecounts.ErrNone) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("line_counts: %w", err)
	}
	var figs []result.Figure
	for _, fn := range f.OwnFunctions(TopFunctions) {
		figs = append(figs, result.Figure{Name: FunctionFigure(fn.Function), Unit: FunctionUnit, Source: FunctionSource,
			Better: result.LowerIsBetter, Class: result.ClassCount, Exact: true, Values: []float64{float64(fn.Instructions)}})
	}
	return figs, nil
}

// withFunctions is figures and r's function series' figures after them,
// or an error naming the result when one of its figures claims
// FunctionSource or a function figure's name and unit.
func withFunctions(r *result.Result, out result.Outputs, figures []result.Figure) ([]result.Figure, error) {
	seen := map[[2]string]bool{}
	for _, f := range figures {
		if f.Source == FunctionSource {
			return nil, fmt.Errorf("%s: figure %s claims the source of the history's function series (%q)",
				out.Path(result.FileName), f.Name, FunctionSource)
		}
		seen[[2]string{f.Name, f.Unit}] = true
	}
	functions, err := functionFigures(r, out)
	if err != nil {
		return nil, err
	}
	for _, f := range functions {
		if seen[[2]string{f.Name, f.Unit}] {
			return nil, fmt.Errorf("%s: figure %s (%s) is also a function series' name", out.Path(result.FileName), f.Name, f.Unit)
		}
		seen[[2]string{f.Name, f.Unit}] = true
	}
	return append(figures, functions...), nil
}
