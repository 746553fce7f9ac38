package history

import (
	"context"
	"fmt"
	"time"

	"havlak-lab/tools/result"
)

// A Query selects series; each field left "" selects all.
type Query struct {
	Benchmark string // "havlak6"
	Metric    string // a figure's name: "own_instructions", "real_seconds", ...
	Workload  string // result.WorkloadStandard or WorkloadQuick
	EnvKey    string // result.EnvironmentKey
}

// A Series is one figure of one benchmark over time, in one class of
// comparable environments and on one workload: what a trend chart draws
// and a change-point detector reads.
type Series struct {
	Benchmark string
	Workload  string
	Metric    string
	Unit      string
	EnvKey    string
	// Source, Gated and Threshold are the newest point's: how the figure
	// is measured, and whether and from what relative change the gate
	// judges it.
	Source    string
	Gated     bool
	Threshold float64
	// Better is result.LowerIsBetter or result.HigherIsBetter.
	Better string
	// Points are in the order of their Started time (then of their
	// result's sha256, for equal times).
	Points []Point
}

// LowerIsBetter tells whether a rise of the figure is a regression.
func (s Series) LowerIsBetter() bool { return s.Better == result.LowerIsBetter }

// A Point is one result's values of a series' figure.
type Point struct {
	Commit  string
	Dirty   bool
	Started time.Time
	// Values has one value per run, in the result's order.
	Values []float64
	// SHA256 is the result's: its key in the database.
	SHA256 string
	// Source is where the result is (as ingested: the absolute path of
	// its directory or outputs.zip); Files are its files, named relative
	// to it (result.Outputs.Path makes a readable path).
	Source string
	Files  []result.File
}

// Profiles returns the point's profile files (role "profile").
func (p Point) Profiles() []result.File {
	var profiles []result.File
	for _, f := range p.Files {
		if f.Role == result.RoleProfile {
			profiles = append(profiles, f)
		}
	}
	return profiles
}

// Series returns the series q selects, ordered by benchmark, workload,
// metric, unit and environment key. A figure without values (measured
// nowhere: its reason is in the result) makes no point.
func (d *DB) Series(ctx context.Context, q Query) ([]Series, error) {
	cond, args := where("r.benchmark", q.Benchmark, "f.name", q.Metric, "r.workload", q.Workload, "r.env_key", q.EnvKey)
	rows, err := d.db.QueryContext(ctx, d.q(selectSeries+cond+orderSeries), args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	defer rows.Close()
	var all []Series
	for rows.Next() {
		var (
			s         Series
			p         Point
			startedNS int64
			run       int
			value     float64
		)
		if err := rows.Scan(&s.Benchmark, &s.Workload, &s.Metric, &s.Unit, &s.EnvKey, &s.Source, &s.Gated,
			&s.Threshold, &s.Better, &p.SHA256, &p.Commit, &p.Dirty, &startedNS, &p.Source, &run, &value); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		p.Started = time.Unix(0, startedNS).UTC()
		n := len(all)
		if n == 0 || !sameSeries(all[n-1], s) {
			all = append(all, s)
			n++
		}
		cur := &all[n-1]
		// Each later point's attributes win: they end as the newest's.
		cur.Source, cur.Gated, cur.Threshold, cur.Better = s.Source, s.Gated, s.Threshold, s.Better
		if k := len(cur.Points); k == 0 || cur.Points[k-1].SHA256 != p.SHA256 {
			cur.Points = append(cur.Points, p)
		}
		last := &cur.Points[len(cur.Points)-1]
		last.Values = append(last.Values, value)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	if len(all) == 0 {
		return nil, nil
	}
	files, err := d.files(ctx, q)
	if err != nil {
		return nil, err
	}
	for i := range all {
		for j := range all[i].Points {
			all[i].Points[j].Files = files[all[i].Points[j].SHA256]
		}
	}
	return all, nil
}

func sameSeries(a, b Series) bool {
	return a.Benchmark == b.Benchmark && a.Workload == b.Workload && a.Metric == b.Metric &&
		a.Unit == b.Unit && a.EnvKey == b.EnvKey
}

// files returns the files of the results q selects (its metric aside) by
// the result's sha256.
func (d *DB) files(ctx context.Context, q Query) (map[string][]result.File, error) {
	cond, args := where("r.benchmark", q.Benchmark, "r.workload", q.Workload, "r.env_key", q.EnvKey)
	rows, err := d.db.QueryContext(ctx, d.q(selectSeriesFiles+cond+orderSeriesFiles), args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	defer rows.Close()
	files := map[string][]result.File{}
	for rows.Next() {
		var sum string
		var f result.File
		if err := rows.Scan(&sum, &f.Name, &f.Role, &f.Profile); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		files[sum] = append(files[sum], f)
	}
	return files, rows.Err()
}

// An Environment is what a series' environment key stands for, in short.
type Environment struct {
	Hostname, CPUModel string
	Cores              int
	Go                 string
	CompilationMode    string
}

func (e Environment) String() string {
	return fmt.Sprintf("%s, %s × %d, %s, %s", e.Hostname, e.CPUModel, e.Cores, e.Go, e.CompilationMode)
}

// Environment describes the environment key, for people.
func (d *DB) Environment(ctx context.Context, key string) (Environment, error) {
	var e Environment
	err := d.db.QueryRowContext(ctx, d.q(selectEnvironment), key).
		Scan(&e.Hostname, &e.CPUModel, &e.Cores, &e.Go, &e.CompilationMode)
	if err != nil {
		return e, fmt.Errorf("%s: environment %s: %w", d.name, key, err)
	}
	return e, nil
}
