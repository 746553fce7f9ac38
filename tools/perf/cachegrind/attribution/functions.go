package attribution

import (
	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// MovedFunctions are the n functions whose counts of figure (a name of
// cachegrind's Metrics or CacheMetrics, figureWeight) moved most from base
// to change, largest move first, whatever the sources' diff: what an alert
// on the figure between two results, the nightly's, names. Each function
// counts as the figure counts it (figureWeight: a Go program's own figures
// leave the runtime out). n ≤ 0 gives none.
func MovedFunctions(base, change *linecounts.File, figure string, goProgram bool, n int) ([]FunctionDelta, error) {
	w, err := figureWeight(figure, goProgram)
	if err != nil {
		return nil, err
	}
	a, err := attribute(base, change, nil, w)
	if err != nil {
		return nil, err
	}
	return a.Functions[:max(0, min(n, len(a.Functions)))], nil
}
