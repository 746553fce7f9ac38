package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
	"havlak-lab/tools/exports"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
)

// exportUsage is the usage of history export: its formats are
// tools/exports' registry.
var exportUsage = `  history export DSN --format ` + exports.Usage() + ` [--benchmark B] [--figure F]
      [--workload W] [--env KEY] [--commit C] [--limit N] [-o FILE]`

// runExport writes the results of the history that the flags select in
// one of the formats of tools/exports, to FILE (atomically) or stdout.
func runExport(ctx context.Context, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var q history.ResultQuery
	format := fs.String("format", "", "the `format`: "+strings.Join(exports.Names(), ", ")+" (docs/history.md)")
	fs.StringVar(&q.Benchmark, "benchmark", "", "the benchmark's `name` (all when empty)")
	figure := fs.String("figure", "", "only the figure of this `name`: "+result.FigureRealSeconds+", "+result.MetricOwnInstructions+", ... (all when empty)")
	fs.StringVar(figure, "metric", "", "deprecated: --figure")
	fs.StringVar(&q.Workload, "workload", "", "standard or quick (both when empty)")
	fs.StringVar(&q.EnvKey, "env", "", "the environment `key` (all when empty)")
	fs.StringVar(&q.Commit, "commit", "", "the `commit`, or a prefix of it (all when empty)")
	limit := fs.Int("limit", 1000, "refuse to export more than `N` results")
	output := fs.String("o", "", "write to `FILE`, atomically (default: stdout)")
	pos, help, err := parse(fs, args)
	if help || err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return cli.Usagef("export wants one DSN\n%s", usage)
	case !slices.Contains(exports.Names(), *format):
		return cli.Usagef("--format %q: want one of %s", *format, strings.Join(exports.Names(), ", "))
	case *limit < 1 || *limit > history.MaxResults:
		return cli.Usagef("--limit %d: want 1 to %d", *limit, history.MaxResults)
	case strings.ContainsFunc(q.Commit, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}):
		return cli.Usagef("--commit %q: want a commit or a prefix of it, letters and digits", q.Commit)
	}
	d, err := history.Open(ctx, userDSN(pos[0]))
	if err != nil {
		return err
	}
	defer d.Close()
	stored, err := d.Results(ctx, q, *limit)
	if errors.Is(err, history.ErrTooMany) {
		return fmt.Errorf("%w: narrow the selection with --benchmark, --workload, --env or --commit, or raise --limit", err)
	}
	if err != nil {
		return err
	}
	if len(stored) == 0 {
		return fmt.Errorf("%s: no results for --benchmark %q --workload %q --env %q --commit %q", d.Name(), q.Benchmark, q.Workload, q.EnvKey, q.Commit)
	}
	set := exports.Set{Figure: *figure}
	for _, s := range stored {
		set.Inputs = append(set.Inputs, exports.Input{Result: s.Result, Outputs: s.Outputs()})
	}
	var b bytes.Buffer
	if err := exports.Write(&b, *format, set); err != nil {
		return fmt.Errorf("--format %s: %w", *format, err)
	}
	if *output == "" {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	path := cli.UserPath(*output)
	if err := atomicfile.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "%s: %d results in %s format\n", path, len(stored), *format)
	return nil
}
