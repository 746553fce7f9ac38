package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"havlak-lab/tools/alert"
)

// The history keeps the alerts (tools/alert) of the nightly job: what they
// are and every change of their state. The decisions are tools/alert's
// (an alert.Update: Record, Move); the history applies one to the alerts
// as stored and saves what it returns in one transaction (UpdateAlerts),
// so that two writers never interleave.

// ErrNoAlert is the error of an alert id the history does not have.
var ErrNoAlert = alert.ErrNoAlert

// Alerts returns every alert, by id, with its changes of state.
func (d *DB) Alerts(ctx context.Context) ([]alert.Alert, error) {
	all, err := d.alerts(ctx, d.db)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return all, nil
}

// Alert returns alert id, or ErrNoAlert.
func (d *DB) Alert(ctx context.Context, id int64) (alert.Alert, error) {
	all, err := d.Alerts(ctx)
	if err != nil {
		return alert.Alert{}, err
	}
	for _, a := range all {
		if a.ID == id {
			return a, nil
		}
	}
	return alert.Alert{}, fmt.Errorf("%s: alert %d: %w (history alerts %s list --all lists them)", d.name, id, ErrNoAlert, d.name)
}

// ErrAlertChanged is the error of a change asked for on an alert that
// changed since the asker saw it (ChangeAlertSeen).
var ErrAlertChanged = alert.ErrChanged

// ChangeAlert moves alert id into c's state (alert.Move) and returns it as
// it is now.
func (d *DB) ChangeAlert(ctx context.Context, id int64, c alert.Change) (alert.Alert, error) {
	return d.ChangeAlertSeen(ctx, id, -1, c)
}

// ChangeAlertSeen is ChangeAlert for a person who saw the alert with seen
// changes of state: alert.Move refuses with ErrAlertChanged when it has
// more now.
func (d *DB) ChangeAlertSeen(ctx context.Context, id int64, seen int, c alert.Change) (alert.Alert, error) {
	changed, err := d.UpdateAlerts(ctx, alert.Move(id, seen, c))
	switch {
	case errors.Is(err, ErrNoAlert):
		return alert.Alert{}, fmt.Errorf("%w (history alerts %s list --all lists them)", err, d.name)
	case err != nil:
		return alert.Alert{}, err
	}
	return changed[0], nil
}

// AssignAlertSeen assigns alert id to assignee ("" for nobody), by by at at
// (alert.Assign), for a person who saw it with seen changes, and returns
// it as it is now.
func (d *DB) AssignAlertSeen(ctx context.Context, id int64, seen int, assignee, by string, at time.Time) (alert.Alert, error) {
	changed, err := d.UpdateAlerts(ctx, alert.Assign(id, seen, assignee, by, at))
	switch {
	case errors.Is(err, ErrNoAlert):
		return alert.Alert{}, fmt.Errorf("%w (history alerts %s list --all lists them)", err, d.name)
	case err != nil:
		return alert.Alert{}, err
	}
	return changed[0], nil
}

// RecordAlerts enters a night's findings (alert.Record) and returns the
// alerts it changed, with their ids.
func (d *DB) RecordAlerts(ctx context.Context, night alert.Night, findings []alert.Finding, cleared func(alert.Alert) string) ([]alert.Alert, error) {
	changed, err := d.UpdateAlerts(ctx, alert.Record(night, findings, cleared))
	if err != nil {
		return nil, fmt.Errorf("recording the night's alerts: %w", err)
	}
	return changed, nil
}

// UpdateAlerts applies u to every alert as stored, and saves the alerts it
// returns (a new one, with ID 0, gets the next id), in one transaction: two
// updates at once are one after the other, the second deciding on what
// the first left. It returns the changed alerts, with their ids.
func (d *DB) UpdateAlerts(ctx context.Context, u alert.Update) ([]alert.Alert, error) {
	if err := d.checkIntegrity(ctx); err != nil {
		return nil, err
	}
	var changed []alert.Alert
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		changed = nil
		if d.postgres {
			// One writer of alerts at a time, as SQLite's write lock
			// makes it: the second reads what the first wrote.
			if _, err := tx.ExecContext(ctx, lockAlerts); err != nil {
				return err
			}
		}
		all, err := d.alerts(ctx, tx)
		if err != nil {
			return err
		}
		stored := map[int64]int{}
		for _, a := range all {
			stored[a.ID] = len(a.Changes)
		}
		update, err := u(all)
		if err != nil {
			return err
		}
		for _, a := range update {
			if a.ID == 0 {
				if err := tx.QueryRowContext(ctx, nextAlertID).Scan(&a.ID); err != nil {
					return err
				}
			}
			if err := d.saveAlert(ctx, tx, a, stored[a.ID]); err != nil {
				return err
			}
			changed = append(changed, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return changed, nil
}

// Seen returns, for staleness (alert.FindStale), every series of the
// history with the time of its newest point, and the history's nights.
func (d *DB) Seen(ctx context.Context) ([]alert.Seen, []time.Time, error) {
	rows, err := d.db.QueryContext(ctx, selectSeen)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	var seen []alert.Seen
	for rows.Next() {
		var s alert.Seen
		var last int64
		var kind string
		if err := rows.Scan(&s.Benchmark, &s.Workload, &s.Figure, &s.Unit, &s.EnvKey, &last, &kind); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", d.name, err)
		}
		s.Last, s.Function = time.Unix(0, last).UTC(), kind == KindFunction
		seen = append(seen, s)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", d.name, err)
	}
	nightRows, err := d.db.QueryContext(ctx, selectNights)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer nightRows.Close()
	var nights []time.Time
	for nightRows.Next() {
		var day int64
		if err := nightRows.Scan(&day); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", d.name, err)
		}
		nights = append(nights, time.Unix(day*86400, 0).UTC())
	}
	return seen, nights, nightRows.Err()
}

// A querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// alerts reads every alert and its changes.
func (d *DB) alerts(ctx context.Context, q querier) ([]alert.Alert, error) {
	rows, err := q.QueryContext(ctx, selectAlerts)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []alert.Alert
	index := map[int64]int{}
	for rows.Next() {
		var (
			a                                          alert.Alert
			fromNS, toNS, lastPointNS, firstNS, lastNS int64
			kind, diffs, state                         string
		)
		if err := rows.Scan(&a.ID, &kind, &a.Benchmark, &a.Figure, &a.Unit, &a.Workload, &a.EnvKey, &a.Range.From,
			&a.Range.To, &fromNS, &toNS, &a.FirstBad, &a.FirstBadSubject, &a.Size, &a.Before, &a.After, &a.Evidence,
			&a.Report, &diffs, &lastPointNS, &firstNS, &lastNS, &a.LastFoundCommit, &state); err != nil {
			return nil, err
		}
		a.Kind = alert.Kind(kind)
		a.Range.FromTime, a.Range.ToTime, a.LastPoint = fromNano(fromNS), fromNano(toNS), fromNano(lastPointNS)
		a.FirstFound, a.LastFound = fromNano(firstNS), fromNano(lastNS)
		if err := json.Unmarshal([]byte(diffs), &a.ProfileDiffs); err != nil {
			return nil, fmt.Errorf("alert %d: profile_diffs: %w", a.ID, err)
		}
		index[a.ID] = len(all)
		all = append(all, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	changes, err := q.QueryContext(ctx, selectChanges)
	if err != nil {
		return nil, err
	}
	defer changes.Close()
	for changes.Next() {
		var (
			id, atNS int64
			seq      int
			c        alert.Change
			state    string
		)
		if err := changes.Scan(&id, &seq, &state, &c.By, &atNS, &c.Note, &c.Issue, &c.Assignee); err != nil {
			return nil, err
		}
		c.State, c.At = alert.State(state), fromNano(atNS)
		i, ok := index[id]
		if !ok || seq != len(all[i].Changes) {
			return nil, fmt.Errorf("alert_changes: alert %d's change %d does not follow its others", id, seq)
		}
		all[i].Changes = append(all[i].Changes, c)
	}
	return all, changes.Err()
}

// saveAlert writes a: its row, whole when new (stored is 0 and the row is
// not there) or the parts that change, and its changes from stored on.
func (d *DB) saveAlert(ctx context.Context, tx *sql.Tx, a alert.Alert, stored int) error {
	diffs, err := json.Marshal(a.ProfileDiffs)
	if err != nil {
		return err
	}
	if a.ProfileDiffs == nil {
		diffs = []byte("[]")
	}
	if stored == 0 {
		_, err = tx.ExecContext(ctx, d.q(insertAlert), a.ID, string(a.Kind), a.Benchmark, a.Figure, a.Unit, a.Workload,
			a.EnvKey, a.Range.From, a.Range.To, nano(a.Range.FromTime), nano(a.Range.ToTime), a.FirstBad, a.FirstBadSubject,
			a.Size, a.Before, a.After, a.Evidence, a.Report, string(diffs), nano(a.LastPoint), nano(a.FirstFound),
			nano(a.LastFound), a.LastFoundCommit, string(a.State()))
	} else {
		_, err = tx.ExecContext(ctx, d.q(updateAlert), a.FirstBad, a.FirstBadSubject, a.Evidence, a.Report, string(diffs),
			nano(a.LastFound), a.LastFoundCommit, string(a.State()), a.ID)
	}
	if err != nil {
		return err
	}
	for seq := stored; seq < len(a.Changes); seq++ {
		c := a.Changes[seq]
		if _, err := tx.ExecContext(ctx, d.q(insertChange), a.ID, seq, string(c.State), c.By, nano(c.At), c.Note, c.Issue, c.Assignee); err != nil {
			return err
		}
	}
	return nil
}

// nano is t in Unix nanoseconds, 0 for no time.
func nano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
