package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"havlak-lab/tools/result"
)

// Ingested is what Ingest did with one result.
type Ingested struct {
	Benchmark string
	SHA256    string // of its result.json
	Commit    string
	Started   time.Time
	Added     bool // false: it was already there
}

// ErrUntrusted is the error of a shared database refusing a result that
// does not come from a trusted build.
var ErrUntrusted = errors.New("untrusted result")

// Ingest adds the result at path (a result's directory or an outputs.zip)
// to d, in one transaction: all of it or, on any error, nothing. A result
// that is already there is not added again. Its errors name the file at
// fault.
func (d *DB) Ingest(ctx context.Context, path string) (Ingested, error) {
	out, err := result.Open(path)
	if err != nil {
		return Ingested{}, err
	}
	source, err := filepath.Abs(path)
	if err != nil {
		return Ingested{}, err
	}
	return d.IngestOutputs(ctx, out, source)
}

// IngestOutputs is Ingest of a result already opened; source says where it
// is (its directory's or zip's absolute path, or a URI) for the readers of
// the history.
func (d *DB) IngestOutputs(ctx context.Context, out result.Outputs, source string) (Ingested, error) {
	doc, err := out.ReadFile(result.FileName)
	if err != nil {
		return Ingested{}, err
	}
	r, err := result.Decode(doc, out.Path(result.FileName))
	if err != nil {
		return Ingested{}, err
	}
	// A half-written result lists files that never arrived.
	for _, f := range r.Files {
		if _, err := out.ReadFile(f.Name); err != nil {
			return Ingested{}, fmt.Errorf("%s: listed in %s but unreadable: %w", out.Path(f.Name), result.FileName, err)
		}
	}
	started, err := time.Parse(time.RFC3339, r.Environment.Started)
	if err != nil {
		return Ingested{}, fmt.Errorf("%s: environment.started %q: want RFC 3339", out.Path(result.FileName), r.Environment.Started)
	}
	figures, err := figuresOf(r, out)
	if err != nil {
		return Ingested{}, err
	}
	trusted, why := r.Environment.Origin.Trusted()
	if !trusted && d.access != Personal {
		return Ingested{}, fmt.Errorf("%s: %w: benchmark %s, origin %s: %s; %s is a shared history, which takes only "+
			"scheduled builds of %s. For your own runs, make a personal database: history init --personal DSN",
			out.Path(result.FileName), ErrUntrusted, r.Benchmark.Name, r.Environment.Origin, why, d.name, result.TrustedBranch)
	}
	sum := sha256.Sum256(doc)
	in := Ingested{
		Benchmark: r.Benchmark.Name,
		SHA256:    hex.EncodeToString(sum[:]),
		Commit:    r.Environment.Source.Commit,
		Started:   started,
	}
	origin, err := json.Marshal(r.Environment.Origin)
	if err != nil {
		return Ingested{}, err
	}
	if err := d.checkIntegrity(ctx); err != nil {
		return Ingested{}, err
	}
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		env := r.Environment
		m, cpu := env.Machine, env.Machine.CPUState
		key := result.EnvironmentKey(env)
		if _, err := tx.ExecContext(ctx, d.q(insertEnvironment), key, m.Hostname, m.OS, m.Arch, m.Kernel,
			m.CPUModel, m.Cores, m.MemoryBytes, cpu.Governor, cpu.Turbo, cpu.SMT, env.Toolchains.Go,
			env.Toolchains.GCC, env.Toolchains.Bazel, env.Build.CompilationMode); err != nil {
			return err
		}
		b := r.Benchmark
		res, err := tx.ExecContext(ctx, d.q(insertResult), in.SHA256, b.Name, b.Kind, b.Study, b.Stage,
			b.Language, b.Workload.Name, env.Source.Commit, env.Source.Dirty, started.UnixNano(),
			env.Build.Config, env.Build.CompilationMode, key, string(origin), trusted, source,
			time.Now().UnixNano(), string(doc))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // already there: nothing more to add
		}
		in.Added = true
		for _, f := range r.Files {
			if _, err := tx.ExecContext(ctx, d.q(insertFile), in.SHA256, f.Name, f.Role, f.Profile); err != nil {
				return err
			}
		}
		for _, f := range figures {
			if _, err := tx.ExecContext(ctx, d.q(insertFigure), in.SHA256, f.Name, f.Unit, f.Source, f.Gated,
				f.Threshold, f.Better, f.Unavailable); err != nil {
				return err
			}
			for run, v := range f.Values {
				if _, err := tx.ExecContext(ctx, d.q(insertValue), in.SHA256, f.Name, f.Unit, run, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return Ingested{}, fmt.Errorf("%s: storing in %s: %w", out.Path(result.FileName), d.name, busy(err))
	}
	return in, nil
}

// The directions of a figure.
const (
	LowerIsBetter  = "lower"
	HigherIsBetter = "higher"
)

// betterOf is the direction of a figure in unit: a rate (".../s") is
// better higher, everything else the lab measures (time, memory,
// instructions, allocations, latency) lower.
func betterOf(unit string) string {
	if strings.HasSuffix(unit, "/s") {
		return HigherIsBetter
	}
	return LowerIsBetter
}

// A figure is one quantity of a result, one value per run.
type figure struct {
	Name, Unit, Source string
	Gated              bool
	Threshold          float64
	Better             string
	Unavailable        string
	Values             []float64
}

// figuresOf lists every figure of r:
//
//   - its metrics, as they are (name, unit, source, gated, threshold);
//   - kind "program": the successful timed runs' real_seconds,
//     user_seconds, sys_seconds (unit s) and max_rss_kib (KiB), source
//     "xtime", and each perf counter (unit "count", source "perf_event_open");
//   - kind "server": each measured round's throughput (requests/s) and
//     latency_mean, latency_p50, latency_p90, latency_p99, latency_max (s),
//     source the load generator;
//   - kind "go_test": each benchmark line of the go_bench file, one
//     figure per benchmark name and unit as benchfmt reads them (name
//     without "Benchmark": "Naive-2"; units sec/op, B/op, allocs/op, ...),
//     one value per line, source "go test".
//
// Only metrics are ever gated. A name and unit given twice is an error.
func figuresOf(r *result.Result, out result.Outputs) ([]figure, error) {
	var figs []figure
	for _, m := range r.Metrics {
		figs = append(figs, figure{Name: m.Name, Unit: m.Unit, Source: m.Source, Gated: m.Gated,
			Threshold: m.Threshold, Better: betterOf(m.Unit), Unavailable: m.Unavailable, Values: m.Values})
	}
	series := func(name, unit, source string, values []float64) {
		figs = append(figs, figure{Name: name, Unit: unit, Source: source, Better: betterOf(unit), Values: values})
	}
	if runs := r.Timing.Successful(); len(runs) > 0 {
		column := func(f func(result.Run) float64) []float64 {
			v := make([]float64, len(runs))
			for i, run := range runs {
				v[i] = f(run)
			}
			return v
		}
		series("real_seconds", "s", "xtime", column(func(r result.Run) float64 { return r.RealSeconds }))
		series("user_seconds", "s", "xtime", column(func(r result.Run) float64 { return r.UserSeconds }))
		series("sys_seconds", "s", "xtime", column(func(r result.Run) float64 { return r.SysSeconds }))
		series("max_rss_kib", "KiB", "xtime", column(func(r result.Run) float64 { return float64(r.MaxRSSKiB) }))
		var events []string
		for _, run := range runs {
			for event := range run.Counters {
				if !slices.Contains(events, event) {
					events = append(events, event)
				}
			}
		}
		slices.Sort(events)
		for _, event := range events {
			// Counted in every run, or it is no series of runs.
			values := column(func(r result.Run) float64 { return float64(r.Counters[event]) })
			complete := true
			for _, run := range runs {
				_, ok := run.Counters[event]
				complete = complete && ok
			}
			if complete {
				series(event, "count", "perf_event_open", values)
			}
		}
	}
	if s := r.Server; s != nil && len(s.Rounds) > 0 {
		round := func(f func(result.LoadRound) float64) []float64 {
			v := make([]float64, len(s.Rounds))
			for i, r := range s.Rounds {
				v[i] = f(r)
			}
			return v
		}
		gen := s.Load.Generator
		series("throughput", "requests/s", gen, round(func(r result.LoadRound) float64 { return r.Throughput }))
		series("latency_mean", "s", gen, round(func(r result.LoadRound) float64 { return r.Latency.Mean }))
		series("latency_p50", "s", gen, round(func(r result.LoadRound) float64 { return r.Latency.P50 }))
		series("latency_p90", "s", gen, round(func(r result.LoadRound) float64 { return r.Latency.P90 }))
		series("latency_p99", "s", gen, round(func(r result.LoadRound) float64 { return r.Latency.P99 }))
		series("latency_max", "s", gen, round(func(r result.LoadRound) float64 { return r.Latency.Max }))
	}
	if r.Benchmark.Kind == result.KindGoTest {
		lines, err := goBenchFigures(r.GoBench, out)
		if err != nil {
			return nil, err
		}
		figs = append(figs, lines...)
	}
	seen := map[[2]string]bool{}
	for _, f := range figs {
		k := [2]string{f.Name, f.Unit}
		if seen[k] {
			return nil, fmt.Errorf("%s: figure %s (%s) given twice", out.Path(result.FileName), f.Name, f.Unit)
		}
		seen[k] = true
	}
	return figs, nil
}

// goBenchFigures reads the Go benchmark lines of file in out.
func goBenchFigures(file string, out result.Outputs) ([]figure, error) {
	data, err := out.ReadFile(file)
	if err != nil {
		return nil, err
	}
	reader := benchfmt.NewReader(bytes.NewReader(data), out.Path(file))
	var figs []figure
	index := map[[2]string]int{}
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			for _, v := range rec.Values {
				k := [2]string{rec.Name.String(), v.Unit}
				i, ok := index[k]
				if !ok {
					better := betterOf(v.Unit)
					switch reader.Units().GetBetter(v.Unit) {
					case 1:
						better = HigherIsBetter
					case -1:
						better = LowerIsBetter
					}
					i = len(figs)
					index[k] = i
					figs = append(figs, figure{Name: k[0], Unit: v.Unit, Source: "go test", Better: better})
				}
				figs[i].Values = append(figs[i].Values, v.Value)
			}
		}
	}
	if err := reader.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", out.Path(file), err)
	}
	if len(figs) == 0 {
		return nil, fmt.Errorf("%s: no benchmark lines", out.Path(file))
	}
	return figs, nil
}
