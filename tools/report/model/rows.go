package model

import (
	"havlak-lab/tools/result"
)

// A Row is one benchmark in the report's table.
type Row struct {
	*Result
	// The timed runs' figures, the lab's one summary of runs each.
	Real, User, Sys result.Sample
	CPUTime         result.Sample // user + sys, run by run
	MaxRSS          result.Sample // MiB

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
		row := &Row{Result: r}
		var real, user, sys, cpu, rss []float64
		for _, run := range r.Runs {
			real = append(real, run.RealSeconds)
			cpu = append(cpu, run.UserSeconds+run.SysSeconds)
			user = append(user, run.UserSeconds)
			sys = append(sys, run.SysSeconds)
			rss = append(rss, float64(run.MaxRSSKiB)/1024)
		}
		row.Real, row.User, row.Sys, row.CPUTime, row.MaxRSS = result.NewSample(real), result.NewSample(user), result.NewSample(sys), result.NewSample(cpu), result.NewSample(rss)
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
