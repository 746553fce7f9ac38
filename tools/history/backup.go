package history

// Backup and restore (docs/history.md#backup-and-restore). An SQLite
// history is copied by SQLite itself, VACUUM INTO a new file: one read
// transaction, so the copy is the database as it was at one moment while
// other processes go on reading and writing it. A PostgreSQL history is
// dumped by pg_dump in its custom format, one snapshot of the database
// too, and restored by pg_restore in one transaction. Either way a backup
// is written beside its path and renamed there whole (atomicfile), a
// restore checks what it restores before it replaces anything, and a
// database that holds anything is replaced only when the caller says so.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/alert"
)

// The first bytes of a backup, which say which engine's it is: an SQLite
// file's header, and pg_dump's custom format's.
const (
	sqliteMagic = "SQLite format 3\x00"
	pgDumpMagic = "PGDMP"
)

// BackupOptions are a Backup's.
type BackupOptions struct {
	// PostgresBin is the directory of PostgreSQL's pg_dump, of the
	// server's major version or newer; "" finds it on PATH. An SQLite
	// history needs none.
	PostgresBin string
}

// RestoreOptions are a Restore's.
type RestoreOptions struct {
	// PostgresBin is the directory of PostgreSQL's pg_restore; "" finds
	// it on PATH. An SQLite history needs none.
	PostgresBin string
	// Replace: restore over a database that holds something (an SQLite
	// file that is not empty, a PostgreSQL database with tables), which
	// is refused and left as it is without it.
	Replace bool
}

// Backup writes a copy of the history at dsn to the file out, whole or
// not at all: an SQLite file for an SQLite history, pg_dump's custom
// format for a PostgreSQL one. The history stays open to others
// meanwhile; the copy is the database as it was at one moment. Its errors
// name out and the DSN without its password.
func Backup(ctx context.Context, dsn, out string, o BackupOptions) error {
	d, err := Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("backing up: %w", err)
	}
	defer d.Close()
	if err := d.backup(ctx, dsn, out, o); err != nil {
		return fmt.Errorf("backing up %s to %s: %w", d.name, out, err)
	}
	return nil
}

func (d *DB) backup(ctx context.Context, dsn, out string, o BackupOptions) error {
	f, err := atomicfile.Create(out)
	if err != nil {
		return err
	}
	defer f.Abort()
	if d.postgres {
		err = runPostgresTool(ctx, o.PostgresBin, "pg_dump", dsn, f, "--format=custom")
	} else {
		// SQLite writes the copy into the empty temporary file by its
		// name; Commit renames it into place.
		_, err = d.db.ExecContext(ctx, "VACUUM INTO ?", f.Name())
		err = busy(err)
	}
	if err != nil {
		return err
	}
	return f.Commit()
}

// A Restored is the history a restore left at its DSN.
type Restored struct {
	// Name is its DSN without the password.
	Name            string
	Results, Alerts int
}

// Restore makes the database at dsn the history the backup in holds, of
// dsn's engine (Backup's file): whole or not at all, and only once the
// backup is checked to be a history. A database at dsn that holds
// anything is replaced only with o.Replace. A backup of an older schema
// version is migrated, as Open does. Its errors name in and the DSN
// without its password.
func Restore(ctx context.Context, dsn, in string, o RestoreOptions) (Restored, error) {
	e, err := parseDSN(dsn)
	if err != nil {
		return Restored{}, err
	}
	if in, err = filepath.Abs(in); err == nil {
		err = checkBackup(in, e.postgres)
	}
	if err == nil {
		if e.postgres {
			err = restorePostgres(ctx, e, dsn, in, o)
		} else {
			err = restoreSQLite(ctx, e, in, o.Replace)
		}
	}
	if err != nil {
		return Restored{}, fmt.Errorf("restoring %s into %s: %w", in, e.name, err)
	}
	d, err := open(ctx, e)
	if err != nil {
		return Restored{}, fmt.Errorf("restored %s into %s, which does not open: %w", in, e.name, err)
	}
	defer d.Close()
	r := Restored{Name: d.name}
	r.Results, err = d.Count(ctx)
	if err == nil {
		var alerts []alert.Alert
		alerts, err = d.Alerts(ctx)
		r.Alerts = len(alerts)
	}
	if err != nil {
		return Restored{}, fmt.Errorf("restored %s into %s, which does not read: %w", in, e.name, busy(err))
	}
	return r, nil
}

// checkBackup checks that the file at path is a backup of the engine a
// restore writes (postgres: pg_dump's custom format, else an SQLite
// file), naming what it is otherwise.
func checkBackup(path string, postgres bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	head = head[:n]
	isSQLite, isDump := bytes.HasPrefix(head, []byte(sqliteMagic)), bytes.HasPrefix(head, []byte(pgDumpMagic))
	switch {
	case postgres && isSQLite:
		return errors.New("it is an SQLite history's backup, and a PostgreSQL history is restored from pg_dump's archive (history backup of a postgres:// DSN)")
	case !postgres && isDump:
		return errors.New("it is pg_dump's archive of a PostgreSQL history, and an SQLite history is restored from an SQLite file (history backup of an SQLite DSN)")
	case postgres && !isDump:
		return errors.New("not pg_dump's custom-format archive (history backup of a postgres:// DSN writes one)")
	case !postgres && !isSQLite:
		return errors.New("not an SQLite file (history backup of an SQLite DSN writes one)")
	}
	return nil
}

// restoreSQLite copies the backup in beside the SQLite file e names,
// checks the copy (a history, migrated when older, that SQLite's quick
// check finds sound) and renames it into place.
func restoreSQLite(ctx context.Context, e engine, in string, replace bool) error {
	path := e.sqlitePath
	if err := checkSQLiteTarget(path, replace); err != nil {
		return err
	}
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := io.Copy(f, src); err != nil {
		return fmt.Errorf("copying it: %w", err)
	}
	copied, err := parseDSN("sqlite:" + f.Name())
	if err != nil {
		return err
	}
	copied.name = "the backup " + in
	d, err := open(ctx, copied)
	if err != nil {
		return err
	}
	err = d.quickCheck(ctx)
	// Closed as it is, with no record of the check (integrity.go): the
	// record is of a file and its name, and the copy is renamed.
	err = errors.Join(err, d.db.Close())
	if err == nil {
		// SQLite moves its log into the file and removes it when the
		// last connection closes; a log left would hold writes the
		// renamed file lacks.
		if _, serr := os.Lstat(f.Name() + "-wal"); serr == nil {
			err = fmt.Errorf("SQLite left its write-ahead log %s-wal", f.Name())
		}
	}
	if err != nil {
		os.Remove(f.Name() + "-wal")
		os.Remove(f.Name() + "-shm")
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	// The replaced file's record of its check is of another file now.
	os.Remove(CheckRecord(path))
	return nil
}

// checkSQLiteTarget refuses to restore over what the SQLite file at path
// is: anything but a regular file, a file that holds anything without
// replace, and a file beside a write-ahead log, which a process that has
// it open (or died with it open) keeps and would read into the restored
// file.
func checkSQLiteTarget(path string, replace bool) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file: refused, nothing changed", path)
	case info.Size() > 0 && !replace:
		return fmt.Errorf("%s holds a database (%d bytes): refused, nothing changed; restore into a new file, or replace it (--replace)",
			path, info.Size())
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + side); err == nil {
			return fmt.Errorf("%s%s is there: a process has the database open, or died with it open: refused, nothing changed; "+
				"stop what uses it (a process that died: open and close the history once, history series), then restore", path, side)
		}
	}
	return nil
}

// restorePostgres restores pg_dump's archive in into the PostgreSQL
// database e names, in one transaction, once it is known to hold a
// history (its table of the history's meta).
func restorePostgres(ctx context.Context, e engine, dsn, in string, o RestoreOptions) error {
	var list bytes.Buffer
	if err := runPostgresTool(ctx, o.PostgresBin, "pg_restore", "", &list, "--list", in); err != nil {
		return err
	}
	if !listsTable(list.String(), "history_meta") {
		return errors.New("pg_dump's archive of a database that holds no history (no table history_meta)")
	}
	if !o.Replace {
		tables, err := countPostgresTables(ctx, e)
		if err != nil {
			return err
		}
		if tables > 0 {
			return fmt.Errorf("the database holds %d tables: refused, nothing changed; restore into a new database (createdb), "+
				"or replace the history in it (--replace)", tables)
		}
	}
	// The archive's owners and grants are the backed-up server's roles;
	// the restored tables are the restoring user's.
	args := []string{"--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges"}
	if o.Replace {
		args = append(args, "--clean", "--if-exists")
	}
	return runPostgresTool(ctx, o.PostgresBin, "pg_restore", dsn, io.Discard, append(args, in)...)
}

// listsTable tells whether pg_restore's --list of an archive has the
// table name: a line "ID; OID OID TABLE SCHEMA NAME OWNER".
func listsTable(list, name string) bool {
	for _, line := range strings.Split(list, "\n") {
		fields := strings.Fields(line)
		for i := 0; i+2 < len(fields); i++ {
			if fields[i] == "TABLE" && fields[i+2] == name {
				return true
			}
		}
	}
	return false
}

// countPostgresTables counts the tables of the database e names.
func countPostgresTables(ctx context.Context, e engine) (int, error) {
	db, err := sql.Open(e.driver, e.source)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, countTables).Scan(&n)
	return n, err
}

// runPostgresTool runs the PostgreSQL client program (pg_dump,
// pg_restore) of bin ("" for PATH's) with args, on the database dsn
// unless it is "", its output to stdout. The password goes to it in its
// environment (PGPASSWORD), never on its command line, which other users
// of the machine can read. Its error says what it printed.
func runPostgresTool(ctx context.Context, bin, program, dsn string, stdout io.Writer, args ...string) error {
	path := program
	if bin != "" {
		path = filepath.Join(bin, program)
	}
	path, err := exec.LookPath(path)
	if err != nil {
		return fmt.Errorf("no %s: %v; install PostgreSQL's client programs of the server's version (Debian: postgresql-client-15), "+
			"or name their directory (--postgres-bin)", program, err)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = os.Environ()
	if dsn != "" {
		u, err := url.Parse(dsn)
		if err != nil {
			return fmt.Errorf("DSN: %v", err)
		}
		if password, ok := u.User.Password(); ok {
			cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
			u.User = url.User(u.User.Username())
		}
		cmd.Args = append([]string{path, "--dbname=" + u.String()}, args...)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", program, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
