package model

import (
	"slices"

	"havlak-lab/tools/result"
)

// A Row is one benchmark in the report's table.
type Row struct {
	*Result
	// The timed runs' figures (result.Figures), the lab's one summary
	// of runs each.
	Real, User, Sys result.Sample
	CPUTime         result.Sample // user + sys, run by run
	MaxRSS          result.Sample // MiB, as the tables show it

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
		row := &Row{Result: r, Real: r.sample("real_seconds", 1), User: r.sample("user_seconds", 1), Sys: r.sample("sys_seconds", 1),
			CPUTime: r.sample("cpu_seconds", 1), MaxRSS: r.sample("max_rss_kib", 1.0/1024)}
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

// sample is the result's figure name (result.Figures), its values scaled
// by scale; an empty sample when it has none.
func (r *Result) sample(name string, scale float64) result.Sample {
	i := slices.IndexFunc(r.Side.Figures, func(f result.Figure) bool { return f.Name == name })
	if i < 0 {
		return result.Sample{}
	}
	values := make([]float64, len(r.Side.Figures[i].Values))
	for j, v := range r.Side.Figures[i].Values {
		values[j] = v * scale
	}
	return result.NewSample(values)
}
