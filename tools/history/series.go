package history

import (
	"context"
	"fmt"
	"math"
	"time"

	"havlak-lab/tools/result"
)

// A Query selects series; each field left "" selects all.
type Query struct {
	Benchmark string // "havlak6"
	Figure    string // a figure's name: "own_instructions", "real_seconds", ...
	Workload  string // result.WorkloadStandard or WorkloadQuick
	EnvKey    string // result.EnvironmentKey
	// Newest, when above 0, keeps only the newest Newest points of each
	// series, read through the index of a series' results rather than
	// every point: the stretch a night's change-point search looks at. It
	// needs Benchmark, Figure, Workload and EnvKey given: the newest are of
	// one series' results.
	Newest int
}

// A Series is one figure of one benchmark over time, in one class of
// comparable environments and on one workload: what a trend chart draws
// and a change-point detector reads.
type Series struct {
	Benchmark string
	Workload  string
	Figure    string
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
// figure, unit and environment key. A figure without values (measured
// nowhere: its reason is in the result) makes no point.
func (d *DB) Series(ctx context.Context, q Query) ([]Series, error) {
	cond, args := where("r.benchmark", q.Benchmark, "f.name", q.Figure, "r.workload", q.Workload, "r.env_key", q.EnvKey)
	cond, args, err := newest(q, cond, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
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
		if err := rows.Scan(&s.Benchmark, &s.Workload, &s.Figure, &s.Unit, &s.EnvKey, &s.Source, &s.Gated,
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
	if q.Newest > 0 {
		// The cut keeps the newest Newest results with a value of the
		// figure, of any unit, and those started at the same time as the
		// oldest of them: each series' own newest are among them.
		for i := range all {
			if k := len(all[i].Points) - q.Newest; k > 0 {
				all[i].Points = all[i].Points[k:]
			}
		}
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

// newest adds to the conditions of a series' query (cond, args, from
// where) q's cut to its newest points (whereNewest), if any.
func newest(q Query, cond string, args []any) (string, []any, error) {
	if q.Newest <= 0 {
		return cond, args, nil
	}
	if q.Benchmark == "" || q.Figure == "" || q.Workload == "" || q.EnvKey == "" {
		return "", nil, fmt.Errorf("the newest %d points of %+v: want one series' benchmark, figure, workload and environment", q.Newest, q)
	}
	// cond has at least the four conditions above.
	return cond + " AND " + whereNewest, append(args, q.Benchmark, q.Workload, q.EnvKey, q.Figure, q.Newest-1, int64(math.MinInt64)), nil
}

// SeriesOf returns the series q selects, as Series does but without their
// points: each with its newest point's attributes (Source, Gated,
// Threshold, Better), read from the table of series and that point's
// result alone. It tells which series to read (the nightly job charts the
// gated figures and real time) without reading every figure's points.
func (d *DB) SeriesOf(ctx context.Context, q Query) ([]Series, error) {
	if q.Newest != 0 {
		return nil, fmt.Errorf("%s: SeriesOf reads no points: Newest %d", d.name, q.Newest)
	}
	cond, args := where("s.benchmark", q.Benchmark, "s.name", q.Figure, "s.workload", q.Workload, "s.env_key", q.EnvKey)
	rows, err := d.db.QueryContext(ctx, d.q(selectSeriesOf+cond+orderSeriesOf), args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	defer rows.Close()
	var all []Series
	for rows.Next() {
		var s Series
		var sum string
		if err := rows.Scan(&s.Benchmark, &s.Workload, &s.Figure, &s.Unit, &s.EnvKey, &s.Source, &s.Gated,
			&s.Threshold, &s.Better, &sum); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		// Of the results started at the newest point's time, the last by
		// sha256 is the newest point, as Series orders them.
		if n := len(all); n > 0 && sameSeries(all[n-1], s) {
			all[n-1] = s
			continue
		}
		all = append(all, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	return all, nil
}

func sameSeries(a, b Series) bool {
	return a.Benchmark == b.Benchmark && a.Workload == b.Workload && a.Figure == b.Figure &&
		a.Unit == b.Unit && a.EnvKey == b.EnvKey
}

// files returns the files of the results q selects (its figure aside) by
// the result's sha256.
func (d *DB) files(ctx context.Context, q Query) (map[string][]result.File, error) {
	cond, args := where("r.benchmark", q.Benchmark, "r.workload", q.Workload, "r.env_key", q.EnvKey)
	cond, args, err := newest(q, cond, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
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
