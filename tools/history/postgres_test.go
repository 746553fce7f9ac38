package history

import (
	"fmt"
	"testing"

	"havlak-lab/tools/history/pgtest"
)

// TestPostgreSQL runs the SQLite checks against a real PostgreSQL server,
// started for the test in a temporary directory on a free 127.0.0.1 port
// (no Unix socket) and stopped at its end (pgtest).
func TestPostgreSQL(t *testing.T) {
	admin := pgtest.Start(t)
	n := 0
	checkEngine(t, func(t *testing.T) string {
		n++
		return admin.CreateDatabase(t, fmt.Sprintf("history_%d", n))
	})
}
