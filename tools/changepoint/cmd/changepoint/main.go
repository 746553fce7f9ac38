// Command changepoint finds the change points of benchmark series with
// Apache Otava (package havlak-lab/tools/changepoint) and prints them.
//
//	changepoint -otava PATH [-direction lower|higher] [-window N] [-p-value P] [-magnitude M] [-json] FILE...
//
// PATH is what `tools/ci/tools.sh otava` prints:
//
//	tools/bazel run //tools/changepoint/cmd/changepoint -- -otava "$(tools/ci/tools.sh otava)" history.csv
//
// Each FILE is one of
//
//   - a CSV file: one series, named after the file, with a header line
//     naming the columns id (a commit or run), time (RFC 3339, e.g.
//     2026-11-23T02:00:00Z) and value (the median of that point's runs), in
//     any order (other columns are ignored), oldest point first;
//     -direction says which way it gets better (default lower);
//   - a JSON file (*.json): a list of series as the package writes them,
//     [{"name": "havlak6 own_instructions", "direction": "lower",
//     "points": [{"id": "c0ffee", "time": "2026-11-23T02:00:00Z", "value": 169027012}, …]}, …].
//
// All series go to one run of Otava. The table has a line per change
// point: the commit range (last point before, first after), the means of
// the stable stretches on either side, the change, Otava's p-value, and
// whether it is a regression. -json prints the results as JSON instead.
// The exit status is 0 whatever was found, 2 for bad usage or input.
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/changepoint"
)

func main() {
	// Its lines carry names, reasons and paths from results and commits:
	// never a terminal's escape sequence (cli.Terminal).
	cli.Exit(run(os.Args[1:], cli.Terminal(os.Stdout), cli.Terminal(os.Stderr)))
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("changepoint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	otava := fs.String("otava", "", "Otava's command: the path `tools/ci/tools.sh otava` prints")
	direction := fs.String("direction", "lower", "for CSV files: which way the metric gets better, lower or higher")
	window := fs.Int("window", changepoint.DefaultWindow, "points Otava's E-divisive looks at at once")
	pValue := fs.Float64("p-value", changepoint.DefaultMaxPValue, "largest p-value of a change point")
	magnitude := fs.Float64("magnitude", changepoint.DefaultMinMagnitude, "smallest relative change of a change point (0.01 is 1%)")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: changepoint -otava PATH [flags] FILE.csv|FILE.json...")
		fs.PrintDefaults()
	}
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if *otava == "" {
		return cli.Usagef("-otava is required: pass the path that `tools/ci/tools.sh otava` prints")
	}
	if fs.NArg() == 0 {
		return cli.Usagef("no input files (CSV or JSON series)")
	}
	csvDirection, err := changepoint.ParseDirection(*direction)
	if err != nil {
		return cli.Usagef("-direction: %v", err)
	}

	var series []changepoint.Series
	for _, name := range fs.Args() {
		read, err := readFile(cli.UserPath(name), name, csvDirection)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		series = append(series, read...)
	}
	opts := changepoint.Options{Otava: cli.UserPath(*otava), Window: *window, MaxPValue: *pValue, MinMagnitude: *magnitude}
	fmt.Fprintf(stderr, "changepoint: %d series to Otava (window %d, p ≤ %g, change ≥ %g%%)\n",
		len(series), opts.Window, opts.MaxPValue, 100*opts.MinMagnitude)
	results, err := changepoint.Detect(context.Background(), opts, series...)
	if err != nil {
		return err
	}
	if *asJSON {
		out, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", out)
		return err
	}
	return printTable(stdout, results)
}

// readFile reads the series of a CSV or JSON file; shown is its name as the
// user typed it, for errors.
func readFile(path, shown string, direction changepoint.Direction) ([]changepoint.Series, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".json") {
		var series []changepoint.Series
		if err := json.Unmarshal(data, &series); err != nil {
			return nil, fmt.Errorf("%s: %v (want a list of series: [{\"name\", \"direction\", \"points\": [{\"id\", \"time\", \"value\"}]}])", shown, err)
		}
		if len(series) == 0 {
			return nil, fmt.Errorf("%s: no series", shown)
		}
		return series, nil
	}
	s, err := readCSV(data, shown, direction)
	if err != nil {
		return nil, err
	}
	return []changepoint.Series{s}, nil
}

func readCSV(data []byte, shown string, direction changepoint.Direction) (changepoint.Series, error) {
	s := changepoint.Series{
		Name:      strings.TrimSuffix(filepath.Base(shown), filepath.Ext(shown)),
		Direction: direction,
	}
	r := csv.NewReader(strings.NewReader(string(data)))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return s, fmt.Errorf("%s: no header line (id,time,value): %v", shown, err)
	}
	column := map[string]int{}
	for i, name := range header {
		column[strings.TrimSpace(name)] = i
	}
	for _, name := range []string{"id", "time", "value"} {
		if _, ok := column[name]; !ok {
			return s, fmt.Errorf("%s:1: no column %q in the header %q (want id, time and value)", shown, name, strings.Join(header, ","))
		}
	}
	for {
		record, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, fmt.Errorf("%s: %v", shown, err)
		}
		line, _ := r.FieldPos(0)
		field := func(name string) (string, error) {
			if i := column[name]; i < len(record) {
				return strings.TrimSpace(record[i]), nil
			}
			return "", fmt.Errorf("%s:%d: no %s (%d fields)", shown, line, name, len(record))
		}
		var p changepoint.Point
		id, err := field("id")
		if err != nil {
			return s, err
		}
		text, err := field("time")
		if err != nil {
			return s, err
		}
		if p.Time, err = time.Parse(time.RFC3339, text); err != nil {
			return s, fmt.Errorf("%s:%d: time %q: want RFC 3339, e.g. 2026-11-23T02:00:00Z", shown, line, text)
		}
		if text, err = field("value"); err != nil {
			return s, err
		}
		if p.Value, err = strconv.ParseFloat(text, 64); err != nil {
			return s, fmt.Errorf("%s:%d: value %q is not a number", shown, line, text)
		}
		p.ID = id
		s.Points = append(s.Points, p)
	}
	if len(s.Points) == 0 {
		return s, fmt.Errorf("%s: no points after the header", shown)
	}
	return s, nil
}

func printTable(w io.Writer, results []changepoint.Result) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "series\tindex\tcommits\tmean before\tmean after\tchange\tp-value\tverdict")
	for _, r := range results {
		if len(r.ChangePoints) == 0 {
			fmt.Fprintf(tw, "%s\t\tno change point\t\t\t\t\t\n", r.Series)
		}
		for _, cp := range r.ChangePoints {
			verdict := "improvement"
			if cp.Regression {
				verdict = "REGRESSION"
			}
			p := strconv.FormatFloat(cp.Otava.PValue, 'g', 2, 64)
			if cp.Otava.PValue == 0 {
				p = "<0.000001"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s..%s\t%.6g\t%.6g\t%+.2f%%\t%s\t%s\n",
				r.Series, cp.Index, cp.Before.ID, cp.After.ID, cp.MeanBefore, cp.MeanAfter, 100*cp.Change, p, verdict)
		}
	}
	return tw.Flush()
}
