package model

import (
	"slices"

	"havlak-lab/tools/result"
)

// A Row is one benchmark in the report's table.
type Row struct {
	*Result
	// Real is its real time (real_seconds, result.Figures), which the
	// speed-up, the pair ratio and the bar charts read.
	Real result.Sample

	// SpeedUp is the median real time of the benchmark's declared
	// reference over this one's; 0 without one.
	SpeedUp float64
	// PairRatio is, for a benchmark with a counterpart in another language
	// (havlak6 and havlak6cc), the median real time of the pair's first
	// benchmark in the report's order over the second's, shown on both
	// rows; 0 without a counterpart.
	PairRatio float64

	Compared *Comparison // against the baseline; nil without one
}

// Rows summarises results; speed-ups and pair ratios come from the
// benchmarks the results declare as their reference and counterpart.
func Rows(results []*Result) []*Row {
	rows := make([]*Row, 0, len(results))
	byName := map[string]*Row{}
	for _, r := range results {
		row := &Row{Result: r, Real: sample(r.Side.Figures, result.FigureRealSeconds, result.Column{})}
		rows = append(rows, row)
		byName[r.Name] = row
	}
	position := map[*Row]int{}
	for i, row := range rows {
		position[row] = i
	}
	for _, row := range rows {
		if base := byName[row.Reference]; base != nil && row.Real.Median > 0 {
			row.SpeedUp = base.Real.Median / row.Real.Median
		}
		other := byName[row.Counterpart]
		if other == nil || other.Study != row.Study {
			continue
		}
		first, second := row, other
		if position[other] < position[row] {
			first, second = other, row
		}
		if second.Real.Median > 0 {
			row.PairRatio = first.Real.Median / second.Real.Median
		}
	}
	return rows
}

// A Cell is a declared figure of a row in its column (result.Column): its
// values, one per run or round, in the column's unit.
type Cell struct {
	result.Declared
	result.Sample // no runs when the result has not the figure
}

// Columns are the figures of a benchmark of kind that the tables show,
// in their order: the declared figures that have a column
// (result.Declared's Column).
func Columns(kind string) []result.Declared {
	return slices.DeleteFunc(result.Declarations(kind), func(d result.Declared) bool { return d.Column.Header == "" })
}

// cells are a benchmark's figures in the columns of its kind, in their
// order.
func cells(kind string, figures []result.Figure) []Cell {
	var cells []Cell
	for _, d := range Columns(kind) {
		cells = append(cells, Cell{Declared: d, Sample: sample(figures, d.Name, d.Column)})
	}
	return cells
}

// Cells are the row's figures in the program table's columns.
func (row *Row) Cells() []Cell { return cells(result.KindProgram, row.Side.Figures) }

// Cell is the row's cell of the declared figure name; an empty one when
// it has no column.
func (row *Row) Cell(name string) Cell {
	all := row.Cells()
	if i := slices.IndexFunc(all, func(c Cell) bool { return c.Name == name }); i >= 0 {
		return all[i]
	}
	return Cell{Declared: result.Declared{Name: name}}
}

// sample is the figure name among figures (result.Figures), its values in
// column's unit; an empty sample when there is none.
func sample(figures []result.Figure, name string, column result.Column) result.Sample {
	i := slices.IndexFunc(figures, func(f result.Figure) bool { return f.Name == name })
	if i < 0 {
		return result.Sample{}
	}
	values := make([]float64, len(figures[i].Values))
	for j, v := range figures[i].Values {
		values[j] = column.Shown(v)
	}
	return result.NewSample(values)
}
