package night

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/alert"
	"havlak-lab/tools/changepoint"
	"havlak-lab/tools/changepoint/otavatest"
	"havlak-lab/tools/firstbad/answer"
	"havlak-lab/tools/history"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
	"havlak-lab/tools/trends"
)

// countedNight writes one night's artifacts: havlak6's quick result from
// the fixtures at commit on day, its gated own_instructions the sum of
// its line counts' own functions (main.FindLoops, main.buildGraph,
// main.main, each with the runtime's noise of one run), plus extra in
// main.FindLoops: a seeded regression of that function.
func countedNight(t *testing.T, rng *rand.Rand, commit string, day time.Time, extra uint64) string {
	t.Helper()
	noisy := func(v float64) uint64 { return uint64(v * (1 + 0.00001*rng.NormFloat64())) }
	ir := func(v uint64) cachegrind.Events { return cachegrind.Events{cachegrind.Ir: v} }
	counts := &linecounts.File{Records: []linecounts.Record{
		{File: "go/havlak6/havlak.go", Line: 40, Function: "main.buildGraph", Events: ir(noisy(50e6))},
		{File: "go/havlak6/havlak.go", Line: 120, Function: "main.FindLoops", Events: ir(noisy(100e6) + extra)},
		{File: "go/havlak6/main.go", Line: 10, Function: "main.main", Events: ir(noisy(19e6))},
		{File: "goroot:runtime/malloc.go", Line: 5, Function: "runtime.mallocgc", Events: ir(noisy(30e6))},
	}}
	var own uint64
	for _, r := range counts.Records {
		if !cachegrind.GoRuntime(r.Function) {
			own += r.Events[cachegrind.Ir]
		}
	}
	data, err := counts.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	test := "havlak6_quick_test"
	files := readZip(t, filepath.Join(*fixtures, test, result.ZipName))
	files[linecounts.FileName] = data
	editResult(t, files, func(r *result.Result) {
		r.Environment.Source = result.Source{Commit: commit}
		r.Environment.Started = day.Format(time.RFC3339)
		r.Environment.Origin = scheduledMain
		r.LineCounts = linecounts.FileName
		r.Metrics = []result.Metric{{Name: cachegrind.MetricOwnInstructions, Unit: "instructions", Source: "cachegrind",
			Values: []float64{float64(own)}, Gated: true, Threshold: 0.01}}
	})
	writeZip(t, filepath.Join(dir, test, result.ZipName), files)
	return dir
}

// A seeded regression, about 8,450,000 more instructions in main.FindLoops
// (+5% of havlak6's own instructions) from night 8 on: the night-to-night
// gate's alert names main.FindLoops as the function that moved most, in
// the annotation and in the alert the history keeps (the change point
// the history's search finds later matches that alert). Each night
// records havlak6's functions as series of their own, which the report
// charts and Otava searches (it finds main.FindLoops's step), and which
// never raise an alert themselves.
func TestAlertNamesTheFunction(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	otava := otavatest.Command(t, filepath.Join("..", "..", "ci", "tools.sh"))
	const flat, regressed = 8, 5
	checkout, commits := gitHistory(t, flat+regressed)
	t.Chdir(checkout)
	historyDir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(historyDir, "history.sqlite")
	baseline := filepath.Join(t.TempDir(), "baseline")
	rng := rand.New(rand.NewPCG(5, 6))
	day := time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)
	const named = "moved most in its line counts: main.FindLoops +8,4"

	functionSearched := false
	for i := range flat + regressed {
		var extra uint64
		if i >= flat {
			extra = 8_450_000
		}
		night := countedNight(t, rng, commits[i], day.AddDate(0, 0, i), extra)
		status, log := gateNight(t, baseline, night, func(o *GateOptions) { o.Otava, o.HistoryDir, o.History = otava, historyDir, dsn })
		if !strings.Contains(log, "havlak6: added") {
			t.Fatalf("night %d: the result did not enter the history:\n%s", i, log)
		}
		// Otava finds the step in main.FindLoops's own series too.
		functionSearched = functionSearched || strings.Contains(log, "havlak6 function main.FindLoops (instructions;")
		if strings.Contains(log, "(a function's series: charted, not gated)") && !strings.Contains(log, "function main.FindLoops") {
			t.Errorf("night %d: a change point of a function series other than main.FindLoops:\n%s", i, log)
		}
		if i < flat {
			if status != 0 {
				t.Errorf("night %d, before the regression: exit status %d:\n%s", i, status, log)
			}
			continue
		}
		if i == flat {
			a := annotation(log)
			if status != 1 || !strings.Contains(a, "regression** havlak6 own_instructions") || !strings.Contains(a, named) {
				t.Errorf("night %d: status %d; want a new regression of own_instructions naming %q:\n%s", i, status, named, a)
			}
		}
		series, err := trends.Read(filepath.Join(night, "trends.json"))
		if err != nil {
			t.Fatalf("night %d: %v", i, err)
		}
		if !slices.ContainsFunc(series, func(s trends.Series) bool { return s.Figure == "function main.FindLoops" }) {
			t.Errorf("night %d: the report does not chart main.FindLoops's series", i)
		}
	}
	if !functionSearched {
		t.Errorf("no night found main.FindLoops's series' change point")
	}

	db, err := history.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	alerts, err := db.Alerts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var regression *alert.Alert
	for i, a := range alerts {
		if strings.HasPrefix(a.Figure, "function ") {
			t.Errorf("alert #%d is about a function's series, which is never gated: %+v", a.ID, a)
		}
		if a.Kind == alert.Regression && a.Figure == cachegrind.MetricOwnInstructions {
			regression = &alerts[i]
		}
	}
	if regression == nil || !strings.Contains(regression.Evidence, named) {
		t.Errorf("the history's regression alert: %+v; want its evidence to name %q", regression, named)
	}
	all, err := db.Series(context.Background(), history.Query{Benchmark: "havlak6", Figure: "function main.FindLoops"})
	if err != nil || len(all) != 1 || !all[0].Function() || all[0].Gated || len(all[0].Points) != flat+regressed {
		t.Errorf("main.FindLoops's series: %+v, %v; want one ungated function series of %d points", all, err, flat+regressed)
	}
	for _, name := range []string{"function runtime.mallocgc", fmt.Sprintf("function %s", "main.main")} {
		s, _ := db.Series(context.Background(), history.Query{Benchmark: "havlak6", Figure: name})
		if (len(s) == 1) != (name == "function main.main") {
			t.Errorf("%s: %d series; want main.main's and none of the runtime's", name, len(s))
		}
	}
}

// A change point of a counted figure names the functions that moved it
// between the results on its two sides, read from where the history
// keeps them; a figure not counted per line names none, and results not
// found among the series' points are said so.
func TestChangeFunctions(t *testing.T) {
	needCommands(t)
	rng := rand.New(rand.NewPCG(7, 8))
	day := time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)
	var points []history.Point
	for i, extra := range []uint64{0, 0, 3_000_000} {
		dir := countedNight(t, rng, fmt.Sprintf("c%d", i), day.AddDate(0, 0, i), extra)
		points = append(points, history.Point{Commit: fmt.Sprintf("c%d", i), Started: day.AddDate(0, 0, i),
			Source: filepath.Join(dir, "havlak6_quick_test", result.ZipName)})
	}
	s := history.Series{Benchmark: "havlak6", Figure: cachegrind.MetricOwnInstructions, Points: points}
	cp := changepoint.ChangePoint{Index: 2, Before: changepoint.Point{ID: "c1", Time: day.AddDate(0, 0, 1)},
		After: changepoint.Point{ID: "c2", Time: day.AddDate(0, 0, 2)}}
	if got := changeFunctions(s, cp); !strings.HasPrefix(got, "; moved most in its line counts: main.FindLoops +2,99") &&
		!strings.HasPrefix(got, "; moved most in its line counts: main.FindLoops +3,00") {
		t.Errorf("changeFunctions = %q, want main.FindLoops +3,000,000 or so first", got)
	}
	real := s
	real.Figure = "real_seconds"
	if got := changeFunctions(real, cp); got != "" {
		t.Errorf("changeFunctions of real_seconds = %q, want nothing", got)
	}
	cp.After.ID = "elsewhere"
	if got := changeFunctions(s, cp); !strings.Contains(got, "not among the series' points") {
		t.Errorf("changeFunctions of a point not in the series = %q", got)
	}
}

// A bisected alert says how much of the move from the first bad commit's
// parent to it is in the lines that commit added, from the line counts
// the bisect kept and the commit's diff; without line counts it says
// nothing more.
func TestCommitLines(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@localhost"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	source := []string{"package main", "", "func work(n int) int {", "\ts := 0", "\tfor i := range n {", "\t\ts += i", "\t}", "\treturn s", "}"}
	commit := func(lines []string) string {
		if err := os.MkdirAll(filepath.Join(dir, "go", "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go", "p", "a.go"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", "a commit")
		return git("rev-parse", "HEAD")
	}
	git("init", "-q")
	parent := commit(source)
	// The first bad commit adds a line of work inside the loop (line 7).
	firstBad := commit(slices.Insert(slices.Clone(source), 6, "\t\ts += i * i"))
	ir := func(v uint64) cachegrind.Events { return cachegrind.Events{cachegrind.Ir: v} }
	before := &linecounts.File{Records: []linecounts.Record{
		{File: "go/p/a.go", Line: 5, Function: "main.work", Events: ir(1000)},
		{File: "go/p/a.go", Line: 6, Function: "main.work", Events: ir(4000)},
	}}
	after := &linecounts.File{Records: []linecounts.Record{
		{File: "go/p/a.go", Line: 5, Function: "main.work", Events: ir(1000)},
		{File: "go/p/a.go", Line: 6, Function: "main.work", Events: ir(4100)},
		{File: "go/p/a.go", Line: 7, Function: "main.work", Events: ir(6000)},
	}}
	b := &answer.Answer{Figure: cachegrind.MetricInstructions, Parent: answer.Measurement{Commit: parent},
		FirstBad: answer.Measurement{Commit: firstBad}, ParentLines: before, FirstBadLines: after}
	const want = "; in the first bad commit's lines: 98% of its +6,100 instructions (go/p/a.go:7 +6,000)"
	if got := commitLines(dir, b); got != want {
		t.Errorf("commitLines = %q, want %q", got, want)
	}
	b.ParentLines = nil
	if got := commitLines(dir, b); got != "" {
		t.Errorf("commitLines without the parent's line counts = %q, want nothing", got)
	}
}

// An alert on a testing.B's per-op figure names the functions that moved
// in that benchmark function's own line counts, not in the run's, which
// add up every function's; a result without them says nothing.
func TestMovedFunctionsPerOperation(t *testing.T) {
	spin := result.PerBenchmark(result.FigureOwnInstructionsPerOp, "Spin")
	side := func(spinIr, stirIr uint64, own bool) (*result.Result, result.Outputs) {
		dir := t.TempDir()
		write := func(name string, records ...linecounts.Record) {
			data, err := (&linecounts.File{Records: records}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		spinLine := linecounts.Record{File: "s/spin.go", Line: 9, Function: "s.BenchmarkSpin", Events: cachegrind.Events{spinIr}}
		stirLine := linecounts.Record{File: "s/spin.go", Line: 20, Function: "s.BenchmarkStir", Events: cachegrind.Events{stirIr}}
		write(linecounts.FileName, spinLine, stirLine)
		r := &result.Result{LineCounts: linecounts.FileName, Metrics: []result.Metric{{Name: spin}}}
		if own {
			r.FigureLineCounts = map[string]string{spin: linecounts.FigureFileName(spin)}
			write(linecounts.FigureFileName(spin), spinLine)
		}
		if err := os.WriteFile(filepath.Join(dir, result.FileName), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := result.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { out.Close() })
		return r, out
	}
	base, baseOut := side(6000, 8000, true)
	change, changeOut := side(6060, 9000, true)
	if got := movedFunctions(spin, base, change, baseOut, changeOut); got != "; moved most in its line counts: s.BenchmarkSpin +60" {
		t.Errorf("movedFunctions(%s) = %q, want BenchmarkSpin's +60 alone", spin, got)
	}
	base, baseOut = side(6000, 8000, false)
	change, changeOut = side(6060, 9000, false)
	if got := movedFunctions(spin, base, change, baseOut, changeOut); got != "" {
		t.Errorf("movedFunctions(%s) of results without its own line counts = %q, want nothing", spin, got)
	}
}
