package history

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

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
	defer out.Close()
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
	// A half-written result lists files that never arrived. Each is read
	// through, a piece at a time: a result's files are never held.
	for _, f := range r.Files {
		if err := readThrough(out, f.Name); err != nil {
			return Ingested{}, fmt.Errorf("%s: listed in %s but unreadable: %w", out.Path(f.Name), result.FileName, err)
		}
	}
	started, err := time.Parse(time.RFC3339, r.Environment.Started)
	if err != nil {
		return Ingested{}, fmt.Errorf("%s: environment.started %q: want RFC 3339", out.Path(result.FileName), r.Environment.Started)
	}
	figures, err := result.Figures(r, out)
	if err != nil {
		return Ingested{}, err
	}
	// The function series (functions.go) after the result's own figures.
	if figures, err = withFunctions(r, out, figures); err != nil {
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
		var id result.Identity // "" for a result without one
		if r.Identity != nil {
			id = *r.Identity
		}
		res, err := tx.ExecContext(ctx, d.q(insertResult), in.SHA256, b.Name, b.Kind, b.Study, b.Stage,
			b.Language, b.Workload.Name, env.Source.Commit, env.Source.Dirty, started.UnixNano(),
			env.Build.Config, env.Build.CompilationMode, key, string(origin), trusted, source,
			time.Now().UnixNano(), string(doc), id.BinarySHA256, id.RunSHA256)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // already there: nothing more to add
		}
		in.Added = true
		files, figs, values, series := rowsOf(in.SHA256, r, figures, key, started)
		// Figures before their values, which refer to them.
		for _, t := range []struct {
			insert, tail string
			rows         [][]any
		}{{insertFiles, "", files}, {insertFigures, "", figs}, {insertValues, "", values}, {upsertSeries, seriesConflict, series}} {
			if err := d.insertRows(ctx, tx, t.insert, t.tail, t.rows); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Ingested{}, fmt.Errorf("%s: storing in %s: %w", out.Path(result.FileName), d.name, busy(err))
	}
	return in, nil
}

// rowsOf are the rows a result adds to the tables files, figures, values
// and series (a series' kind: a function's, or a figure's).
func rowsOf(sha string, r *result.Result, figures []result.Figure, key string, started time.Time) (files, figs, values, series [][]any) {
	for _, f := range r.Files {
		files = append(files, []any{sha, f.Name, f.Role, f.Profile})
	}
	for _, f := range figures {
		figs = append(figs, []any{sha, f.Name, f.Unit, f.Source, f.Gated, f.Threshold, f.Better, f.Unavailable})
		for run, v := range f.Values {
			values = append(values, []any{sha, f.Name, f.Unit, run, v})
		}
		if len(f.Values) > 0 {
			kind := KindFigure
			if f.Source == FunctionSource {
				kind = KindFunction
			}
			series = append(series, []any{r.Benchmark.Name, r.Benchmark.Workload.Name, f.Name, f.Unit, key, started.UnixNano(), kind})
		}
	}
	return files, figs, values, series
}

// insertRows runs the statement insert VALUES ... tail over all rows (of
// as many values each), as many rows a statement as maxStatementArgs
// allows.
func (d *DB) insertRows(ctx context.Context, tx *sql.Tx, insert, tail string, all [][]any) error {
	if len(all) == 0 {
		return nil
	}
	cols := len(all[0])
	per := max(1, maxStatementArgs/cols)
	for len(all) > 0 {
		n := min(per, len(all))
		args := make([]any, 0, n*cols)
		for _, row := range all[:n] {
			args = append(args, row...)
		}
		if _, err := tx.ExecContext(ctx, d.q(insert+valuesRows(n, cols)+tail), args...); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}

// readThrough reads the file name of out to its end, keeping none of it.
func readThrough(out result.Outputs, name string) error {
	rc, err := out.OpenFile(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err
}
