package main

// What keeps the history for good (docs/history.md#keeping-the-history):
// prune, which keeps the archive of nights from growing without bound
// (tools/history/nightarchive), and backup and restore of the database
// (history.Backup, history.Restore). Each is a thin layer over its
// library: flags in, the library's answer out.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/history"
	"havlak-lab/tools/history/nightarchive"
)

var keepUsage = `
  history prune DSN --history-dir DIR --keep-nights N [--max-age-days D] [--dry-run] [-v]
  history backup DSN FILE [--postgres-bin DIR]
  history restore DSN FILE [--replace] [--postgres-bin DIR]`

// runPrune removes the nights of the archive in --history-dir that the
// policy does not keep, or with --dry-run says which it would.
func runPrune(ctx context.Context, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	dir := fs.String("history-dir", "", "the history's `directory`, whose nights/ is the archive (the nightly job's --history-dir)")
	keep := fs.Int("keep-nights", 0, "keep the newest `N` nights whatever cites them (at least 1)")
	days := fs.Int("max-age-days", 0, "past `D` days, a night's results no longer keep it, nor does a closed alert (0: never)")
	dryRun := fs.Bool("dry-run", false, "say what would be removed, and remove nothing")
	verbose := fs.Bool("v", false, "list the nights kept, and why")
	pos, help, err := parse(fs, args)
	if help || err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return cli.Usagef("prune wants one DSN\n%s", usage)
	case *dir == "":
		return cli.Usagef("prune wants --history-dir: the archive whose nights the history at %s cites", pos[0])
	case *keep < 1:
		return cli.Usagef("--keep-nights %d: want at least 1 (the newest night is the one the gate just archived)", *keep)
	case *days < 0:
		return cli.Usagef("--max-age-days %d: want 0 (never) or more", *days)
	}
	d, err := history.Open(ctx, userDSN(pos[0]))
	if err != nil {
		return err
	}
	defer d.Close()
	policy := nightarchive.Policy{KeepNights: *keep, MaxAge: time.Duration(*days) * 24 * time.Hour, Now: time.Now()}
	plan, err := nightarchive.Decide(ctx, d, cli.UserPath(*dir), policy)
	if err != nil {
		return err
	}
	return writePrune(plan, *dryRun, *verbose, stdout)
}

// writePrune carries out plan, unless dryRun, and says what it did or
// would do: the nights removed, the entries left, and with verbose the
// nights kept and why.
func writePrune(plan *nightarchive.Plan, dryRun, verbose bool, w io.Writer) error {
	for _, l := range plan.Left {
		fmt.Fprintf(w, "left %s: %s\n", cli.Field(l.Name), cli.Field(l.Why))
	}
	if verbose {
		for _, d := range plan.Nights {
			if d.Keep() {
				fmt.Fprintf(w, "keep %s: %s\n", cli.Field(d.Name), cli.Field(strings.Join(d.Kept, "; ")))
			}
		}
	}
	removed := plan.Removed()
	kept := len(plan.Nights) - len(removed)
	if dryRun {
		for _, name := range plan.Leftovers {
			fmt.Fprintf(w, "would remove %s, which an earlier prune left\n", cli.Field(name))
		}
		for _, d := range removed {
			fmt.Fprintf(w, "would remove %s\n", cli.Field(d.Name))
		}
		fmt.Fprintf(w, "%s: %d nights; would keep %d and remove %d (dry run: nothing removed)\n",
			cli.Field(plan.Dir), len(plan.Nights), kept, len(removed))
		return nil
	}
	n := 0
	err := plan.Remove(func(night string) {
		n++
		fmt.Fprintf(w, "removed %s\n", cli.Field(night))
	})
	fmt.Fprintf(w, "%s: %d nights; kept %d, removed %d\n", cli.Field(plan.Dir), len(plan.Nights), kept, n)
	return err
}

// runBackup writes a backup of the history to FILE, atomically.
func runBackup(ctx context.Context, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var o history.BackupOptions
	fs.StringVar(&o.PostgresBin, "postgres-bin", "", "the `directory` of PostgreSQL's pg_dump (default: PATH's)")
	pos, help, err := parse(fs, args)
	if help || err != nil {
		return err
	}
	if len(pos) != 2 {
		return cli.Usagef("backup wants a DSN and a file\n%s", usage)
	}
	out := cli.UserPath(pos[1])
	if err := history.Backup(ctx, userDSN(pos[0]), out, o); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: backed up\n", cli.Field(out))
	return nil
}

// runRestore restores the history from a backup Backup wrote.
func runRestore(ctx context.Context, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var o history.RestoreOptions
	fs.StringVar(&o.PostgresBin, "postgres-bin", "", "the `directory` of PostgreSQL's pg_restore (default: PATH's)")
	fs.BoolVar(&o.Replace, "replace", false, "replace the database at DSN when it holds anything (refused without)")
	pos, help, err := parse(fs, args)
	if help || err != nil {
		return err
	}
	if len(pos) != 2 {
		return cli.Usagef("restore wants a DSN and a backup\n%s", usage)
	}
	r, err := history.Restore(ctx, userDSN(pos[0]), cli.UserPath(pos[1]), o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: restored from %s: %d results, %d alerts\n", cli.Field(r.Name), cli.Field(cli.UserPath(pos[1])), r.Results, r.Alerts)
	return nil
}
