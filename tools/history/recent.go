package history

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"havlak-lab/tools/result"
)

// MaxRecent bounds Recent's answer, and recentScan how many of a series'
// newest results it reads to find them: the calibration of a threshold
// wants the noise of the present binary, not a long history.
const (
	MaxRecent  = 20
	recentScan = 50
)

// A RecentQuery selects the newest results of one identity (the binary,
// its declared run and the lab's version that measured it) of a benchmark on a workload in one class of
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
// The identity's columns (version 6) select them, so that only their
// result.json is decoded, for its sweeps (result.Decode bounds its size,
// its sweeps and their sizes).
func (d *DB) Recent(ctx context.Context, q RecentQuery) (RecentResults, error) {
	var recent RecentResults
	switch {
	case q.N < 1 || q.N > MaxRecent:
		return recent, fmt.Errorf("recent results: %d, want 1 to %d", q.N, MaxRecent)
	case q.Benchmark == "" || q.Workload == "" || q.EnvKey == "" || q.Identity.BinarySHA256 == "" || q.Identity.RunSHA256 == "":
		return recent, fmt.Errorf("recent results: a benchmark, workload, environment key and identity are all needed")
	}
	rows, err := d.db.QueryContext(ctx, d.q(selectRecent), q.Benchmark, q.Workload, q.EnvKey,
		q.Identity.BinarySHA256, q.Identity.RunSHA256, q.Benchmark, q.Workload, q.EnvKey, recentScan-1,
		int64(math.MinInt64), q.N)
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
		// The columns are the result's own identity (ingest, fillIdentity);
		// one that says otherwise is a history damaged, not a match.
		if r.Identity == nil || r.Identity.BinarySHA256 != q.Identity.BinarySHA256 || r.Identity.RunSHA256 != q.Identity.RunSHA256 {
			rows.Close()
			return recent, fmt.Errorf("%s: result %s: its identity is not its columns' %s/%s", d.name, sum,
				q.Identity.BinarySHA256, q.Identity.RunSHA256)
		}
		// Measured by another version of the lab (result.Identity's
		// LabSHA256, not a column): the same binary and run, but not the
		// same measurement, so its figures are not this one's noise.
		if r.Identity.LabSHA256 != q.Identity.LabSHA256 {
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
		same = append(same, sum)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return recent, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	values, err := d.figureValues(ctx, same)
	if err != nil {
		return recent, err
	}
	medians := map[result.FigureKey][]float64{}
	for _, sum := range same {
		for k, v := range values[sum] {
			medians[k] = append(medians[k], result.NewSample(v).Median)
		}
	}
	return RecentResults{Results: len(same), Medians: medians, Sweeps: sweeps}, nil
}

// figureValues are the values of every figure of the results sums (at
// most MaxRecent), by result and figure, in the order of its runs: one
// query for them all.
func (d *DB) figureValues(ctx context.Context, sums []string) (map[string]map[result.FigureKey][]float64, error) {
	values := map[string]map[result.FigureKey][]float64{}
	if len(sums) == 0 {
		return values, nil
	}
	args := make([]any, len(sums))
	for i, sum := range sums {
		args[i] = sum
	}
	rows, err := d.db.QueryContext(ctx, d.q(selectFigureValues+valuesRows(1, len(sums))+orderFigureValues), args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	for rows.Next() {
		var sum string
		var k result.FigureKey
		var v float64
		if err := rows.Scan(&sum, &k.Name, &k.Unit, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		if values[sum] == nil {
			values[sum] = map[result.FigureKey][]float64{}
		}
		values[sum][k] = append(values[sum][k], v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return values, nil
}

// identityBatch is how many results fillIdentity reads a query: a
// history's results are read a batch at a time, each result.json decoded
// and dropped, so that the migration's memory is a batch's identities.
const identityBatch = 500

// fillIdentity fills the identity's columns of the results of a history
// migrated to version 6 from their result_json, in the migration's
// transaction tx. A result that no longer decodes stops the migration:
// Recent could not read it either.
func (d *DB) fillIdentity(ctx context.Context, tx *sql.Tx) error {
	type identified struct {
		sum string
		id  result.Identity
	}
	after := ""
	for {
		rows, err := tx.QueryContext(ctx, d.q(selectIdentities), after, identityBatch)
		if err != nil {
			return err
		}
		var batch []identified
		n := 0
		for rows.Next() {
			var sum, doc string
			if err := rows.Scan(&sum, &doc); err != nil {
				rows.Close()
				return err
			}
			n, after = n+1, sum
			r, err := result.Decode([]byte(doc), fmt.Sprintf("%s: result %s", d.name, sum))
			if err != nil {
				rows.Close()
				return err
			}
			if r.Identity != nil {
				batch = append(batch, identified{sum, *r.Identity})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, b := range batch {
			if _, err := tx.ExecContext(ctx, d.q(updateIdentity), b.id.BinarySHA256, b.id.RunSHA256, b.sum); err != nil {
				return err
			}
		}
		if n < identityBatch {
			return nil
		}
	}
}
