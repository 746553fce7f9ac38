package history

import (
	"slices"
	"strconv"
	"strings"
)

// Every statement of the database is here, written once for both engines:
// types both understand (SQLite maps BIGINT, DOUBLE PRECISION and BOOLEAN
// to its own affinities), keys made of the result's sha256 rather than
// engine-specific auto-increment columns, ON CONFLICT DO NOTHING (SQLite
// 3.24+, PostgreSQL 9.5+), and ? placeholders that rebind turns into
// PostgreSQL's $1, $2, ....

// schemaVersion is the version of the tables below; Open refuses another,
// but for an older one, which it migrates by adding the tables each later
// version added (migrations).
const schemaVersion = 8

// migrations are the tables each version added to the one before, by
// version: 2 the alerts', 3 the dashboard's users and sessions, 4 the
// indexes and the table of series of the dashboard's reads (filled from
// the figures already there), 5 the index of a night's results, 6 the
// columns of a result's identity (filled in Go, fillIdentity, after the
// statements) and their index, 7 the assignee of an alert's changes (not
// when version 2's tables are made in the same migration: alertSchema
// makes them as they are now), 8 the kind of a series (a figure's or a
// function's: functions.go; not when version 4's table of series is
// made in the same migration: indexSchema makes it as it is now).
var migrations = map[int][]string{
	2: alertSchema,
	3: userSchema,
	4: slices.Concat(indexSchema, []string{fillSeries}),
	5: nightSchema,
	6: slices.Concat(addIdentity, identitySchema),
	7: addAssignee,
	8: seriesKindSchema,
}

// schema creates the tables. Time is Unix nanoseconds (UTC), which both
// engines order as integers.
var schema = []string{
	// What the database is: schema_version, and access ("shared" or
	// "personal", see Access).
	`CREATE TABLE IF NOT EXISTS history_meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	// One row per class of comparable environments (result.EnvironmentKey):
	// the fields that make timings incomparable.
	`CREATE TABLE IF NOT EXISTS environments (
		env_key          TEXT PRIMARY KEY,
		hostname         TEXT NOT NULL,
		os               TEXT NOT NULL,
		arch             TEXT NOT NULL,
		kernel           TEXT NOT NULL,
		cpu_model        TEXT NOT NULL,
		cores            INTEGER NOT NULL,
		memory_bytes     BIGINT NOT NULL,
		cpu_governor     TEXT NOT NULL,
		cpu_turbo        TEXT NOT NULL,
		cpu_smt          TEXT NOT NULL,
		go_version       TEXT NOT NULL,
		gcc_version      TEXT NOT NULL,
		bazel_version    TEXT NOT NULL,
		compilation_mode TEXT NOT NULL
	)`,
	// One row per result.json, whole (result_json) and in columns; its
	// identity (result.Identity) is "" for a result without one. The
	// identity's columns come last, where version 6 added them
	// (addIdentity) to a table of before.
	`CREATE TABLE IF NOT EXISTS results (
		sha256           TEXT PRIMARY KEY,
		benchmark        TEXT NOT NULL,
		kind             TEXT NOT NULL,
		study            TEXT NOT NULL,
		stage            INTEGER NOT NULL,
		language         TEXT NOT NULL,
		workload         TEXT NOT NULL,
		source_commit    TEXT NOT NULL,
		dirty            BOOLEAN NOT NULL,
		started_ns       BIGINT NOT NULL,
		config           TEXT NOT NULL,
		compilation_mode TEXT NOT NULL,
		env_key          TEXT NOT NULL REFERENCES environments (env_key),
		origin           TEXT NOT NULL,
		trusted          BOOLEAN NOT NULL,
		source_uri       TEXT NOT NULL,
		ingested_ns      BIGINT NOT NULL,
		result_json      TEXT NOT NULL,
		binary_sha256    TEXT NOT NULL DEFAULT '',
		run_sha256       TEXT NOT NULL DEFAULT ''
	)`,
	`CREATE INDEX IF NOT EXISTS results_by_benchmark ON results (benchmark, started_ns)`,
	// The result's other files: profiles, views, graphs, ..., relative to
	// its source_uri.
	`CREATE TABLE IF NOT EXISTS files (
		sha256  TEXT NOT NULL REFERENCES results (sha256),
		name    TEXT NOT NULL,
		role    TEXT NOT NULL,
		profile TEXT NOT NULL,
		PRIMARY KEY (sha256, name)
	)`,
	// Every figure of a result: its metrics, timing columns, counters,
	// server rounds and Go benchmark lines (see result.Figures).
	`CREATE TABLE IF NOT EXISTS figures (
		sha256      TEXT NOT NULL REFERENCES results (sha256),
		name        TEXT NOT NULL,
		unit        TEXT NOT NULL,
		source      TEXT NOT NULL,
		gated       BOOLEAN NOT NULL,
		threshold   DOUBLE PRECISION NOT NULL,
		better      TEXT NOT NULL,
		unavailable TEXT NOT NULL,
		PRIMARY KEY (sha256, name, unit)
	)`,
	// A figure's value in each run, run 0, 1, ... in the result's order.
	`CREATE TABLE IF NOT EXISTS figure_values (
		sha256 TEXT NOT NULL,
		name   TEXT NOT NULL,
		unit   TEXT NOT NULL,
		run    INTEGER NOT NULL,
		value  DOUBLE PRECISION NOT NULL,
		PRIMARY KEY (sha256, name, unit, run),
		FOREIGN KEY (sha256, name, unit) REFERENCES figures (sha256, name, unit)
	)`,
}

// alertSchema creates the tables of the alerts (tools/alert), version 2,
// with the column version 7 added (addAssignee). An alert's current state
// is in alerts.state too, for listing; its changes, oldest first (seq 0,
// 1, ...), are the record of who moved it when, or assigned it to whom
// (assignee: who it is assigned to from that change on, "" for nobody).
// Times are Unix nanoseconds, 0 for none.
var alertSchema = []string{
	`CREATE TABLE IF NOT EXISTS alerts (
		id                BIGINT PRIMARY KEY,
		kind              TEXT NOT NULL,
		benchmark         TEXT NOT NULL,
		figure            TEXT NOT NULL,
		unit              TEXT NOT NULL,
		workload          TEXT NOT NULL,
		env_key           TEXT NOT NULL,
		range_from        TEXT NOT NULL,
		range_to          TEXT NOT NULL,
		range_from_ns     BIGINT NOT NULL,
		range_to_ns       BIGINT NOT NULL,
		first_bad         TEXT NOT NULL,
		first_bad_subject TEXT NOT NULL,
		size              DOUBLE PRECISION NOT NULL,
		before_value      DOUBLE PRECISION NOT NULL,
		after_value       DOUBLE PRECISION NOT NULL,
		evidence          TEXT NOT NULL,
		report            TEXT NOT NULL,
		profile_diffs     TEXT NOT NULL,
		last_point_ns     BIGINT NOT NULL,
		first_found_ns    BIGINT NOT NULL,
		last_found_ns     BIGINT NOT NULL,
		last_found_commit TEXT NOT NULL,
		state             TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS alert_changes (
		alert_id BIGINT NOT NULL REFERENCES alerts (id),
		seq      INTEGER NOT NULL,
		state    TEXT NOT NULL,
		by_whom  TEXT NOT NULL,
		at_ns    BIGINT NOT NULL,
		note     TEXT NOT NULL,
		issue    TEXT NOT NULL,
		assignee TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (alert_id, seq)
	)`,
}

// addAssignee adds to the alerts' changes of a history older than version
// 7 who each leaves the alert assigned to: nobody, as then.
var addAssignee = []string{
	`ALTER TABLE alert_changes ADD COLUMN assignee TEXT NOT NULL DEFAULT ''`,
}

// userSchema creates the tables of the dashboard's sign-in, version 3
// (users.go): a user and the SHA-256 of their token, never the token; a
// session and the SHA-256 of its id, never the id, with when it expires.
var userSchema = []string{
	`CREATE TABLE IF NOT EXISTS users (
		name         TEXT PRIMARY KEY,
		token_sha256 TEXT NOT NULL UNIQUE,
		created_by   TEXT NOT NULL,
		created_ns   BIGINT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS sessions (
		id_sha256  TEXT PRIMARY KEY,
		user_name  TEXT NOT NULL REFERENCES users (name),
		created_ns BIGINT NOT NULL,
		expires_ns BIGINT NOT NULL
	)`,
}

// indexSchema creates the indexes and the table of version 4, which make
// the dashboard's reads of a long history (a year of nightly results of a
// suite: docs/dashboard.md, "Speed") look up what they read instead of
// scanning every result or figure:
//   - a series' results, in time order (selectSeries, selectSeriesFiles);
//   - a commit's results by the first 7 characters of its name, in lower
//     case (selectResults with a commit of 7 or more; shorter prefixes
//     still scan);
//   - the series themselves, each with the time of its newest point
//     (Seen: the series page's menus, the nightly job's staleness), which
//     ingest keeps (upsertSeries) and would otherwise take an aggregate of
//     every figure, and its kind (version 7's, seriesKindSchema: the
//     table made here has it already).
var indexSchema = []string{
	`CREATE INDEX IF NOT EXISTS results_by_series ON results (benchmark, workload, env_key, started_ns)`,
	`CREATE INDEX IF NOT EXISTS results_by_commit ON results (lower(substr(source_commit, 1, 7)))`,
	`CREATE TABLE IF NOT EXISTS series (
		benchmark TEXT NOT NULL,
		workload  TEXT NOT NULL,
		name      TEXT NOT NULL,
		unit      TEXT NOT NULL,
		env_key   TEXT NOT NULL,
		last_ns   BIGINT NOT NULL,
		kind      TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (benchmark, workload, name, unit, env_key)
	)`,
}

// nightSchema creates the index of version 5, which makes the reads of a
// night by its date in a history of years (docs/scale.md) look up that
// night's results instead of scanning every result: a ResultQuery by its
// started times alone (whereStarted: the dashboard's compare of two nights
// by their dates), and the nights of the history (selectNights: the
// nightly job's staleness), read from the index alone.
var nightSchema = []string{
	`CREATE INDEX IF NOT EXISTS results_by_started ON results (started_ns)`,
}

// addIdentity adds to the results of a history older than version 6 the
// columns of their identity, "" until fillIdentity reads them from each
// result_json; identitySchema creates the index of version 6, which makes
// the recent results of one identity (selectRecent: the dashboard's
// compare of two nights, a result at a time) a lookup of those results
// instead of a decode of every newest result of their series.
var (
	addIdentity = []string{
		`ALTER TABLE results ADD COLUMN binary_sha256 TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE results ADD COLUMN run_sha256 TEXT NOT NULL DEFAULT ''`,
	}
	identitySchema = []string{
		`CREATE INDEX IF NOT EXISTS results_by_identity ON results (benchmark, workload, env_key, binary_sha256, run_sha256, started_ns)`,
	}
)

// seriesKindSchema adds to the table of series of a history of version 4
// to 7 the kind of version 8: KindFigure, a result's own figure (every
// series before it), or KindFunction, a function's series, which ingest
// derives from a result's line counts (functions.go) and staleness leaves
// out (Seen). A history older than version 4 gets the table with its
// kind from indexSchema, and a new one from Create.
var seriesKindSchema = []string{
	`ALTER TABLE series ADD COLUMN kind TEXT NOT NULL DEFAULT ''`,
}

// fillSeries fills the table of series from the figures of a history
// older than version 4: a series per figure with values, as ingest adds
// them.
const fillSeries = `INSERT INTO series (benchmark, workload, name, unit, env_key, last_ns)
	SELECT r.benchmark, r.workload, f.name, f.unit, r.env_key, MAX(r.started_ns)
	FROM results r JOIN figures f ON f.sha256 = r.sha256
	WHERE EXISTS (SELECT 1 FROM figure_values v WHERE v.sha256 = f.sha256 AND v.name = f.name AND v.unit = f.unit)
	GROUP BY r.benchmark, r.workload, f.name, f.unit, r.env_key`

// commitKey is the length of the commit prefix results_by_commit keeps.
const commitKey = 7

const (
	insertMeta = `INSERT INTO history_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`
	selectMeta = `SELECT value FROM history_meta WHERE key = ?`

	insertEnvironment = `INSERT INTO environments (env_key, hostname, os, arch, kernel, cpu_model, cores,
		memory_bytes, cpu_governor, cpu_turbo, cpu_smt, go_version, gcc_version, bazel_version, compilation_mode)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (env_key) DO NOTHING`
	insertResult = `INSERT INTO results (sha256, benchmark, kind, study, stage, language, workload,
		source_commit, dirty, started_ns, config, compilation_mode, env_key, origin, trusted,
		source_uri, ingested_ns, result_json, binary_sha256, run_sha256)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`
	// A result's files, figures, values and series go in a statement each
	// (insertRows), not one a row: a result's hundred rows in a few
	// round trips to a server.
	insertFiles   = `INSERT INTO files (sha256, name, role, profile) VALUES `
	insertFigures = `INSERT INTO figures (sha256, name, unit, source, gated, threshold, better, unavailable) VALUES `
	insertValues  = `INSERT INTO figure_values (sha256, name, unit, run, value) VALUES `
	// upsertSeries notes points of series at started_ns (figures with
	// values), keeping the newest time of each.
	upsertSeries   = `INSERT INTO series (benchmark, workload, name, unit, env_key, last_ns, kind) VALUES `
	seriesConflict = ` ON CONFLICT (benchmark, workload, name, unit, env_key)
		DO UPDATE SET last_ns = excluded.last_ns WHERE excluded.last_ns > series.last_ns`

	// selectSeries returns one row per value of the figures that match a
	// Query, in series order, then time order; where (below) adds the
	// conditions of the Query's fields that are given, each on its own so
	// that the indexes serve them (a condition "? = '' OR column = ?"
	// would scan every figure).
	selectSeries = `SELECT r.benchmark, r.workload, f.name, f.unit, r.env_key, f.source, f.gated, f.threshold,
		f.better, r.sha256, r.source_commit, r.dirty, r.started_ns, r.source_uri, v.run, v.value
		FROM results r
		JOIN figures f ON f.sha256 = r.sha256
		JOIN figure_values v ON v.sha256 = f.sha256 AND v.name = f.name AND v.unit = f.unit`
	orderSeries = ` ORDER BY r.benchmark, r.workload, f.name, f.unit, r.env_key, r.started_ns, r.sha256, v.run`
	// whereNewest cuts a series' query (its benchmark, workload,
	// environment and figure given) to the results started no earlier
	// than the Nth newest (OFFSET N-1) with a value of the figure, or to
	// every result (the smallest time, given) when there are fewer:
	// results_by_series serves both the cut and the read.
	whereNewest = `r.started_ns >= COALESCE((SELECT c.started_ns FROM results c
		WHERE c.benchmark = ? AND c.workload = ? AND c.env_key = ?
		AND EXISTS (SELECT 1 FROM figure_values cv WHERE cv.sha256 = c.sha256 AND cv.name = ?)
		ORDER BY c.started_ns DESC LIMIT 1 OFFSET ?), ?)`
	// selectSeriesOf returns the series a Query selects (where, on the
	// table of series) with the attributes of the figure at each one's
	// newest point: the results of the series started then, by sha256
	// (the last is the newest point), whose figure has values.
	selectSeriesOf = `SELECT s.benchmark, s.workload, s.name, s.unit, s.env_key, f.source, f.gated, f.threshold,
		f.better, r.sha256
		FROM series s
		JOIN results r ON r.benchmark = s.benchmark AND r.workload = s.workload AND r.env_key = s.env_key
			AND r.started_ns = s.last_ns
		JOIN figures f ON f.sha256 = r.sha256 AND f.name = s.name AND f.unit = s.unit
			AND EXISTS (SELECT 1 FROM figure_values v WHERE v.sha256 = f.sha256 AND v.name = f.name AND v.unit = f.unit)`
	orderSeriesOf = ` ORDER BY s.benchmark, s.workload, s.name, s.unit, s.env_key, r.sha256`
	// selectSeriesFiles returns the files of the results a Query selects
	// (its figure aside), by where.
	selectSeriesFiles = `SELECT fl.sha256, fl.name, fl.role, fl.profile
		FROM files fl JOIN results r ON r.sha256 = fl.sha256`
	orderSeriesFiles = ` ORDER BY fl.sha256, fl.name`
	// selectResults returns the stored result.json and source of the
	// results a ResultQuery selects (where: its benchmark, workload,
	// environment, commit and started times), oldest first, at most ? of them. A commit
	// matches by its prefix (the query's is letters and digits):
	// whereCommit.
	selectResults = `SELECT sha256, source_uri, result_json FROM results`
	orderResults  = ` ORDER BY started_ns, sha256 LIMIT ?`
	// selectRecentCommits returns the results' commits, newest first
	// (results_by_started), at most ? of them: RecentCommits reads on
	// until it has as many commits as it was asked for.
	selectRecentCommits = `SELECT source_commit, started_ns FROM results ORDER BY started_ns DESC LIMIT ?`
	// whereCommit is the condition of a commit's prefix, LIKE as before
	// version 4; with whereCommitKey too when the prefix is long enough:
	// the lookup results_by_commit serves, which ignores case as SQLite's
	// LIKE does, so that it never leaves out what LIKE takes.
	whereCommit    = `source_commit LIKE ? || '%'`
	whereCommitKey = `lower(substr(source_commit, 1, 7)) = lower(?)`
	// whereStarted is the condition of the started times [from, until):
	// a night's results (ResultQuery.Night).
	whereStarted = `started_ns >= ? AND started_ns < ?`
	// selectRecent returns the newest results of one identity in a
	// series, newest first, at most ? of them, among those started no
	// earlier than the series' Nth newest result (OFFSET N-1), or among
	// all when there are fewer: results_by_identity serves the read,
	// results_by_series the cut. selectFigureValues returns the values of
	// the figures of results (IN, by figureValues), by result, in the
	// order of their runs.
	selectRecent = `SELECT sha256, result_json FROM results
		WHERE benchmark = ? AND workload = ? AND env_key = ? AND binary_sha256 = ? AND run_sha256 = ?
		AND started_ns >= COALESCE((SELECT c.started_ns FROM results c
			WHERE c.benchmark = ? AND c.workload = ? AND c.env_key = ?
			ORDER BY c.started_ns DESC LIMIT 1 OFFSET ?), ?)
		ORDER BY started_ns DESC, sha256 DESC LIMIT ?`
	selectFigureValues = `SELECT sha256, name, unit, value FROM figure_values WHERE sha256 IN `
	orderFigureValues  = ` ORDER BY sha256, name, unit, run`
	// selectIdentities and updateIdentity fill the identity's columns of
	// a history older than version 6 (fillIdentity), results after ? in
	// the order of their sha256, ? at a time.
	selectIdentities  = `SELECT sha256, result_json FROM results WHERE sha256 > ? ORDER BY sha256 LIMIT ?`
	updateIdentity    = `UPDATE results SET binary_sha256 = ?, run_sha256 = ? WHERE sha256 = ?`
	selectEnvironment = `SELECT hostname, cpu_model, cores, go_version, compilation_mode
		FROM environments WHERE env_key = ?`
	countResults = `SELECT COUNT(*) FROM results`
	// selectSources returns where the results' files were ingested from,
	// each once (Sources: a prune of the archive keeps the nights there).
	selectSources = `SELECT DISTINCT source_uri FROM results`
	// countTables counts a PostgreSQL database's own tables: a restore
	// (Restore) replaces a database that has any only when told to.
	countTables = `SELECT COUNT(*) FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`

	updateSchemaVersion = `UPDATE history_meta SET value = ? WHERE key = 'schema_version'`

	alertColumns = `kind, benchmark, figure, unit, workload, env_key, range_from, range_to, range_from_ns,
		range_to_ns, first_bad, first_bad_subject, size, before_value, after_value, evidence, report, profile_diffs,
		last_point_ns, first_found_ns, last_found_ns, last_found_commit, state`
	selectAlerts  = `SELECT id, ` + alertColumns + ` FROM alerts ORDER BY id`
	selectChanges = `SELECT alert_id, seq, state, by_whom, at_ns, note, issue, assignee FROM alert_changes ORDER BY alert_id, seq`
	nextAlertID   = `SELECT COALESCE(MAX(id), 0) + 1 FROM alerts`
	insertAlert   = `INSERT INTO alerts (id, ` + alertColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	updateAlert = `UPDATE alerts SET first_bad = ?, first_bad_subject = ?, evidence = ?, report = ?, profile_diffs = ?,
		last_found_ns = ?, last_found_commit = ?, state = ? WHERE id = ?`
	insertChange = `INSERT INTO alert_changes (alert_id, seq, state, by_whom, at_ns, note, issue, assignee) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	// PostgreSQL: one writer of alerts at a time, so that two never take
	// the same next id (SQLite's write lock already does that).
	lockAlerts = `LOCK TABLE alerts IN SHARE ROW EXCLUSIVE MODE`

	insertUser        = `INSERT INTO users (name, token_sha256, created_by, created_ns) VALUES (?, ?, ?, ?)`
	selectUsers       = `SELECT name, token_sha256, created_by, created_ns FROM users ORDER BY name`
	deleteUser        = `DELETE FROM users WHERE name = ?`
	deleteUserSession = `DELETE FROM sessions WHERE user_name = ?`
	insertSession     = `INSERT INTO sessions (id_sha256, user_name, created_ns, expires_ns) VALUES (?, ?, ?, ?)`
	selectSession     = `SELECT user_name, created_ns, expires_ns FROM sessions WHERE id_sha256 = ?`
	deleteSession     = `DELETE FROM sessions WHERE id_sha256 = ?`
	deleteExpired     = `DELETE FROM sessions WHERE expires_ns <= ?`

	// selectSeen returns every series with the time of its newest point
	// (a figure with values); selectNights, the days (UTC) with results.
	selectSeen = `SELECT benchmark, workload, name, unit, env_key, last_ns, kind FROM series
		ORDER BY benchmark, workload, name, unit, env_key`
	selectNights = `SELECT DISTINCT started_ns / 86400000000000 FROM results ORDER BY 1`
)

// where is a WHERE clause of the conditions (column = ?) whose value is
// not "", given as column and value pairs, and the values; "" when none
// is given.
func where(pairs ...string) (string, []any) {
	var conds []string
	var args []any
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			conds = append(conds, pairs[i]+" = ?")
			args = append(args, pairs[i+1])
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// maxStatementArgs is the most values a statement of many rows binds:
// SQLite's smallest limit (999, before 3.32), far under PostgreSQL's.
const maxStatementArgs = 999

// valuesRows is the VALUES list of n rows of cols placeholders each:
// "(?, ?), (?, ?)".
func valuesRows(n, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(row+", ", n-1) + row
}

// rebind turns the ? placeholders of query into PostgreSQL's $1, $2, ...
// (none of the statements above has a ? inside a string).
func rebind(query string) string {
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
