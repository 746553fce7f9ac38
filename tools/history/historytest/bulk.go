package historytest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"havlak-lab/tools/result"
)

// The tables and columns Bulk writes: exactly those of tools/history's
// ingest (its sql.go), which TestBulkIsIngest holds it to.
var tables = []struct {
	name    string
	columns []string
	// conflict: what to do with a row whose key is already there.
	conflict string
}{
	{"environments", []string{"env_key", "hostname", "os", "arch", "kernel", "cpu_model", "cores", "memory_bytes",
		"cpu_governor", "cpu_turbo", "cpu_smt", "go_version", "gcc_version", "bazel_version", "compilation_mode"},
		"ON CONFLICT (env_key) DO NOTHING"},
	{"results", []string{"sha256", "benchmark", "kind", "study", "stage", "language", "workload", "source_commit", "dirty",
		"started_ns", "config", "compilation_mode", "env_key", "origin", "trusted", "source_uri", "ingested_ns", "result_json",
		"binary_sha256", "run_sha256"},
		"ON CONFLICT (sha256) DO NOTHING"},
	{"files", []string{"sha256", "name", "role", "profile"}, ""},
	{"figures", []string{"sha256", "name", "unit", "source", "gated", "threshold", "better", "unavailable"}, ""},
	{"figure_values", []string{"sha256", "name", "unit", "run", "value"}, ""},
	{"series", []string{"benchmark", "workload", "name", "unit", "env_key", "last_ns"},
		"ON CONFLICT (benchmark, workload, name, unit, env_key) DO UPDATE SET last_ns = excluded.last_ns WHERE excluded.last_ns > series.last_ns"},
}

// A bulk writer gathers rows per table and writes them many to a
// statement (or, on PostgreSQL, to a COPY), in the transaction tx.
type bulk struct {
	ctx context.Context
	tx  txn
	// placeholder is the engine's n-th (from 1) statement parameter.
	placeholder func(n int) string
	rows        [][][]any // per table, per row
	// series: the newest point of each series, written once at the end
	// (writeSeries) rather than upserted per result, which would be a
	// conflict per point for the few thousand series of the history.
	series map[[5]string]int64
}

// A txn is one transaction of the engine's: statements, and COPY where
// the engine has it.
type txn interface {
	exec(ctx context.Context, query string, args ...any) error
	// copyFrom writes rows by PostgreSQL's COPY; false: the engine has none.
	copyFrom(ctx context.Context, table string, columns []string, rows [][]any) (bool, error)
	commit(ctx context.Context) error
	rollback(ctx context.Context)
}

// maxParams bounds the parameters of one statement (SQLite's limit is
// 32766, PostgreSQL's 65535), and so the rows held per table.
const maxParams = 30000

// seriesTable is the index of "series" in tables.
const seriesTable = 5

func (b *bulk) add(table int, row ...any) error {
	b.rows[table] = append(b.rows[table], row)
	if (len(b.rows[table])+1)*len(tables[table].columns) <= maxParams {
		return nil
	}
	// The rows this one's refer to go first.
	for t := 0; t <= table; t++ {
		if err := b.flush(t); err != nil {
			return err
		}
	}
	return nil
}

func (b *bulk) flush(table int) error {
	rows := b.rows[table]
	if len(rows) == 0 {
		return nil
	}
	t := tables[table]
	// COPY takes no ON CONFLICT: only the tables without one. A result
	// already there then fails the COPY rather than being skipped: a
	// generated history has none.
	if t.conflict == "" || table == 1 {
		copied, err := b.tx.copyFrom(b.ctx, t.name, t.columns, rows)
		if err != nil {
			return fmt.Errorf("bulk copy into %s: %w", t.name, err)
		}
		if copied {
			b.rows[table] = rows[:0]
			return nil
		}
	}
	var q strings.Builder
	fmt.Fprintf(&q, "INSERT INTO %s (%s) VALUES ", t.name, strings.Join(t.columns, ", "))
	args := make([]any, 0, len(rows)*len(t.columns))
	for i, row := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(")
		for j := range row {
			if j > 0 {
				q.WriteString(", ")
			}
			q.WriteString(b.placeholder(len(args) + j + 1))
		}
		q.WriteString(")")
		args = append(args, row...)
	}
	if t.conflict != "" {
		q.WriteString(" " + t.conflict)
	}
	if err := b.tx.exec(b.ctx, q.String(), args...); err != nil {
		return fmt.Errorf("bulk insert into %s: %w", t.name, err)
	}
	b.rows[table] = rows[:0]
	return nil
}

// result adds the rows ingest makes of one result (history's
// IngestOutputs): its environment, its row, its files, its figures and
// their values, and its series' newest points.
func (b *bulk) result(r *result.Result, out memOutputs, source string) error {
	doc := out[result.FileName]
	sum := sha256.Sum256(doc)
	key := hex.EncodeToString(sum[:])
	figures, err := result.Figures(r, out)
	if err != nil {
		return err
	}
	started, err := time.Parse(time.RFC3339, r.Environment.Started)
	if err != nil {
		return err
	}
	origin, err := json.Marshal(r.Environment.Origin)
	if err != nil {
		return err
	}
	trusted, _ := r.Environment.Origin.Trusted()
	env := r.Environment
	m, cpu := env.Machine, env.Machine.CPUState
	envKey := result.EnvironmentKey(env)
	if err := b.add(0, envKey, m.Hostname, m.OS, m.Arch, m.Kernel, m.CPUModel, m.Cores, m.MemoryBytes, cpu.Governor,
		cpu.Turbo, cpu.SMT, env.Toolchains.Go, env.Toolchains.GCC, env.Toolchains.Bazel, env.Build.CompilationMode); err != nil {
		return err
	}
	bm := r.Benchmark
	var id result.Identity // "" for a result without one, as ingest writes it
	if r.Identity != nil {
		id = *r.Identity
	}
	if err := b.add(1, key, bm.Name, bm.Kind, bm.Study, bm.Stage, bm.Language, bm.Workload.Name, env.Source.Commit,
		env.Source.Dirty, started.UnixNano(), env.Build.Config, env.Build.CompilationMode, envKey, string(origin), trusted,
		source, time.Now().UnixNano(), string(doc), id.BinarySHA256, id.RunSHA256); err != nil {
		return err
	}
	for _, f := range r.Files {
		if err := b.add(2, key, f.Name, f.Role, f.Profile); err != nil {
			return err
		}
	}
	for _, f := range figures {
		if err := b.add(3, key, f.Name, f.Unit, f.Source, f.Gated, f.Threshold, f.Better, f.Unavailable); err != nil {
			return err
		}
	}
	for _, f := range figures {
		for run, v := range f.Values {
			if err := b.add(4, key, f.Name, f.Unit, run, v); err != nil {
				return err
			}
		}
	}
	for _, f := range figures {
		if len(f.Values) > 0 {
			k := [5]string{bm.Name, bm.Workload.Name, f.Name, f.Unit, envKey}
			if last, ok := b.series[k]; !ok || started.UnixNano() > last {
				b.series[k] = started.UnixNano()
			}
		}
	}
	return nil
}

// writeSeries adds the series' rows, in the order of their key.
func (b *bulk) writeSeries() error {
	keys := slices.SortedFunc(maps.Keys(b.series), func(x, y [5]string) int { return slices.Compare(x[:], y[:]) })
	for _, k := range keys {
		if err := b.add(seriesTable, k[0], k[1], k[2], k[3], k[4], b.series[k]); err != nil {
			return err
		}
	}
	return b.flush(seriesTable)
}

// Bulk adds s's results to the history at dsn (made by history.Create)
// as ingest would, a night's results a transaction: each table's rows many
// to a statement (on PostgreSQL, the tables without a conflict rule by
// COPY), every table's rows of a transaction before the next table's that
// refer to them; the series' newest points at the end, in a transaction
// of their own. It writes the history's tables itself (not through
// tools/history): for a generated history only, where the ingest path, a
// transaction per result, would take minutes (a year) to hours (Scale).
// Memory stays bounded: a night's rows at most, a few thousand per table.
func Bulk(ctx context.Context, dsn string, s Spec) error {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return bulkPostgres(ctx, dsn, s)
	}
	// A generated file: nothing to keep if the generator dies midway; a
	// page cache of 256 MB for the indexes of figures keyed by sha256.
	source := strings.TrimPrefix(dsn, "sqlite:") + "?_pragma=journal_mode(off)&_pragma=synchronous(off)&_pragma=cache_size(-262144)"
	db, err := sql.Open("sqlite", source)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return fill(ctx, s, func(int) string { return "?" }, func() (txn, error) {
		tx, err := db.BeginTx(ctx, nil)
		return sqlTx{tx}, err
	})
}

// fill writes s through transactions that begin makes.
func fill(ctx context.Context, s Spec, placeholder func(int) string, begin func() (txn, error)) error {
	series := map[[5]string]int64{}
	write := func(fn func(b *bulk) error) error {
		tx, err := begin()
		if err != nil {
			return err
		}
		b := &bulk{ctx: ctx, tx: tx, placeholder: placeholder, rows: make([][][]any, len(tables)), series: series}
		err = fn(b)
		for t := range tables {
			if err == nil {
				err = b.flush(t)
			}
		}
		if err != nil {
			tx.rollback(ctx)
			return err
		}
		return tx.commit(ctx)
	}
	for n := range s.Nights {
		err := write(func(b *bulk) error {
			return s.night(n, func(bi, w, m int, r *result.Result) error {
				out, err := outputsOf(r)
				if err != nil {
					return err
				}
				return b.result(r, out, Source(bi, w, m, n))
			})
		})
		if err != nil {
			return err
		}
	}
	return write(func(b *bulk) error { return b.writeSeries() })
}

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, args...)
	return err
}

func (t sqlTx) copyFrom(context.Context, string, []string, [][]any) (bool, error) { return false, nil }
func (t sqlTx) commit(context.Context) error                                      { return t.tx.Commit() }
func (t sqlTx) rollback(context.Context)                                          { t.tx.Rollback() }

// bulkPostgres is Bulk on PostgreSQL, through pgx itself for its COPY.
func bulkPostgres(ctx context.Context, dsn string, s Spec) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("bulk: the pgx driver's connection is a %T", driverConn)
		}
		pc := c.Conn()
		return fill(ctx, s, func(n int) string { return "$" + strconv.Itoa(n) }, func() (txn, error) {
			tx, err := pc.Begin(ctx)
			return pgxTx{tx}, err
		})
	})
}

type pgxTx struct{ tx pgx.Tx }

func (t pgxTx) exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.Exec(ctx, query, args...)
	return err
}

func (t pgxTx) copyFrom(ctx context.Context, table string, columns []string, rows [][]any) (bool, error) {
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows))
	return true, err
}

func (t pgxTx) commit(ctx context.Context) error { return t.tx.Commit(ctx) }
func (t pgxTx) rollback(ctx context.Context)     { t.tx.Rollback(ctx) }
