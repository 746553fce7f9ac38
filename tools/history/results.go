package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"havlak-lab/tools/result"
)

// A ResultQuery selects results; each field left "" selects all.
type ResultQuery struct {
	Benchmark string
	Workload  string
	EnvKey    string
	// Commit is a commit or a prefix of one: letters and digits.
	Commit string
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
	cond, args := where("benchmark", q.Benchmark, "workload", q.Workload, "env_key", q.EnvKey)
	if q.Commit != "" {
		commit := whereCommit
		args = append(args, q.Commit)
		if len(q.Commit) >= commitKey {
			commit += " AND " + whereCommitKey
			args = append(args, q.Commit[:commitKey])
		}
		if cond == "" {
			cond = " WHERE " + commit
		} else {
			cond += " AND " + commit
		}
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
