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
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
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
		in := ingester{ctx: ctx, db: d, progress: stderr}
		for _, path := range pos[1:] {
			if err := in.add(cli.UserPath(path)); err != nil {
				return err
			}
		}
		return in.summary(stdout)
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
		return printSeries(ctx, d, q, stdout)
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

// An ingester adds results one at a time and counts what became of them.
type ingester struct {
	ctx                                     context.Context
	db                                      *history.DB
	progress                                io.Writer
	seen, added, present, untrusted, failed int
}

// add ingests path: a result's directory or zip, or every result under a
// directory.
func (in *ingester) add(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		in.report(path, history.Ingested{}, err)
		return nil
	}
	if !info.IsDir() {
		d, err := in.db.Ingest(in.ctx, path)
		in.report(path, d, err)
		return in.ctx.Err()
	}
	before := in.seen
	err = result.Walk(path, func(f result.Found) error {
		d, err := history.Ingested{}, f.Err
		if err == nil {
			var source string
			if source, err = filepath.Abs(f.Path); err == nil {
				d, err = in.db.IngestOutputs(in.ctx, f.Outputs, source)
			}
		}
		if f.Outputs != nil {
			f.Outputs.Close() // one result at a time: none is held open
		}
		in.report(f.Path, d, err)
		return in.ctx.Err()
	})
	if in.ctx.Err() != nil {
		return in.ctx.Err()
	}
	if err == nil && in.seen == before {
		err = fmt.Errorf("%s: no results (result.json or outputs.zip) under it", path)
	}
	if err != nil {
		in.report(path, history.Ingested{}, err)
	}
	return nil
}

func (in *ingester) report(path string, d history.Ingested, err error) {
	in.seen++
	switch {
	case errors.Is(err, history.ErrUntrusted):
		in.untrusted++
		fmt.Fprintf(in.progress, "[%d] refused: %s\n", in.seen, cli.Printable(err.Error()))
	case err != nil:
		in.failed++
		fmt.Fprintf(in.progress, "[%d] refused: %s\n", in.seen, cli.Printable(err.Error()))
	case d.Added:
		in.added++
		fmt.Fprintf(in.progress, "[%d] %s\n", in.seen, cli.Printable(fmt.Sprintf("added %s at %s, %s: %s", d.Benchmark, gitwork.Short(d.Commit),
			d.Started.Format("2006-01-02 15:04Z"), path)))
	default:
		in.present++
		fmt.Fprintf(in.progress, "[%d] %s\n", in.seen, cli.Printable(fmt.Sprintf("already there: %s (%s)", path, d.Benchmark)))
	}
}

func (in *ingester) summary(stdout io.Writer) error {
	fmt.Fprintf(stdout, "%s: %d results: %d added, %d already there, %d untrusted, %d refused\n",
		in.db.Name(), in.seen, in.added, in.present, in.untrusted, in.failed)
	if in.untrusted+in.failed > 0 {
		return cli.ExitError{Status: 1}
	}
	return nil
}

// figure prints a value to 6 significant digits, and a large one (a count
// of instructions or bytes) whole: 169025503 instructions would otherwise
// read 1.69026e+08, hiding the changes of a few thousand that count.
func figure(v float64) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func printSeries(ctx context.Context, d *history.DB, q history.Query, w io.Writer) error {
	all, err := d.Series(ctx, q)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return noSeries(ctx, d, q)
	}
	for i, s := range all {
		if i > 0 {
			fmt.Fprintln(w)
		}
		env, err := d.Environment(ctx, s.EnvKey)
		if err != nil {
			return err
		}
		gate := "not gated"
		switch {
		case s.Gated && s.Threshold > 0:
			gate = fmt.Sprintf("gated at %g%%", 100*s.Threshold)
		case s.Gated:
			// Declared gated with no threshold of its own: the policy's
			// for its class, calibrated (tools/verdict).
			gate = "gated"
		}
		// Every string here came from a result: printed, not obeyed.
		fmt.Fprintf(w, "%s\n", cli.Printable(fmt.Sprintf("%s %s (%s, %s is better, %s; %s) on the %s workload", s.Benchmark, s.Figure, s.Unit,
			s.Better, gate, s.Source, s.Workload)))
		fmt.Fprintf(w, "environment %s: %s\n", cli.Printable(s.EnvKey), cli.Printable(fmt.Sprint(env)))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "started\tcommit\truns\tmedian\tmin\tmax\tspread\t")
		for _, p := range s.Points {
			sample := result.NewSample(p.Values)
			lo, median, hi := sample.Min, sample.Median, sample.Max
			commit := gitwork.Short(p.Commit)
			if p.Dirty {
				commit += "+dirty"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%.2f%%\t\n", p.Started.Format("2006-01-02 15:04Z"),
				cli.Printable(commit), len(p.Values), figure(median), figure(lo), figure(hi), 100*result.NewSample(p.Values).Spread())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// maxKnown is how many of the names the history has a "no series" error
// lists: enough to spot a typo, never a screenful.
const maxKnown = 12

// noSeries says why q selects no series: the first of its fields that no
// series matches, given the fields before it (an unknown benchmark, then
// an unknown figure of a known benchmark, ...), and the values the history
// has there. Names come from results: escaped for a terminal.
func noSeries(ctx context.Context, d *history.DB, q history.Query) error {
	seen, _, err := d.Seen(ctx)
	if err != nil {
		return err
	}
	fields := []struct {
		name, value string
		of          func(alert.Series) string
	}{
		{"benchmark", q.Benchmark, func(s alert.Series) string { return s.Benchmark }},
		{"figure", q.Figure, func(s alert.Series) string { return s.Figure }},
		{"workload", q.Workload, func(s alert.Series) string { return s.Workload }},
		{"environment", q.EnvKey, func(s alert.Series) string { return s.EnvKey }},
	}
	if len(seen) == 0 {
		return fmt.Errorf("%s: no series: the history has no figure with values yet", d.Name())
	}
	var within []string
	for _, f := range fields {
		if f.value == "" {
			continue
		}
		var matching []alert.Seen
		var known []string
		for _, s := range seen {
			v := f.of(s.Series)
			if v == f.value {
				matching = append(matching, s)
			}
			if len(known) == 0 || known[len(known)-1] != v {
				known = append(known, v)
			}
		}
		what := fmt.Sprintf("%s %s", f.name, quoted(f.value))
		if len(matching) == 0 {
			if len(within) > 0 {
				what += " of " + strings.Join(within, ", ")
			}
			return fmt.Errorf("%s: no series for %s (known: %s)", d.Name(), what, knownList(known))
		}
		within = append(within, what)
		seen = matching
	}
	// Every field matched a series a moment ago: results came or went.
	what := "the query"
	if len(within) > 0 {
		what = strings.Join(within, ", ")
	}
	return fmt.Errorf("%s: no series for %s now", d.Name(), what)
}

// quoted quotes a name for a message, its control characters escaped.
func quoted(name string) string {
	return `"` + cli.Printable(name) + `"`
}

// knownList lists names, sorted and without repeats, at most maxKnown of
// them, escaped for a terminal.
func knownList(names []string) string {
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return "none"
	}
	shown := make([]string, 0, maxKnown+1)
	for i, n := range names {
		if i == maxKnown {
			shown = append(shown, fmt.Sprintf("… %d more", len(names)-maxKnown))
			break
		}
		shown = append(shown, cli.Printable(n))
	}
	return strings.Join(shown, ", ")
}
