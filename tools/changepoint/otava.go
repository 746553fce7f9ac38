package changepoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"havlak-lab/tools/verdict"
)

// Otava reads its series from CSV files that a config file names (a "csv"
// test per series, here s0, s1, …, the user's names never reach Otava's
// command line or YAML), and prints one JSON line per test.
const (
	otavaTime   = "time"
	otavaID     = "id"
	otavaMetric = "value"
	// Otava parses --since and --until with dateparser; it reads this.
	otavaTimeLayout = "2006-01-02T15:04:05Z"
)

// otavaRuns is how many runs of Otava Detect makes at once, at most: one
// a CPU. Otava searches each series on its own (a test of its own), so
// the series split between runs come back as from one.
var otavaRuns = runtime.NumCPU()

// minRunSeries is the fewest series worth a run of Otava of their own:
// about as long to search as Otava's start (1.3 s on the lab's VM, of
// 4 s for 150 series of 150 points: docs/scale.md).
var minRunSeries = 50

// Detect finds the change points of each series with Otava, in one run of
// `otava analyze` (or, for many series, in as many at once as otavaRuns
// and minRunSeries allow, each a share of them), and returns a Result per
// series, in the same order.
func Detect(ctx context.Context, opts Options, series ...Series) ([]Result, error) {
	seen := map[string]bool{}
	for _, s := range series {
		if err := s.check(); err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("series %s is given twice", s.Name)
		}
		seen[s.Name] = true
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	if len(series) == 0 {
		return nil, nil
	}
	runs := max(1, min(otavaRuns, len(series)/minRunSeries))
	if runs == 1 {
		return detect(ctx, opts, series)
	}
	results := make([]Result, len(series))
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		from, to := i*len(series)/runs, (i+1)*len(series)/runs
		wg.Go(func() {
			var found []Result
			found, errs[i] = detect(ctx, opts, series[from:to])
			copy(results[from:to], found)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// detect is Detect's one run of Otava over series, already checked.
func detect(ctx context.Context, opts Options, series []Series) ([]Result, error) {
	dir, err := os.MkdirTemp("", "changepoint-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	tests, err := writeTests(dir, series)
	if err != nil {
		return nil, err
	}
	stdout, stderr, err := runOtava(ctx, opts, dir, tests)
	if err != nil {
		return nil, err
	}
	reports, err := readReports(stdout, opts.Otava)
	if err != nil {
		return nil, err
	}

	results := make([]Result, len(series))
	for i, s := range series {
		groups, ok := reports[tests.names[i]]
		if !ok {
			return nil, fmt.Errorf("series %s: Otava printed no result%s", s.Name, said(stderr))
		}
		points, err := changePoints(s, groups, tests.scales[i])
		if err != nil {
			return nil, fmt.Errorf("series %s: %s analyze: %w", s.Name, opts.Otava, err)
		}
		results[i] = Result{Series: s.Name, Direction: s.Direction, ChangePoints: points}
	}
	return results, nil
}

// otavaTests are the series of one run of Otava as its tests: their names,
// the scale of each (scaleOf), the config file that names them, and the
// span of their points' times.
type otavaTests struct {
	names       []string
	scales      []float64
	configFile  string
	first, last time.Time
}

// writeTests writes each series' CSV file and the config naming them into
// dir.
func writeTests(dir string, series []Series) (otavaTests, error) {
	t := otavaTests{
		names:  make([]string, len(series)),
		scales: make([]float64, len(series)),
		first:  series[0].Points[0].Time,
		last:   series[0].Points[0].Time,
	}
	tests := map[string]any{}
	for i, s := range series {
		t.names[i] = fmt.Sprintf("s%d", i)
		t.scales[i] = scaleOf(s.Points)
		file := filepath.Join(dir, t.names[i]+".csv")
		if err := writeCSV(file, s.Points, t.scales[i]); err != nil {
			return otavaTests{}, err
		}
		tests[t.names[i]] = csvTest(file, s.Direction)
		if first := s.Points[0].Time; first.Before(t.first) {
			t.first = first
		}
		if last := s.Points[len(s.Points)-1].Time; last.After(t.last) {
			t.last = last
		}
	}
	// JSON is YAML: Otava's config loader reads it as it is.
	config, err := json.Marshal(map[string]any{"tests": tests})
	if err != nil {
		return otavaTests{}, err
	}
	t.configFile = filepath.Join(dir, "otava.yaml")
	if err := os.WriteFile(t.configFile, config, 0o644); err != nil {
		return otavaTests{}, err
	}
	return t, nil
}

// csvTest is Otava's config of the test that reads a series from file.
func csvTest(file string, d Direction) map[string]any {
	// Otava's direction: 1 when higher is better. It only labels its own
	// reports; Result.Regression is decided here.
	direction := -1
	if d == HigherIsBetter {
		direction = 1
	}
	return map[string]any{
		"type":        "csv",
		"file":        file,
		"time_column": otavaTime,
		"attributes":  []string{otavaID},
		"metrics":     map[string]any{otavaMetric: map[string]any{"column": otavaMetric, "direction": direction}},
	}
}

// runOtava runs `otava analyze` on the tests, in dir, and returns what it
// printed.
func runOtava(ctx context.Context, opts Options, dir string, tests otavaTests) (stdout, stderr *bytes.Buffer, err error) {
	// Otava keeps only the points between --since (by default a year ago)
	// and --until (by default now): the whole series must pass.
	args := []string{"analyze",
		"--config-file", tests.configFile,
		"--output", "json",
		"--since", tests.first.Add(-24 * time.Hour).UTC().Format(otavaTimeLayout),
		"--until", tests.last.Add(24 * time.Hour).UTC().Format(otavaTimeLayout),
		"--window", strconv.Itoa(opts.Window),
		// Otava 0.8.0 declares its p-value option as the one string
		// "-P, --p-value": only -P works.
		"-P", strconv.FormatFloat(opts.MaxPValue, 'g', -1, 64),
		"-M", strconv.FormatFloat(opts.MinMagnitude, 'g', -1, 64),
	}
	args = append(args, tests.names...)
	cmd := exec.CommandContext(ctx, opts.Otava, args...)
	// Otava reads settings from its environment (BRANCH filters the series
	// by a branch column, OTAVA_CONFIG, database addresses) and from
	// ~/.otava: neither may change what it reads here.
	cmd.Env = []string{"HOME=" + dir, "TMPDIR=" + dir, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TZ=UTC"}
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("%s analyze: %v%s", opts.Otava, err, said(stderr))
	}
	return stdout, stderr, nil
}

// readReports reads the change points Otava printed, by test.
func readReports(stdout *bytes.Buffer, otava string) (map[string][]otavaGroup, error) {
	// A test Otava could not read is only logged; its exit status is 0.
	reports := map[string][]otavaGroup{}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 64<<20)
	for lines.Scan() {
		line := bytes.TrimSpace(lines.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var report map[string][]otavaGroup
		if err := json.Unmarshal(line, &report); err != nil {
			return nil, fmt.Errorf("%s analyze printed unreadable JSON: %v: %.200s", otava, err, line)
		}
		for name, groups := range report {
			reports[name] = groups
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	return reports, nil
}

// scaleOf is what a series' values are divided by on their way to Otava,
// which prints means with 6 decimals: the median's size, so the means come
// back with 6 significant digits whether the values are seconds or
// billions of instructions. Otava's statistics do not depend on the scale.
func scaleOf(points []Point) float64 {
	sizes := make([]float64, len(points))
	for i, p := range points {
		sizes[i] = math.Abs(p.Value)
	}
	sort.Float64s(sizes)
	if median := sizes[len(sizes)/2]; median > 0 {
		return median
	}
	return 1
}

func writeCSV(file string, points []Point, scale float64) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{otavaTime, otavaID, otavaMetric})
	for _, p := range points {
		w.Write([]string{
			otavaTimestamp(p.Time),
			p.ID,
			strconv.FormatFloat(p.Value/scale, 'g', -1, 64),
		})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

// otavaTimestamp is a point's time as Otava's CSV importer reads it
// fastest: Unix seconds in 10 digits, which dateparser takes for a
// timestamp (in the zone of TZ, which Detect sets to UTC) before it tries
// any language's date formats, at a tenth of the cost of a date and time
// written out (0.3 ms a point rather than 3: most of Otava's time over a
// series, docs/scale.md). Series.check keeps times within the 10 digits;
// changePoints checks that Otava read them back as they were.
func otavaTimestamp(t time.Time) string {
	if s := t.Unix(); s < 0 {
		return fmt.Sprintf("-%010d", -s)
	}
	return fmt.Sprintf("%010d", t.Unix())
}

// otavaGroup is an element of `otava analyze --output json`: the change
// points of all a test's metrics at one index (here one metric). Otava
// prints the numbers as strings.
type otavaGroup struct {
	Time       int64             `json:"time"`
	Attributes map[string]string `json:"attributes"`
	Changes    []struct {
		Metric       string `json:"metric"`
		Index        int    `json:"index"`
		Time         int64  `json:"time"`
		MeanBefore   string `json:"mean_before"`
		StddevBefore string `json:"stddev_before"`
		MeanAfter    string `json:"mean_after"`
		StddevAfter  string `json:"stddev_after"`
		PValue       string `json:"pvalue"`
	} `json:"changes"`
}

func changePoints(s Series, groups []otavaGroup, scale float64) ([]ChangePoint, error) {
	var out []ChangePoint
	for _, g := range groups {
		for _, c := range g.Changes {
			if c.Metric != otavaMetric {
				return nil, fmt.Errorf("a change point of metric %q, not %q", c.Metric, otavaMetric)
			}
			if c.Index < 1 || c.Index >= len(s.Points) {
				return nil, fmt.Errorf("change point at index %d of %d points", c.Index, len(s.Points))
			}
			after := s.Points[c.Index]
			// Otava must have read every point, in order: the index
			// names the same point on both sides.
			if id := g.Attributes[otavaID]; id != after.ID || c.Time != after.Time.Unix() {
				return nil, fmt.Errorf("change point at index %d is %s at %d, but that point is %s at %d",
					c.Index, id, c.Time, after.ID, after.Time.Unix())
			}
			numbers := map[string]string{
				"mean_before": c.MeanBefore, "stddev_before": c.StddevBefore,
				"mean_after": c.MeanAfter, "stddev_after": c.StddevAfter, "pvalue": c.PValue,
			}
			parsed := map[string]float64{}
			for key, text := range numbers {
				v, err := strconv.ParseFloat(text, 64)
				if err != nil {
					return nil, fmt.Errorf("change point at index %d: %s %q is not a number", c.Index, key, text)
				}
				parsed[key] = v
			}
			out = append(out, ChangePoint{
				Index:  c.Index,
				Before: s.Points[c.Index-1],
				After:  after,
				Otava: OtavaStats{
					MeanBefore:   parsed["mean_before"] * scale,
					MeanAfter:    parsed["mean_after"] * scale,
					StddevBefore: parsed["stddev_before"] * scale,
					StddevAfter:  parsed["stddev_after"] * scale,
					PValue:       parsed["pvalue"],
				},
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	means := stretchMeans(s.Points, out)
	for i := range out {
		cp := &out[i]
		cp.MeanBefore, cp.MeanAfter = means[i], means[i+1]
		if cp.MeanBefore != 0 {
			cp.Change = cp.MeanAfter/cp.MeanBefore - 1
		}
		// Otava has judged the shift real and large enough (its p-value
		// and minimum magnitude); whether it is for the worse is the
		// verdict's to say, as for every comparison of the lab.
		cp.Regression = verdict.ShiftRegresses(s.Name, cp.MeanBefore, cp.MeanAfter, s.Direction == HigherIsBetter)
	}
	return out, nil
}

// stretchMeans are the means of the points between consecutive change
// points (sorted by index), the start and the end.
func stretchMeans(points []Point, cps []ChangePoint) []float64 {
	bounds := []int{0}
	for _, cp := range cps {
		bounds = append(bounds, cp.Index)
	}
	bounds = append(bounds, len(points))
	means := make([]float64, 0, len(bounds)-1)
	for i := 1; i < len(bounds); i++ {
		sum := 0.0
		for _, p := range points[bounds[i-1]:bounds[i]] {
			sum += p.Value
		}
		means = append(means, sum/float64(bounds[i]-bounds[i-1]))
	}
	return means
}

// said is the end of what a command wrote to stderr, to quote in an error.
func said(stderr *bytes.Buffer) string {
	text := strings.TrimSpace(stderr.String())
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return ":\n" + strings.Join(lines, "\n")
}
