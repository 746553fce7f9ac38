package alert

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// An Update decides a change of the alerts on all of them as they are now,
// and returns the alerts it changed (a new one with ID 0). The store reads
// the alerts, applies an Update and saves what it returns in one
// transaction (history.DB.UpdateAlerts), so two updates at once are one
// after the other: the store stores, the rules are here.
type Update func(all []Alert) (changed []Alert, err error)

// ErrNoAlert is the error of an alert id the store does not have.
var ErrNoAlert = errors.New("no such alert")

// ErrChanged is the error of a change asked for on an alert that changed
// since the asker saw it (Move with seen).
var ErrChanged = errors.New("changed since it was shown")

// Record enters a night's findings (Reconcile): it opens, updates and
// fixes alerts.
func Record(night Night, findings []Finding, cleared func(Alert) string) Update {
	return func(all []Alert) ([]Alert, error) {
		return Reconcile(all, findings, night, cleared), nil
	}
}

// Move moves alert id by c (Transition's rules). seen is how many changes
// of state the asker saw: when the alert has more now, someone changed it
// meanwhile, and Move refuses with ErrChanged, saying how it is now, rather
// than move it on what the asker did not see. A negative seen asks for no
// such check.
func Move(id int64, seen int, c Change) Update {
	return change(id, seen, func(a Alert) (Alert, error) { return Transition(a, c) })
}

// Assign assigns alert id to assignee ("" for nobody), by by at at
// (AssignTo's rules), checked against seen as Move is.
func Assign(id int64, seen int, assignee, by string, at time.Time) Update {
	return change(id, seen, func(a Alert) (Alert, error) { return AssignTo(a, assignee, by, at) })
}

// change is the Update that changes alert id by how, when it has seen
// changes (or seen is negative).
func change(id int64, seen int, how func(Alert) (Alert, error)) Update {
	return func(all []Alert) ([]Alert, error) {
		for _, a := range all {
			if a.ID != id {
				continue
			}
			if seen >= 0 && len(a.Changes) != seen {
				now := a.Current()
				if last := a.Changes[len(a.Changes)-1]; a.Assigned(len(a.Changes) - 1) {
					who := last.Assignee
					if who == "" {
						who = "nobody"
					}
					return nil, fmt.Errorf("alert %d: %w: it is %s, assigned to %s now (by %s, %s)", id, ErrChanged, now.State, who,
						last.By, last.At.UTC().Format("2006-01-02 15:04:05Z"))
				}
				return nil, fmt.Errorf("alert %d: %w: it is %s now (by %s, %s)", id, ErrChanged, now.State, now.By,
					now.At.UTC().Format("2006-01-02 15:04:05Z"))
			}
			changed, err := how(a)
			if err != nil {
				return nil, err
			}
			return []Alert{changed}, nil
		}
		return nil, fmt.Errorf("alert %d: %w", id, ErrNoAlert)
	}
}

// Batch is the updates one after the other, each deciding on the alerts
// as those before it left them, as one Update: the store saves all of
// their changes in one transaction, or, when one fails, none (the error is
// the first's). It returns every alert changed, once, as the last left
// it, in the order first changed. A bulk triage is a Batch of Moves, each
// judged by Transition as one triage is.
func Batch(updates ...Update) Update {
	return func(all []Alert) ([]Alert, error) {
		all = slices.Clone(all)
		var order []int64
		last := map[int64]Alert{}
		for _, u := range updates {
			changed, err := u(all)
			if err != nil {
				return nil, err
			}
			for _, a := range changed {
				if a.ID == 0 {
					return nil, fmt.Errorf("a batch of updates opens no alert")
				}
				if _, ok := last[a.ID]; !ok {
					order = append(order, a.ID)
				}
				last[a.ID] = a
				if i := slices.IndexFunc(all, func(b Alert) bool { return b.ID == a.ID }); i >= 0 {
					all[i] = a
				}
			}
		}
		out := make([]Alert, len(order))
		for i, id := range order {
			out[i] = last[id]
		}
		return out, nil
	}
}
