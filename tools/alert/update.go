package alert

import (
	"errors"
	"fmt"
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
	return func(all []Alert) ([]Alert, error) {
		for _, a := range all {
			if a.ID != id {
				continue
			}
			if seen >= 0 && len(a.Changes) != seen {
				now := a.Current()
				return nil, fmt.Errorf("alert %d: %w: it is %s now (by %s, %s)", id, ErrChanged, now.State, now.By,
					now.At.UTC().Format("2006-01-02 15:04:05Z"))
			}
			moved, err := Transition(a, c)
			if err != nil {
				return nil, err
			}
			return []Alert{moved}, nil
		}
		return nil, fmt.Errorf("alert %d: %w", id, ErrNoAlert)
	}
}
