// Package history is the lab's results database: every result
// (tools/result) that is ingested, kept with its environment, where its
// files are, its result.json whole, and every run's figures, so that
// charts and change-point detection can work on a benchmark's series over
// commits and nights.
//
// # Engines
//
// One schema (sql.go) on two engines, chosen by the DSN:
//
//	results.db, sqlite:results.db     an SQLite file (modernc.org/sqlite,
//	                                  pure Go): the embedded default
//	postgres://user@host:5432/db      a PostgreSQL database (pgx), for a
//	                                  team sharing history across agents
//
// Create makes the tables (the PostgreSQL database itself must exist);
// Open opens a database Create made.
//
// # What is stored
//
// Per result: the benchmark (name, kind, study, stage, language,
// workload), the commit, whether the tree was dirty, when it started, the
// build config and compilation mode, the origin and whether it is trusted
// (result.Origin), the environment's comparable fields under their
// result.EnvironmentKey, the source (the absolute path of the result's
// directory or outputs.zip, as ingested) with its files, the whole
// result.json, and its figures, each with one value per run (result.Figures
// says which). A result is known by the sha256 of its result.json:
// ingesting it again, from anywhere, changes nothing.
//
// # Alerts
//
// The history also keeps the nightly job's alerts (alerts.go, tools/alert:
// what was found, and every change of its state with who and when).
// RecordAlerts and ChangeAlert apply tools/alert's decisions in one
// transaction; Seen gives its staleness search the series' newest points.
// A database of schema version 1 gets the alerts' tables when opened.
//
// # Users
//
// The dashboard's users and their sessions (users.go): who may change an
// alert from the browser. A user's token and a session's id are kept as
// their SHA-256, never themselves. A database of schema version 2 or older
// gets these tables when opened.
//
// # Reading a long history
//
// The dashboard's reads (a series, a commit's results, the list of series
// with their newest points: Seen) look up what they read through the
// indexes and the table of series of schema version 4, which ingest keeps,
// a night's results (by its date) through the index of version 5, and
// the recent results of one identity (Recent) through the columns and
// index of version 6; an older database gets them when opened.
//
// # Trust
//
// A database is shared (the default) or personal (Create with Personal).
// A shared one takes only results whose origin is trusted (a scheduled
// build of main, result.Origin.Trusted) and refuses others with
// ErrUntrusted; a personal one takes any.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// busyTimeout is how long an SQLite operation waits for another
// process's write lock (an ingest of a long backfill, say) before it
// fails with ErrBusy.
var busyTimeout = 2 * time.Minute

// ErrBusy is returned when another process held an SQLite database's
// write lock for longer than the lab waits.
var ErrBusy = errors.New("busy: another process is writing it")

// ErrCorrupt is returned when an SQLite database fails SQLite's integrity
// check: nothing more is written to it.
var ErrCorrupt = errors.New("fails SQLite's integrity check")

// busy makes SQLite's "database is locked" an ErrBusy, with how long the
// lab waited; other errors are returned as they are.
func busy(err error) error {
	var coded interface{ Code() int }
	// SQLITE_BUSY and SQLITE_LOCKED, with or without extended codes.
	if errors.As(err, &coded) && (coded.Code()&0xff == 5 || coded.Code()&0xff == 6) {
		return fmt.Errorf("%w (waited %s; try again when it is done): %v", ErrBusy, busyTimeout, err)
	}
	return err
}

// Access is who may add results to a database.
type Access string

const (
	// Shared: the lab's history; only trusted results (the nightly of main).
	Shared Access = "shared"
	// Personal: an engineer's own history; any result.
	Personal Access = "personal"
)

// DB is an open results database.
type DB struct {
	db       *sql.DB
	postgres bool
	access   Access
	name     string // the DSN, without a password, for messages
	// sqlitePath is the SQLite file's path ("" on PostgreSQL).
	sqlitePath string
	// integrityChecked: checkIntegrity found the SQLite file sound, by the
	// check at checkedAt (this process's, or one recorded, integrity.go).
	integrityChecked bool
	checkedAt        time.Time
}

// engine is the database/sql driver and its data source for dsn.
type engine struct {
	driver, source string
	postgres       bool
	sqlitePath     string
	name           string
}

func parseDSN(dsn string) (engine, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return engine{}, fmt.Errorf("DSN: %v", err)
		}
		return engine{driver: "pgx", source: dsn, postgres: true, name: u.Redacted()}, nil
	}
	path := strings.TrimPrefix(dsn, "sqlite:")
	switch {
	case path == "":
		return engine{}, errors.New("DSN is empty: want an SQLite file (PATH or sqlite:PATH) or postgres://...")
	case strings.Contains(path, "://"):
		return engine{}, fmt.Errorf("DSN %q: want an SQLite file (PATH or sqlite:PATH) or postgres://...", dsn)
	case strings.ContainsRune(path, '?'):
		return engine{}, fmt.Errorf("DSN %q: an SQLite file name with '?' is not supported", dsn)
	}
	// Foreign keys are off by default in SQLite. busy_timeout waits for
	// another process's write instead of failing at once (and comes first:
	// the change to write-ahead logging may wait too); BEGIN IMMEDIATE
	// takes the write lock when an ingest starts, not midway. Write-ahead
	// logging (the file keeps it once set) lets readers read while a
	// writer writes, and commits with one sync of the log, not two of a
	// rollback journal and the file; synchronous NORMAL syncs the log at
	// its checkpoints: a crash may lose the last commits, never leave the
	// file damaged.
	source := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		path, busyTimeout.Milliseconds())
	return engine{driver: "sqlite", source: source, sqlitePath: path, name: path}, nil
}

func connect(e engine) (*DB, error) {
	db, err := sql.Open(e.driver, e.source)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.name, err)
	}
	if !e.postgres {
		// One writer at a time in this process; SQLite locks the file
		// against the others.
		db.SetMaxOpenConns(1)
	}
	return &DB{db: db, postgres: e.postgres, name: e.name, sqlitePath: e.sqlitePath}, nil
}

// Create makes the tables in the database at dsn, or finds them there,
// and opens it. A database keeps the access it was created with: Create
// with another access is an error.
func Create(ctx context.Context, dsn string, access Access) (*DB, error) {
	if access != Shared && access != Personal {
		return nil, fmt.Errorf("access %q: want %q or %q", access, Shared, Personal)
	}
	e, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	d, err := connect(e)
	if err != nil {
		return nil, err
	}
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		for _, stmt := range slices.Concat(schema, alertSchema, userSchema, indexSchema, nightSchema, identitySchema) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		for _, kv := range [][2]string{{"schema_version", strconv.Itoa(schemaVersion)}, {"access", string(access)}} {
			if _, err := tx.ExecContext(ctx, d.q(insertMeta), kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	err = busy(err)
	if err == nil {
		err = d.readMeta(ctx)
	}
	if err == nil && d.access != access {
		err = fmt.Errorf("it is already a %s database", d.access)
	}
	if err != nil {
		d.db.Close()
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	return d, nil
}

// Open opens the database Create made at dsn. A database of an older
// schema version gets the tables of the later ones (migrations): version 1,
// from before alerts were kept, gets theirs, version 2 the dashboard's
// users', version 3 the indexes of the dashboard's reads, version 4 the
// index of a night's results, version 5 the columns of a result's
// identity, read from its result_json, and their index, and version 6 the
// assignee of the alerts' changes (nobody), and version 7 the kind of a
// series; nothing else changes.
func Open(ctx context.Context, dsn string) (*DB, error) {
	e, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return open(ctx, e)
}

// open is Open of the database e says, named in messages as e.name.
func open(ctx context.Context, e engine) (*DB, error) {
	// SQLite would make an empty file of a mistyped name.
	if !e.postgres {
		if _, err := os.Stat(e.sqlitePath); err != nil {
			return nil, fmt.Errorf("%s: no database (history init makes one): %w", e.name, err)
		}
	}
	d, err := connect(e)
	if err != nil {
		return nil, err
	}
	if err := d.readMeta(ctx); err != nil {
		d.db.Close()
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	return d, nil
}

func (d *DB) readMeta(ctx context.Context) error {
	var version, access string
	err := d.db.QueryRowContext(ctx, d.q(selectMeta), "schema_version").Scan(&version)
	if err == nil {
		err = d.db.QueryRowContext(ctx, d.q(selectMeta), "access").Scan(&access)
	}
	switch {
	case errors.Is(busy(err), ErrBusy):
		return busy(err)
	case err != nil:
		return fmt.Errorf("not a results database (history init makes one): %w", err)
	}
	switch v, err := strconv.Atoi(version); {
	case err == nil && v >= 1 && v < schemaVersion:
		if err := d.migrate(ctx, v); err != nil {
			return fmt.Errorf("migrating schema version %d to %d: %w", v, schemaVersion, busy(err))
		}
	case err != nil || v != schemaVersion:
		return fmt.Errorf("schema version %s; this history reads version %d", version, schemaVersion)
	}
	d.access = Access(access)
	return nil
}

// migrate adds to a database of an older schema version the tables of
// every later version, in one transaction.
func (d *DB) migrate(ctx context.Context, version int) error {
	if err := d.checkIntegrity(ctx); err != nil {
		return err
	}
	return d.inTx(ctx, func(tx *sql.Tx) error {
		for v := version + 1; v <= schemaVersion; v++ {
			if v == 7 && version < 2 {
				continue // alertSchema, of version 2, made alert_changes with the assignee
			}
			for _, stmt := range migrations[v] {
				if v == 8 && version < 4 {
					break // version 4's table of series has the kind
				}
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			if v == 6 {
				if err := d.fillIdentity(ctx, tx); err != nil {
					return err
				}
			}
		}
		_, err := tx.ExecContext(ctx, d.q(updateSchemaVersion), strconv.Itoa(schemaVersion))
		return err
	})
}

// checkIntegrity runs SQLite's quick check once before d is first
// written: a database whose pages are damaged would take new rows and
// lose them, or lose old ones, silently. It does not when the file is as
// the last writer that checked it left it (checkedBefore, integrity.go).
func (d *DB) checkIntegrity(ctx context.Context) error {
	if d.postgres || d.integrityChecked {
		return nil
	}
	now := time.Now()
	if at, ok := checkedBefore(d.sqlitePath, now); ok {
		d.integrityChecked, d.checkedAt = true, at
		return nil
	}
	if err := d.quickCheck(ctx); err != nil {
		return fmt.Errorf("%w: refused for writing; restore it from a backup (history restore), or history init a new one", err)
	}
	d.integrityChecked, d.checkedAt = true, now
	return nil
}

// quickCheck runs SQLite's quick check over the whole file: an error,
// ErrCorrupt naming what it found, when the file is damaged.
func (d *DB) quickCheck(ctx context.Context) error {
	rows, err := d.db.QueryContext(ctx, "PRAGMA quick_check(10)")
	if err != nil {
		return busy(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		problems = append(problems, busy(err).Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s %w (PRAGMA quick_check: %s)", d.name, ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}

// Access says whether d is shared or personal.
func (d *DB) Access() Access { return d.access }

// Name is the DSN d was opened with, without its password.
func (d *DB) Name() string { return d.name }

// Close closes the database. An SQLite file d checked (or found checked)
// is recorded as checked as it is left, for the next process
// (integrity.go): SQLite has then moved the log's writes into it.
func (d *DB) Close() error {
	err := d.db.Close()
	if err == nil && d.integrityChecked {
		recordChecked(d.sqlitePath, d.checkedAt)
	}
	return err
}

// q adapts a statement of sql.go to d's engine.
func (d *DB) q(query string) string {
	if d.postgres {
		return rebind(query)
	}
	return query
}

// inTx runs fn in one transaction, committed when fn returns nil and rolled
// back otherwise.
func (d *DB) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Count is the number of results in d.
func (d *DB) Count(ctx context.Context) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, countResults).Scan(&n)
	return n, err
}
