// Package console is what the history command prints on a terminal: the
// progress and the tally of an ingest (Ingest), the tables of the selected
// series (PrintSeries), and why a query selects none. Every string that
// came from a result is printed, not obeyed (cli.Printable).
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
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

// Ingest adds to db the results at paths, each a result's directory or
// zip, or a directory searched for them, one line per result on progress,
// then the tally on stdout. A refused result makes its error a
// cli.ExitError of status 1; an interruption (ctx) ends it early.
func Ingest(ctx context.Context, db *history.DB, paths []string, stdout, progress io.Writer) error {
	in := ingester{ctx: ctx, db: db, progress: progress}
	for _, path := range paths {
		if err := in.add(path); err != nil {
			return err
		}
	}
	return in.summary(stdout)
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

// PrintSeries prints the series q selects in d, a table each, or says why
// there is none.
func PrintSeries(ctx context.Context, d *history.DB, q history.Query, w io.Writer) error {
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

// MaxKnown is how many of the names the history has a "no series" error
// lists: enough to spot a typo, never a screenful.
const MaxKnown = 12

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

// knownList lists names, sorted and without repeats, at most MaxKnown of
// them, escaped for a terminal.
func knownList(names []string) string {
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return "none"
	}
	shown := make([]string, 0, MaxKnown+1)
	for i, n := range names {
		if i == MaxKnown {
			shown = append(shown, fmt.Sprintf("… %d more", len(names)-MaxKnown))
			break
		}
		shown = append(shown, cli.Printable(n))
	}
	return strings.Join(shown, ", ")
}
