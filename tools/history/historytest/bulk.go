package historytest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

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
		"started_ns", "config", "compilation_mode", "env_key", "origin", "trusted", "source_uri", "ingested_ns", "result_json"},
		"ON CONFLICT (sha256) DO NOTHING"},
	{"files", []string{"sha256", "name", "role", "profile"}, ""},
	{"figures", []string{"sha256", "name", "unit", "source", "gated", "threshold", "better", "unavailable"}, ""},
	{"figure_values", []string{"sha256", "name", "unit", "run", "value"}, ""},
	{"series", []string{"benchmark", "workload", "name", "unit", "env_key", "last_ns"},
		"ON CONFLICT (benchmark, workload, name, unit, env_key) DO UPDATE SET last_ns = excluded.last_ns WHERE excluded.last_ns > series.last_ns"},
}

// A bulk writer gathers rows per table and writes them many to a
// statement.
type bulk struct {
	ctx      context.Context
	tx       *sql.Tx
	postgres bool
	rows     [][][]any // per table, per row
}

// maxParams bounds the parameters of one statement (SQLite's limit is
// 32766, PostgreSQL's 65535).
const maxParams = 30000

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
			if b.postgres {
				q.WriteString("$" + strconv.Itoa(len(args)+j+1))
			} else {
				q.WriteString("?")
			}
		}
		q.WriteString(")")
		args = append(args, row...)
	}
	if t.conflict != "" {
		q.WriteString(" " + t.conflict)
	}
	if _, err := b.tx.ExecContext(b.ctx, q.String(), args...); err != nil {
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
	if err := b.add(1, key, bm.Name, bm.Kind, bm.Study, bm.Stage, bm.Language, bm.Workload.Name, env.Source.Commit,
		env.Source.Dirty, started.UnixNano(), env.Build.Config, env.Build.CompilationMode, envKey, string(origin), trusted,
		source, time.Now().UnixNano(), string(doc)); err != nil {
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
			if err := b.add(5, bm.Name, bm.Workload.Name, f.Name, f.Unit, envKey, started.UnixNano()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bulk adds s's results to the history at dsn (made by history.Create)
// as ingest would, a night's results a transaction: each table's rows many
// to a statement, every table's rows of a transaction before the next
// table's that refer to them. It writes the history's tables itself (not
// through tools/history): for a generated history only, where the
// ingest path, a transaction per result, would take minutes.
func Bulk(ctx context.Context, dsn string, s Spec) error {
	driver, source, postgres := "sqlite", strings.TrimPrefix(dsn, "sqlite:"), false
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		driver, source, postgres = "pgx", dsn, true
	} else {
		// A generated file: nothing to keep if the generator dies midway.
		source += "?_pragma=journal_mode(off)&_pragma=synchronous(off)"
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for n := range s.Nights {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		b := &bulk{ctx: ctx, tx: tx, postgres: postgres, rows: make([][][]any, len(tables))}
		err = s.night(n, func(bi, w, m int, r *result.Result) error {
			out, err := outputsOf(r)
			if err != nil {
				return err
			}
			return b.result(r, out, Source(bi, w, m, n))
		})
		for t := range tables {
			if err == nil {
				err = b.flush(t)
			}
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
