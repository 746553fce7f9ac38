package history

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
)

// Users and sessions: a token is shown once and kept hashed, signs its
// user in, and nothing else does; a session lasts until it expires, its
// user signs out, or the user is removed.
func checkUsers(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	token, err := d.AddUser(ctx, "ann", "admin")
	if err != nil || len(token) != 43 {
		t.Fatalf("AddUser: %q, %v; want a token of 32 bytes", token, err)
	}
	if _, err := d.AddUser(ctx, "ann", "admin"); !errors.Is(err, ErrUserExists) {
		t.Errorf("adding ann again: %v, want ErrUserExists", err)
	}
	for _, name := range []string{"", "nightly", "a b", "<script>", strings.Repeat("a", 65), "ann\n"} {
		if _, err := d.AddUser(ctx, name, "admin"); err == nil {
			t.Errorf("AddUser(%q) is allowed", name)
		}
	}
	bob, err := d.AddUser(ctx, "bob", "admin")
	if err != nil || bob == token {
		t.Fatalf("AddUser(bob): %v, or the same token as ann's", err)
	}
	users, err := d.Users(ctx)
	if err != nil || len(users) != 2 || users[0].Name != "ann" || users[0].CreatedBy != "admin" || users[0].Created.IsZero() {
		t.Fatalf("Users: %+v, %v", users, err)
	}
	// The token is nowhere in the database.
	var stored string
	if err := d.db.QueryRowContext(ctx, d.q(`SELECT token_sha256 FROM users WHERE name = ?`), "ann").Scan(&stored); err != nil ||
		strings.Contains(stored, token) || len(stored) != 64 {
		t.Errorf("ann's stored token: %q, %v; want its SHA-256 alone", stored, err)
	}

	for _, wrong := range []string{"", token[:42], token + "x", stored} {
		if _, _, err := d.SignIn(ctx, wrong, time.Hour); !errors.Is(err, ErrSignIn) {
			t.Errorf("signing in with %q: %v, want ErrSignIn", wrong, err)
		}
	}
	s, id, err := d.SignIn(ctx, token, time.Hour)
	if err != nil || s.User != "ann" || id == "" || id == token {
		t.Fatalf("SignIn: %+v %q, %v", s, id, err)
	}
	if got, err := d.Session(ctx, id); err != nil || got.User != "ann" || !got.Expires.After(time.Now()) {
		t.Errorf("Session: %+v, %v", got, err)
	}
	var idHash string
	if err := d.db.QueryRowContext(ctx, `SELECT id_sha256 FROM sessions`).Scan(&idHash); err != nil || idHash == id {
		t.Errorf("the stored session: %q, %v; want the id's hash", idHash, err)
	}
	for _, wrong := range []string{"", idHash, id[:42]} {
		if _, err := d.Session(ctx, wrong); !errors.Is(err, ErrSignIn) {
			t.Errorf("Session(%q): %v, want ErrSignIn", wrong, err)
		}
	}
	_, expired, err := d.SignIn(ctx, token, -time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Session(ctx, expired); !errors.Is(err, ErrSignIn) {
		t.Errorf("an expired session: %v, want ErrSignIn", err)
	}
	if err := d.SignOut(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Session(ctx, id); !errors.Is(err, ErrSignIn) {
		t.Errorf("a session after signing out: %v, want ErrSignIn", err)
	}
	_, bobs, err := d.SignIn(ctx, bob, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RemoveUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Session(ctx, bobs); !errors.Is(err, ErrSignIn) {
		t.Errorf("a removed user's session: %v, want ErrSignIn", err)
	}
	if _, _, err := d.SignIn(ctx, bob, time.Hour); !errors.Is(err, ErrSignIn) {
		t.Errorf("a removed user's token: %v, want ErrSignIn", err)
	}
	if err := d.RemoveUser(ctx, "bob"); !errors.Is(err, ErrNoUser) {
		t.Errorf("removing bob again: %v, want ErrNoUser", err)
	}
}

// A database of schema version 2 (alerts, no users) opens: Open adds the
// users' tables and keeps the alerts.
func checkMigrationToUsers(t *testing.T, dsn string) {
	ctx := context.Background()
	d := create(t, dsn, Shared)
	night1, f := regressionOn(1)
	if _, err := d.RecordAlerts(ctx, night1, []alert.Finding{f}, nil); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(before6, "DROP TABLE series", "DROP TABLE sessions", "DROP TABLE users", "UPDATE history_meta SET value = '2' WHERE key = 'schema_version'") {
		if _, err := d.db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	old, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("opening a version 2 database: %v", err)
	}
	defer old.Close()
	if all, err := old.Alerts(ctx); err != nil || len(all) != 1 {
		t.Errorf("the migrated database's alerts: %+v, %v; want its 1", all, err)
	}
	if _, err := old.AddUser(ctx, "ann", "admin"); err != nil {
		t.Errorf("a user in the migrated database: %v", err)
	}
	if _, err := old.db.ExecContext(ctx, "UPDATE history_meta SET value = '9' WHERE key = 'schema_version'"); err != nil {
		t.Fatal(err)
	}
	if newer, err := Open(ctx, dsn); err == nil || !strings.Contains(err.Error(), "schema version 9; this history reads version 8") {
		t.Errorf("opening a newer database: %v", err)
		if newer != nil {
			newer.Close()
		}
	}
}
