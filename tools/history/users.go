package history

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// The history keeps who may write through the dashboard (tools/dashboard):
// its users, each with a token an admin made for them (AddUser), and the
// sessions that signing in with a token opens. Neither a token nor a
// session id is stored: only its SHA-256, so that a copy of the database
// signs nobody in. Both are 32 random bytes, which no one guesses and
// which need no slow hash.

// Errors of the users and sessions; the message says more.
var (
	ErrNoUser     = errors.New("no such user")
	ErrUserExists = errors.New("already a user")
	// ErrSignIn: the token is no user's, or the session is unknown or
	// expired. It says no more, to whoever tries.
	ErrSignIn = errors.New("not signed in")
)

// A User may write through the dashboard.
type User struct {
	Name string
	// CreatedBy is who added the user (the admin's name), and Created
	// when.
	CreatedBy string
	Created   time.Time
	tokenHash []byte
}

// A Session is a signed-in user's, until it expires.
type Session struct {
	User    string
	Created time.Time
	Expires time.Time
}

var userName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// CheckUserName refuses a user name that is not 1 to 64 letters, digits
// and ._@- (starting with a letter or digit), or that is the nightly job's
// ("nightly"): a name goes into the alerts' record of who did what.
func CheckUserName(name string) error {
	if !userName.MatchString(name) {
		return fmt.Errorf("user name %q: want 1 to 64 letters, digits and ._@-, starting with a letter or digit", name)
	}
	if name == "nightly" {
		return fmt.Errorf("user name %q is the nightly job's, in the alerts' record", name)
	}
	return nil
}

// secret is 32 random bytes, as text.
func secret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func hash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// AddUser adds user name, added by by, and returns their token: the only
// time it is shown, since the history keeps its hash alone.
func (d *DB) AddUser(ctx context.Context, name, by string) (token string, err error) {
	if err := CheckUserName(name); err != nil {
		return "", err
	}
	if token, err = secret(); err != nil {
		return "", err
	}
	if err := d.checkIntegrity(ctx); err != nil {
		return "", err
	}
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, d.q(`SELECT COUNT(*) FROM users WHERE name = ?`), name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("user %s: %w (remove them first to give them a new token)", name, ErrUserExists)
		}
		_, err := tx.ExecContext(ctx, d.q(insertUser), name, hex.EncodeToString(hash(token)), by, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return token, nil
}

// Users returns every user, by name.
func (d *DB) Users(ctx context.Context) ([]User, error) {
	rows, err := d.db.QueryContext(ctx, selectUsers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	defer rows.Close()
	var users []User
	for rows.Next() {
		var u User
		var tokenHash string
		var created int64
		if err := rows.Scan(&u.Name, &tokenHash, &u.CreatedBy, &created); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		if u.tokenHash, err = hex.DecodeString(tokenHash); err != nil {
			return nil, fmt.Errorf("%s: user %s: token hash: %w", d.name, u.Name, err)
		}
		u.Created = fromNano(created)
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	return users, nil
}

// RemoveUser removes user name and ends their sessions.
func (d *DB) RemoveUser(ctx context.Context, name string) error {
	if err := d.checkIntegrity(ctx); err != nil {
		return err
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.q(deleteUserSession), name); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, d.q(deleteUser), name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("user %q: %w", name, ErrNoUser)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return nil
}

// SignIn opens a session of the user whose token it is, for ttl, and
// returns it with its id, which only the signed-in browser keeps: the
// history has its hash. The token is compared with every user's, each in
// constant time. It removes expired sessions.
func (d *DB) SignIn(ctx context.Context, token string, ttl time.Duration) (Session, string, error) {
	users, err := d.Users(ctx)
	if err != nil {
		return Session{}, "", err
	}
	given := hash(token)
	var who string
	for _, u := range users {
		if subtle.ConstantTimeCompare(given, u.tokenHash) == 1 {
			who = u.Name
		}
	}
	if who == "" || token == "" {
		return Session{}, "", ErrSignIn
	}
	id, err := secret()
	if err != nil {
		return Session{}, "", err
	}
	now := time.Now().UTC()
	s := Session{User: who, Created: now, Expires: now.Add(ttl)}
	if err := d.checkIntegrity(ctx); err != nil {
		return Session{}, "", err
	}
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.q(deleteExpired), now.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, d.q(insertSession), hex.EncodeToString(hash(id)), who, now.UnixNano(), s.Expires.UnixNano())
		return err
	})
	if err != nil {
		return Session{}, "", fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return s, id, nil
}

// Session returns the unexpired session of id, or ErrSignIn. The id is
// looked up by its hash: what is compared is no secret.
func (d *DB) Session(ctx context.Context, id string) (Session, error) {
	if id == "" {
		return Session{}, ErrSignIn
	}
	var s Session
	var created, expires int64
	err := d.db.QueryRowContext(ctx, d.q(selectSession), hex.EncodeToString(hash(id))).Scan(&s.User, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrSignIn
	}
	if err != nil {
		return Session{}, fmt.Errorf("%s: %w", d.name, busy(err))
	}
	s.Created, s.Expires = fromNano(created), fromNano(expires)
	if !time.Now().Before(s.Expires) {
		return Session{}, ErrSignIn
	}
	return s, nil
}

// SignOut ends the session of id, if there is one.
func (d *DB) SignOut(ctx context.Context, id string) error {
	if _, err := d.db.ExecContext(ctx, d.q(deleteSession), hex.EncodeToString(hash(id))); err != nil {
		return fmt.Errorf("%s: %w", d.name, busy(err))
	}
	return nil
}
