package alert

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The updates a store applies: Record is the night's Reconcile; Move moves
// one alert by Transition's rules, refusing an alert it does not know, one
// that changed since the asker saw it, and a move the rules forbid, each
// with its error; on success it returns that alert alone.
func TestUpdates(t *testing.T) {
	recorded, err := Record(nightN(1), []Finding{regression(1)}, nil)(nil)
	if err != nil || len(recorded) != 1 || recorded[0].State() != New {
		t.Fatalf("recorded %+v, %v: want one new alert", recorded, err)
	}
	a := recorded[0]
	a.ID = 7
	other := a
	other.ID = 8
	all := []Alert{other, a}
	ack := Change{State: Acknowledged, By: "ann", At: night0.Add(30 * time.Hour), Note: "known"}

	moved, err := Move(7, 1, ack)(all)
	if err != nil || len(moved) != 1 || moved[0].ID != 7 || moved[0].State() != Acknowledged || all[1].State() != New {
		t.Fatalf("moved %+v, %v: want alert 7 alone, acknowledged, the stored one untouched", moved, err)
	}
	if _, err := Move(9, -1, ack)(all); !errors.Is(err, ErrNoAlert) || !strings.Contains(err.Error(), "alert 9") {
		t.Errorf("an unknown alert: %v", err)
	}
	all[1] = moved[0]
	if _, err := Move(7, 1, Change{State: Fixed, By: "bob", At: ack.At.Add(time.Hour), Note: "done"})(all); !errors.Is(err, ErrChanged) ||
		!strings.Contains(err.Error(), "it is acknowledged now (by ann, 2026-11-21 08:00:00Z)") {
		t.Errorf("a move on what the asker did not see: %v", err)
	}
	if _, err := Move(8, -1, Change{State: Ignored, By: "ann", At: ack.At})(all); !errors.Is(err, ErrReason) {
		t.Errorf("ignored without a reason: %v", err)
	}
}
