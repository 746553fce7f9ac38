package history

import (
	"context"
	"fmt"

	"havlak-lab/tools/result"
)

// MaxRecent bounds Recent's answer, and recentScan how many of a series'
// newest results it reads to find them: the calibration of a threshold
// wants the noise of the present binary, not a long history.
const (
	MaxRecent  = 20
	recentScan = 50
)

// A RecentQuery selects the newest results of one identity (the binary
// and its declared run) of a benchmark on a workload in one class of
// comparable environments.
type RecentQuery struct {
	Benchmark, Workload, EnvKey string
	Identity                    result.Identity
	// N is how many of them, at most (1 to MaxRecent).
	N int
}

// RecentResults are what the newest results of one identity measured
// (DB.Recent), each list newest first.
type RecentResults struct {
	// Results is how many results there were.
	Results int
	// Medians has, by figure, its median in each result.
	Medians map[result.FigureKey][]float64
	// Sweeps has, by figure swept (result.Sweep's Figure), its sweep in
	// each result that has one.
	Sweeps map[string][]result.Sweep
}

// Recent returns the figures' medians and the sweeps of the newest
// results that q selects: the same binary and run measured night after
// night, whose figures must be the same, so that their spread is the
// figures' noise (tools/verdict's Calibrate), and the spread of their
// sweeps' fits a growth's (CalibrateGrowth). Of the benchmark's
// recentScan newest results in the environment, only those of the
// identity count; a result of an older schema, without one, never does.
// The sweeps come from the stored result.json, which Recent decodes
// anyway to see the identity (result.Decode bounds its size, its sweeps
// and their sizes).
func (d *DB) Recent(ctx context.Context, q RecentQuery) (RecentResults, error) {
	var recent RecentResults
	switch {
	case q.N < 1 || q.N > MaxRecent:
		return recent, fmt.Errorf("recent results: %d, want 1 to %d", q.N, MaxRecent)
	case q.Benchmark == "" || q.Workload == "" || q.EnvKey == "" || q.Identity.BinarySHA256 == "" || q.Identity.RunSHA256 == "":
		return recent, fmt.Errorf("recent results: a benchmark, workload, environment key and identity are all needed")
	}
	rows, err := d.db.QueryContext(ctx, d.q(selectRecent), q.Benchmark, q.Workload, q.EnvKey, recentScan)
	if err != nil {
		return recent, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	var same []string
	sweeps := map[string][]result.Sweep{}
	for rows.Next() {
		var sum, doc string
		if err := rows.Scan(&sum, &doc); err != nil {
			rows.Close()
			return recent, fmt.Errorf("%s: %w", d.name, err)
		}
		r, err := result.Decode([]byte(doc), fmt.Sprintf("%s: result %s", d.name, sum))
		if err != nil {
			rows.Close()
			return recent, err
		}
		if r.Identity == nil || *r.Identity != q.Identity {
			continue
		}
		// A result counts once for a figure: its first sweep of it (a
		// result is not checked to sweep a figure once).
		swept := map[string]bool{}
		for _, s := range r.Sweeps {
			if !swept[s.Figure] {
				swept[s.Figure] = true
				sweeps[s.Figure] = append(sweeps[s.Figure], s)
			}
		}
		if same = append(same, sum); len(same) == q.N {
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return recent, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	medians := map[result.FigureKey][]float64{}
	for _, sum := range same {
		values, err := d.figureValues(ctx, sum)
		if err != nil {
			return recent, err
		}
		for k, v := range values {
			medians[k] = append(medians[k], result.NewSample(v).Median)
		}
	}
	return RecentResults{Results: len(same), Medians: medians, Sweeps: sweeps}, nil
}

// figureValues are the values of every figure of the result sum, by
// figure, in the order of its runs.
func (d *DB) figureValues(ctx context.Context, sum string) (map[result.FigureKey][]float64, error) {
	rows, err := d.db.QueryContext(ctx, d.q(selectFigureValues), sum)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	values := map[result.FigureKey][]float64{}
	for rows.Next() {
		var k result.FigureKey
		var v float64
		if err := rows.Scan(&k.Name, &k.Unit, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		values[k] = append(values[k], v)
	}
	return values, rows.Err()
}
