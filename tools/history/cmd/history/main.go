// Command history keeps the lab's results database (tools/history,
// docs/history.md):
//
//	history init [--personal] DSN
//	history ingest DSN RESULT...
//	history backfill DSN ARTIFACTS_ROOT
//	history series DSN [--benchmark B] [--figure F] [--workload W] [--env KEY]
//	history export DSN --format F [--benchmark B] [--figure F] [--workload W] [--env KEY] [--commit C] [--limit N] [-o FILE]
//	history alerts DSN [list|show|ACTION ...] (alerts.go; tools/alert.Rules)
//	history prune DSN --history-dir DIR --keep-nights N [--max-age-days D] [--dry-run] [-v]
//	history backup DSN FILE [--postgres-bin DIR]
//	history restore DSN FILE [--replace] [--postgres-bin DIR]
//
// DSN is an SQLite file (PATH or sqlite:PATH) or postgres://.... init
// makes the tables: a shared database (the default) takes only results of
// trusted builds (scheduled builds of main), a personal one any. ingest
// adds results: a result's directory, an outputs.zip, or a directory
// searched for them (bazel-testlogs, say). backfill adds every result
// under a tree of artifacts (nights/*/artifacts/*/outputs.zip), with
// progress on stderr. Both print a line per result on stderr and a summary
// on stdout, and exit 1 when a result was refused. series prints the
// selected series, a table per series and a row per result. export writes
// the selected results in another tool's format (tools/exports.Formats) to
// FILE, atomically, or stdout. prune removes the nights of the archive
// that its policy does not keep (tools/history/nightarchive; --dry-run
// says which it would), backup writes a copy of the database to FILE,
// atomically, and restore makes the database at DSN the backup's history,
// over one that holds anything only with --replace (keep.go).
//
// Paths are relative to where `bazel run` was typed. Exit status: 1 for a
// refused result or a failed step, 2 for bad usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/history/cmd/history/console"
	"havlak-lab/tools/result"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	err := run(ctx, os.Args[1:], cli.Terminal(os.Stdout), cli.Terminal(os.Stderr))
	stop()
	cli.Exit(err)
}

var usage = `usage:
  history init [--personal] DSN
  history ingest DSN RESULT...
  history backfill DSN ARTIFACTS_ROOT
  history series DSN [--benchmark B] [--figure F] [--workload W] [--env KEY]
` + exportUsage + `
  history alerts DSN [list|show|` + alert.ActionsUsage() + ` ...] (history alerts -h)` + keepUsage + `
DSN: an SQLite file (PATH or sqlite:PATH) or postgres://USER@HOST:PORT/DATABASE`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("no subcommand\n%s", usage)
	}
	fs := flag.NewFlagSet("history "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	switch args[0] {
	case "init":
		personal := fs.Bool("personal", false, "a personal database, which takes results of any origin (your own runs)")
		pos, help, err := parse(fs, args[1:])
		if help || err != nil {
			return err
		}
		if len(pos) != 1 {
			return cli.Usagef("init wants one DSN\n%s", usage)
		}
		access := history.Shared
		if *personal {
			access = history.Personal
		}
		d, err := history.Create(ctx, userDSN(pos[0]), access)
		if err != nil {
			return err
		}
		defer d.Close()
		fmt.Fprintf(stdout, "%s: a %s results database\n", d.Name(), d.Access())
		return nil
	case "ingest", "backfill":
		pos, help, err := parse(fs, args[1:])
		if help || err != nil {
			return err
		}
		if len(pos) < 2 || args[0] == "backfill" && len(pos) != 2 {
			return cli.Usagef("%s wants a DSN and %s\n%s", args[0],
				map[string]string{"ingest": "results", "backfill": "one artifacts directory"}[args[0]], usage)
		}
		d, err := history.Open(ctx, userDSN(pos[0]))
		if err != nil {
			return err
		}
		defer d.Close()
		paths := make([]string, len(pos)-1)
		for i, path := range pos[1:] {
			paths[i] = cli.UserPath(path)
		}
		return console.Ingest(ctx, d, paths, stdout, stderr)
	case "series":
		var q history.Query
		fs.StringVar(&q.Benchmark, "benchmark", "", "the benchmark's `name` (all when empty)")
		fs.StringVar(&q.Figure, "figure", "", "the figure's `name`: "+result.FigureRealSeconds+", "+result.MetricOwnInstructions+", ... (all when empty)")
		fs.StringVar(&q.Figure, "metric", "", "deprecated: --figure")
		fs.StringVar(&q.Workload, "workload", "", "standard or quick (both when empty)")
		fs.StringVar(&q.EnvKey, "env", "", "the environment `key` (all when empty)")
		pos, help, err := parse(fs, args[1:])
		if help || err != nil {
			return err
		}
		if len(pos) != 1 {
			return cli.Usagef("series wants one DSN\n%s", usage)
		}
		d, err := history.Open(ctx, userDSN(pos[0]))
		if err != nil {
			return err
		}
		defer d.Close()
		return console.PrintSeries(ctx, d, q, stdout)
	case "export":
		return runExport(ctx, fs, args[1:], stdout)
	case "alerts":
		return runAlerts(ctx, args[1:], stdout, stderr)
	case "prune":
		return runPrune(ctx, fs, args[1:], stdout)
	case "backup":
		return runBackup(ctx, fs, args[1:], stdout)
	case "restore":
		return runRestore(ctx, fs, args[1:], stdout)
	}
	return cli.Usagef("unknown subcommand %q\n%s", args[0], usage)
}

// parse parses args with flags anywhere among the positional arguments
// (`series DSN --benchmark havlak6`), which fs alone stops at.
func parse(fs *flag.FlagSet, args []string) (positional []string, help bool, err error) {
	for {
		if help, err := cli.ParseFlags(fs, args); help || err != nil {
			return nil, help, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, false, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// userDSN resolves an SQLite file's path as the user typed it.
func userDSN(dsn string) string {
	if strings.Contains(dsn, "://") || dsn == "" {
		return dsn
	}
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		return "sqlite:" + cli.UserPath(path)
	}
	return cli.UserPath(dsn)
}
