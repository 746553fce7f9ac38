package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"time"

	"havlak-lab/tools/result"
)

// A ResultQuery selects results; each field left "" selects all.
type ResultQuery struct {
	Benchmark string
	Workload  string
	EnvKey    string
	// SHA256 is one result's key (Stored.SHA256).
	SHA256 string
	// Commit is a commit or a prefix of one: letters and digits.
	Commit string
	// From and Until select the results that started in [From, Until)
	// (the results' started time, as ingested); a zero time leaves that
	// end open. A night is the day it ran: Night gives its bounds.
	From, Until time.Time
}

// Night is q selecting the results that started on day's date (UTC): a
// night of the nightly job, asked for by its date rather than its commit.
func (q ResultQuery) Night(day time.Time) ResultQuery {
	y, m, d := day.UTC().Date()
	q.From = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	q.Until = q.From.AddDate(0, 0, 1)
	return q
}

// startedBounds are q's From and Until as the results' started_ns
// compares them: an open end is the smallest or largest time there is.
func (q ResultQuery) startedBounds() (int64, int64) {
	from, until := int64(math.MinInt64), int64(math.MaxInt64)
	if !q.From.IsZero() {
		from = q.From.UnixNano()
	}
	if !q.Until.IsZero() {
		until = q.Until.UnixNano()
	}
	return from, until
}

// A Stored is one result as the history keeps it.
type Stored struct {
	SHA256 string
	// Source is where its files were ingested from (Point.Source).
	Source string
	Result *result.Result
}

// MaxResults bounds what Results returns: the results of a long history
// are read through a narrower query.
const MaxResults = 100000

// ErrTooMany is the error of a query that selects more results than asked
// for.
var ErrTooMany = errors.New("more results than the limit")

// Results returns the results q selects, oldest first, each decoded and
// validated again (tools/result) from the result.json the history keeps.
// More than limit (at most MaxResults) is ErrTooMany.
func (d *DB) Results(ctx context.Context, q ResultQuery, limit int) ([]Stored, error) {
	if limit < 1 || limit > MaxResults {
		return nil, fmt.Errorf("limit %d: want 1 to %d", limit, MaxResults)
	}
	for _, c := range q.Commit {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return nil, fmt.Errorf("commit %q: want letters and digits", q.Commit)
		}
	}
	cond, args := where("benchmark", q.Benchmark, "workload", q.Workload, "env_key", q.EnvKey, "sha256", q.SHA256)
	and := func(c string, values ...any) {
		if cond == "" {
			cond = " WHERE " + c
		} else {
			cond += " AND " + c
		}
		args = append(args, values...)
	}
	if q.Commit != "" {
		and(whereCommit, q.Commit)
		if len(q.Commit) >= commitKey {
			and(whereCommitKey, q.Commit[:commitKey])
		}
	}
	if !q.From.IsZero() || !q.Until.IsZero() {
		from, until := q.startedBounds()
		and(whereStarted, from, until)
	}
	rows, err := d.db.QueryContext(ctx, d.q(selectResults+cond+orderResults), append(args, limit+1)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	var all []Stored
	for rows.Next() {
		var s Stored
		var doc string
		if err := rows.Scan(&s.SHA256, &s.Source, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		if len(all) == limit {
			return nil, fmt.Errorf("%s: %w (%d)", d.name, ErrTooMany, limit)
		}
		if s.Result, err = result.Decode([]byte(doc), fmt.Sprintf("%s: result %s", d.name, s.SHA256)); err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return all, nil
}

// A Commit is a commit the history has results of, and when the newest of
// them started.
type Commit struct {
	Name string
	Last time.Time
}

// RecentCommits returns the commits of the history's newest results,
// newest first, at most n of them (the dashboard's pickers): read down
// the results by their started time, from the index, until n commits.
func (d *DB) RecentCommits(ctx context.Context, n int) ([]Commit, error) {
	if n < 1 || n > MaxResults {
		return nil, fmt.Errorf("%d commits: want 1 to %d", n, MaxResults)
	}
	rows, err := d.db.QueryContext(ctx, d.q(selectRecentCommits), MaxResults)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	var commits []Commit
	seen := map[string]bool{}
	for len(commits) < n && rows.Next() {
		var c Commit
		var started int64
		if err := rows.Scan(&c.Name, &started); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		if !seen[c.Name] {
			seen[c.Name] = true
			c.Last = time.Unix(0, started).UTC()
			commits = append(commits, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return commits, nil
}

// Outputs opens the result's files where they were ingested from. When
// they are gone, it returns one that refuses every read, naming the
// source: a program's or a server's figures are all in its result.json,
// and only a Go benchmark's lines are in a file of their own.
func (s Stored) Outputs() result.Outputs {
	out, err := result.Open(s.Source)
	if err != nil {
		return goneOutputs{s.Source, err}
	}
	return out
}

type goneOutputs struct {
	source string
	err    error
}

func (g goneOutputs) ReadFile(name string) ([]byte, error) {
	return nil, &fs.PathError{Op: "read", Path: g.Path(name), Err: fmt.Errorf("the result's files are no longer where they were ingested from: %w", g.err)}
}

func (g goneOutputs) OpenFile(name string) (io.ReadCloser, error) {
	_, err := g.ReadFile(name)
	return nil, err
}

func (g goneOutputs) Path(name string) string { return g.source + ":" + name }

func (g goneOutputs) Close() error { return nil }

// Sources calls fn with where the results' files were ingested from
// (Stored.Source), each once and in no order: the nights of the archive
// that a prune keeps (tools/history/nightarchive).
func (d *DB) Sources(ctx context.Context, fn func(source string) error) error {
	rows, err := d.db.QueryContext(ctx, selectSources)
	if err != nil {
		return fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	for rows.Next() {
		var source string
		if err := rows.Scan(&source); err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		if err := fn(source); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return nil
}
