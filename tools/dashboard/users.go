package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"text/tabwriter"

	"havlak-lab/internal/cli"
)

const usersUsage = `usage:
  dashboard users [--history DSN] add NAME      make a user; prints their token, once
  dashboard users [--history DSN] list          the users, who added them and when
  dashboard users [--history DSN] remove NAME   remove a user and end their sessions
A token signs its user in at the dashboard's /signin; the history keeps its
SHA-256 only. To give a user a new token, remove them and add them again.`

// runUsers is `dashboard users`: the users who may write through the
// dashboard, kept in the history (history.AddUser).
func runUsers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dashboard users", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usersUsage); fs.PrintDefaults() }
	dsn := historyFlag(fs)
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	pos := fs.Args()
	if len(pos) == 0 {
		return cli.Usagef("users wants add NAME, list or remove NAME\n%s", usersUsage)
	}
	switch want := map[string]int{"add": 2, "list": 1, "remove": 2}[pos[0]]; {
	case want == 0:
		return cli.Usagef("users: unknown action %q: want add, list or remove\n%s", pos[0], usersUsage)
	case len(pos) != want:
		return cli.Usagef("users %s takes %d argument(s) after it: %q\n%s", pos[0], want-1, pos[1:], usersUsage)
	}
	db, err := openHistory(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	switch pos[0] {
	case "add":
		by := os.Getenv("USER")
		if u, err := user.Current(); by == "" && err == nil {
			by = u.Username
		}
		token, err := db.AddUser(ctx, pos[1], by)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "user %s added to %s; their token, shown this once (sign in at the dashboard's /signin):\n%s\n", pos[1], db.Name(), token)
	case "list":
		users, err := db.Users(ctx)
		if err != nil {
			return err
		}
		if len(users) == 0 {
			fmt.Fprintf(stdout, "%s: no users (dashboard users add NAME)\n", db.Name())
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "USER\tADDED BY\tADDED")
		for _, u := range users {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", u.Name, cli.Printable(u.CreatedBy), u.Created.Format("2006-01-02 15:04Z"))
		}
		return tw.Flush()
	case "remove":
		if err := db.RemoveUser(ctx, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "user %s removed from %s; their sessions are ended\n", pos[1], db.Name())
	}
	return nil
}
