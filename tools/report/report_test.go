package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// fixtures is a committed set of real results from one quick run of
// tools/bazel test //benchmarks:all.
const fixtures = "testdata/results"

// fixtureStages are the benchmarks in fixtures, in the report's order:
// the Havlak stages, Go then C++, then word count.
func fixtureStages(t *testing.T) []string {
	t.Helper()
	return []string{"havlak1", "havlak6", "havlak7", "havlak1cc", "havlak6cc", "wordcount3", "wc_w"}
}

// havlakStages are the fixtures' Havlak stages, the rows of the page's
// main table.
var havlakStages = []string{"havlak1", "havlak6", "havlak7", "havlak1cc", "havlak6cc"}

// runReport runs the report; status is the exit status it would end with.
func runReport(t *testing.T, args ...string) (stderr string, status int, err error) {
	t.Helper()
	var b bytes.Buffer
	err = run(args, &b)
	return b.String(), cli.Status(err), err
}

// editResult changes the result.json of an unpacked result.
func editResult(t *testing.T, dir string, edit func(doc map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, result.FileName)
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	data, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runsOf returns the runs of a result.json document, to be edited.
func runsOf(doc map[string]any) []map[string]any {
	var runs []map[string]any
	for _, run := range doc["timing"].(map[string]any)["runs"].([]any) {
		runs = append(runs, run.(map[string]any))
	}
	return runs
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// unzipTo unpacks a fixture's outputs.zip into dir, to be tampered with.
func unzipTo(t *testing.T, zipPath, dir string) {
	t.Helper()
	z, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// medianReal is the median real time of an unpacked result, computed here
// independently of the report.
func medianReal(t *testing.T, dir string) float64 {
	var x struct{ Timing struct{ Runs []result.Run } }
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, result.FileName))), &x); err != nil {
		t.Fatal(err)
	}
	var v []float64
	for _, r := range x.Timing.Runs {
		v = append(v, r.RealSeconds)
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func TestReport(t *testing.T) {
	out := t.TempDir()
	stderr, _, err := runReport(t, "--from", fixtures, "--out", out)
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	md := readFile(t, filepath.Join(out, "report.md"))
	table := readFile(t, filepath.Join(out, "table.md"))
	page := readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(md, table) {
		t.Error("report.md does not contain table.md")
	}
	if !strings.Contains(md, "Quick workload") || !strings.Contains(md, "go1.") {
		t.Errorf("report.md lacks the workload note or the machine:\n%s", md)
	}

	stages := fixtureStages(t)
	unpacked := t.TempDir()
	var order []int
	for _, name := range stages {
		dir := filepath.Join(unpacked, name)
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), dir)
		median := medianReal(t, dir)
		row := regexp.MustCompile(`(?m)^\| ` + name + ` \| ([^|]+) \| ([0-9.]+) \(`).FindStringSubmatch(table)
		if row == nil {
			t.Errorf("no row for %s in\n%s", name, table)
			continue
		}
		if want := fmt.Sprintf("%.2f", median); row[2] != want {
			t.Errorf("%s: median real %s in the table, want %s", name, row[2], want)
		}
		order = append(order, strings.Index(table, "| "+name+" |"))
		if !strings.Contains(page, `data-stage="`+name+`"`) {
			t.Errorf("index.html has no row for %s", name)
		}
		files := []string{"flame.svg", "cpu.svg", "heap.svg"}
		if name == "wc_w" { // timed only
			files = nil
		}
		for _, file := range files {
			svg := readFile(t, filepath.Join(out, "stages", name, file))
			if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
				t.Errorf("%s/%s is not well-formed: %v", name, file, err)
			}
			if file != "flame.svg" && svg != readFile(t, filepath.Join(dir, file)) {
				t.Errorf("%s/%s is not the result's, copied", name, file)
			}
		}
		if !strings.Contains(md, "### "+name+" (") {
			t.Errorf("report.md has no section for %s", name)
		}
	}
	if !sort.IntsAreSorted(order) {
		t.Errorf("stages out of order in\n%s", table)
	}
	for _, want := range []string{
		"**Havlak loop finding**", "| havlak1 | Go | ", "| havlak6cc | C++ | ", "Go / C++ |",
		"**Word count**", "speed-up over wordcount1 |", "speed-up over havlak1 / havlak1cc |", "| wc_w | C (GNU coreutils) | ",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table.md lacks %q:\n%s", want, table)
		}
	}
	if !strings.Contains(page, `id="chart-time-word-count"`) {
		t.Error("index.html lacks the word count charts")
	}
	if !strings.Contains(page, `id="chart-time-havlak-loop-finding"`) || !strings.Contains(page, `id="chart-pairs-havlak-loop-finding"`) {
		t.Error("index.html lacks the charts")
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) ||
		regexp.MustCompile(`(src|href)="https?:`).MatchString(page) {
		t.Error("index.html fetches something from the network")
	}
}

func TestBrokenInputs(t *testing.T) {
	dir := t.TempDir()
	stages := fixtureStages(t)
	good := stages[0]
	unzipTo(t, filepath.Join(fixtures, good+"_quick_test", "outputs.zip"), filepath.Join(dir, good))

	// A truncated zip.
	data := readFile(t, filepath.Join(fixtures, stages[1]+"_quick_test", "outputs.zip"))
	truncated := filepath.Join(dir, "truncated_test", "outputs.zip")
	os.MkdirAll(filepath.Dir(truncated), 0o755)
	os.WriteFile(truncated, []byte(data[:len(data)/2]), 0o644)

	// A result whose CPU profile does not parse and whose heap profile is
	// missing.
	corrupt := filepath.Join(dir, "corrupt")
	unzipTo(t, filepath.Join(fixtures, good+"_quick_test", "outputs.zip"), corrupt)
	editResult(t, corrupt, func(doc map[string]any) { doc["benchmark"].(map[string]any)["name"] = "corrupt" })
	os.WriteFile(filepath.Join(corrupt, "cpu.pb.gz"), []byte("not a profile"), 0o644)
	os.Remove(filepath.Join(corrupt, "heap.pb.gz"))

	// A result of the format before result.json, and one of a newer one.
	older := filepath.Join(dir, "older")
	unzipTo(t, filepath.Join(fixtures, good+"_quick_test", "outputs.zip"), older)
	os.Rename(filepath.Join(older, result.FileName), filepath.Join(older, "benchmark.json"))
	newer := filepath.Join(dir, "newer")
	unzipTo(t, filepath.Join(fixtures, good+"_quick_test", "outputs.zip"), newer)
	editResult(t, newer, func(doc map[string]any) { doc["schema_version"] = result.SchemaVersion + 1 })

	// The report shows what it can, and fails: what it cannot read, it
	// cannot vouch for.
	out := t.TempDir()
	stderr, status, _ := runReport(t, "--from", dir, "--out", out)
	if status != 1 {
		t.Fatalf("report: exit status %d, want 1\n%s", status, stderr)
	}
	sum, err := summary.Read(filepath.Join(out, summary.FileName))
	if err != nil || len(sum.Unreadable) != 3 || sum.Status() != 1 {
		t.Errorf("summary.json: %v, unreadable %q; want the truncated, older and newer results", err, sum.Unreadable)
	}
	for _, want := range []string{
		truncated + ": zip: not a valid zip file",
		filepath.Join(corrupt, "cpu.pb.gz") + ": parsing profile: unrecognized profile format",
		filepath.Join(corrupt, "heap.pb.gz") + ": no such file or directory",
		filepath.Join(older, result.FileName) + ": missing: this is a result of the format before schema version 1",
		filepath.Join(newer, result.FileName) + fmt.Sprintf(": schema version %d; this lab reads versions 1 to %d", result.SchemaVersion+1, result.SchemaVersion),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, stderr)
		}
	}
	md := readFile(t, filepath.Join(out, "report.md"))
	if !strings.Contains(md, "| "+good+" |") || !strings.Contains(md, "| corrupt |") || !strings.Contains(md, "## Problems") {
		t.Errorf("report.md should show the good and the corrupt results and the problems:\n%s", md)
	}
	if !strings.Contains(md, "### corrupt (Go)\n\nNo CPU profile.") {
		t.Errorf("report.md should say the corrupt result has no CPU profile:\n%s", md)
	}
}

func TestNoResults(t *testing.T) {
	empty := t.TempDir()
	out := filepath.Join(t.TempDir(), "report")
	_, _, err := runReport(t, "--from", empty, "--out", out)
	if !errorsAsUsage(err) || !strings.Contains(err.Error(), "no benchmark results in "+empty) {
		t.Errorf("empty directory: %v, want a usage error naming it", err)
	}
	_, _, err = runReport(t, "--from", filepath.Join(empty, "missing"), "--out", out)
	if !errorsAsUsage(err) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s behind", out)
	}
	for _, args := range [][]string{{"--from", empty, "--testlogs"}, {"--rss-threshold=0"}, {"extra"}, {"--bogus"}} {
		if _, _, err := runReport(t, args...); !errorsAsUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

func errorsAsUsage(err error) bool {
	return errors.As(err, new(cli.UsageError))
}

// scaleRuns copies the fixtures to a new directory, unpacked, with the real
// times and max RSS of stage multiplied.
func scaleRuns(t *testing.T, stage string, realFactor, rssFactor float64) string {
	dir := t.TempDir()
	for _, name := range fixtureStages(t) {
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(dir, name))
	}
	editResult(t, filepath.Join(dir, stage), func(doc map[string]any) {
		for _, r := range runsOf(doc) {
			r["real_seconds"] = r["real_seconds"].(float64) * realFactor
			r["max_rss_kib"] = math.Round(r["max_rss_kib"].(float64) * rssFactor)
		}
	})
	return dir
}

func TestRegressionGate(t *testing.T) {
	stage := fixtureStages(t)[1]
	for _, c := range []struct {
		name          string
		real, rss     float64
		wantRegressed bool
	}{
		{"unchanged", 1, 1, false},
		{"5% slower: within the threshold", 1.05, 1, false},
		{"3 times slower", 3, 1, true},
		{"30% more memory", 1, 1.3, true},
		{"faster", 0.5, 0.8, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			stderr, status, _ := runReport(t, "--from", scaleRuns(t, stage, c.real, c.rss), "--baseline", fixtures, "--out", out)
			if regressed := status == 1; status > 1 || regressed != c.wantRegressed {
				t.Fatalf("exit status %d; want regressed %v\n%s", status, c.wantRegressed, stderr)
			}
			if c.wantRegressed != strings.Contains(stderr, "report: "+stage+" regressed") {
				t.Errorf("stderr:\n%s", stderr)
			}
			table := readFile(t, filepath.Join(out, "table.md"))
			if !strings.Contains(table, "vs baseline") || c.wantRegressed != strings.Contains(table, "**REGRESSED**") {
				t.Errorf("table:\n%s", table)
			}
		})
	}
}

// Of two results for one benchmark, in testlogs of two configurations say,
// the newest is reported.
func TestNewestResultWins(t *testing.T) {
	older, newer := t.TempDir(), t.TempDir()
	for _, dir := range []string{older, newer} {
		unzipTo(t, filepath.Join(fixtures, "havlak6_quick_test", "outputs.zip"), filepath.Join(dir, "havlak6"))
	}
	editResult(t, filepath.Join(newer, "havlak6"), func(doc map[string]any) {
		for _, r := range runsOf(doc) {
			r["start"] = "2199-01-01T00:00:00Z"
			r["real_seconds"] = 42.0
		}
	})
	for _, roots := range [][]string{{older, newer}, {newer, older}} {
		set, err := model.Load("", roots...)
		if err != nil || len(set.Results) != 1 || set.Results[0].Runs[0].RealSeconds != 42 {
			t.Fatalf("model.Load%v: %v, %v; want only the newer one", roots, set, err)
		}
		if len(set.LeftOut) != 1 || !set.LeftOut[0].Older || set.LeftOut[0].Source != filepath.Join(older, "havlak6") {
			t.Errorf("model.Load%v left out %+v, want the older result", roots, set.LeftOut)
		}
	}
}

// A baseline from another machine or toolchain is not compared unless the
// gate is told to; the differing fields are named.
func TestEnvironmentChange(t *testing.T) {
	moved := t.TempDir()
	for _, name := range fixtureStages(t) {
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(moved, name))
	}
	editResult(t, filepath.Join(moved, "havlak6"), func(doc map[string]any) {
		env := doc["environment"].(map[string]any)
		env["toolchains"].(map[string]any)["go"] = "go1.99"
		env["machine"].(map[string]any)["cores"] = 64
	})
	stderr, status, _ := runReport(t, "--from", moved, "--baseline", fixtures, "--out", t.TempDir())
	if status != verdict.StatusNotComparable || !strings.Contains(stderr, `havlak6: another environment than the baseline's (machine.cores: "2" → "64", toolchains.go: "go1.27.4" → "go1.99"): only the figures it cannot change were compared`) {
		t.Errorf("exit status %d, want %d, naming the fields:\n%s", status, verdict.StatusNotComparable, stderr)
	}
	out := t.TempDir()
	stderr, status, _ = runReport(t, "--from", moved, "--baseline", fixtures, "--allow-env-change", "--out", out)
	if status != 0 || !strings.Contains(readFile(t, filepath.Join(out, "table.md")), "(environment changed: machine.cores") {
		t.Errorf("--allow-env-change: exit status %d, want 0 and the change noted:\n%s", status, stderr)
	}
}

// Results of the baseline's binaries and runs measured by another version
// of the lab (a consumer that moved its pin of the lab) are re-baselined by
// name: havlak6 five times slower, which one lab calls inconsistent, is
// not compared, and nothing fails.
func TestAnotherLab(t *testing.T) {
	base, night := t.TempDir(), t.TempDir()
	for _, name := range fixtureStages(t) {
		for dir, lab := range map[string]string{base: "a", night: "b"} {
			unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(dir, name))
			editResult(t, filepath.Join(dir, name), func(doc map[string]any) {
				doc["schema_version"] = result.SchemaVersion
				doc["identity"] = map[string]any{"binary_sha256": strings.Repeat("1", 64), "run_sha256": strings.Repeat("2", 64),
					"lab_sha256": strings.Repeat(lab, 64)}
				if dir == night && name == "havlak6" {
					for _, run := range runsOf(doc) {
						run["real_seconds"] = 5 * run["real_seconds"].(float64)
					}
				}
			})
		}
	}
	stderr, status, _ := runReport(t, "--from", night, "--baseline", base, "--out", t.TempDir())
	for _, want := range []string{
		"havlak6: " + verdict.AnotherLab + " (the lab's version aaaaaaaaaaaa → bbbbbbbbbbbb): none of its figures was compared",
		fmt.Sprintf("report: %d benchmarks measured by another version of the lab than their baseline's: re-baselined", len(fixtureStages(t))),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report does not say %q:\n%s", want, stderr)
		}
	}
	if status != verdict.StatusNotComparable || strings.Contains(stderr, "INCONSISTENT") || strings.Contains(stderr, "ran in another environment") {
		t.Errorf("exit status %d, want %d, nothing inconsistent, no other environment:\n%s", status, verdict.StatusNotComparable, stderr)
	}
}

// A study the report has never heard of, declared only in its results,
// gets a section of its own, ordered and captioned from the declarations.
func TestMadeUpStudy(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"havlak1", "havlak6"} {
		unpacked := filepath.Join(dir, name)
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), unpacked)
		editResult(t, unpacked, func(doc map[string]any) {
			b := doc["benchmark"].(map[string]any)
			b["name"] = []string{"zz_second", "aa_first"}[i]
			b["study"] = "Made-up study"
			b["stage"] = 2 - i
			b["language"] = "Zig"
			b["reference"] = "aa_first"
			b["counterpart"] = ""
			b["workload"] = map[string]any{"name": "quick", "description": "a made-up input"}
		})
	}
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", dir, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	table := readFile(t, filepath.Join(out, "table.md"))
	if !regexp.MustCompile(`(?s)^\*\*Made-up study\*\*.*speed-up over aa_first \|.*\| aa_first \| Zig \| .*\| zz_second \| Zig \| `).MatchString(table) {
		t.Errorf("table.md has no section for the made-up study, in stage order:\n%s", table)
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(page, "<h2>Made-up study</h2>\n<p class=\"note workload\">Quick workload: a made-up input.</p>") ||
		!strings.Contains(page, `id="chart-time-made-up-study"`) ||
		!strings.Contains(readFile(t, filepath.Join(out, "report.md")), "**Made-up study**\n\nQuick workload: a made-up input.\n") {
		t.Error("index.html or report.md lacks the made-up study's section or workload")
	}
}

// setMetric gives an unpacked result one gated figure with values.
func setMetric(t *testing.T, dir string, values ...float64) {
	t.Helper()
	declareMetric(t, dir, true, 0.01, values...)
}

// declareMetric makes the result in dir count instructions, declared
// gated or not at threshold.
func declareMetric(t *testing.T, dir string, gated bool, threshold float64, values ...float64) {
	t.Helper()
	editResult(t, dir, func(doc map[string]any) {
		doc["metrics"] = []any{map[string]any{
			"name": "instructions", "unit": "instructions", "source": "test",
			"values": values, "gated": gated, "threshold": threshold,
		}}
	})
}

// A result cannot loosen the gate it is judged by: its baseline's
// declaration decides, and the report says what the result tried.
func TestMetricGateCannotBeLoosened(t *testing.T) {
	for _, c := range []struct {
		name      string
		gated     bool
		threshold float64
		says      string
	}{
		{"a threshold of 100%", true, 1, "the change declares a threshold of 100.0%, the base 1.0%"},
		{"the gate dropped", false, 0, "the change no longer gates it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldDir, newDir := t.TempDir(), t.TempDir()
			for _, dir := range []string{oldDir, newDir} {
				unzipTo(t, filepath.Join(fixtures, "havlak6cc_quick_test", "outputs.zip"), filepath.Join(dir, "havlak6cc"))
			}
			setMetric(t, filepath.Join(oldDir, "havlak6cc"), 1e9, 1e9, 1e9)
			declareMetric(t, filepath.Join(newDir, "havlak6cc"), c.gated, c.threshold, 1.05e9, 1.05e9, 1.05e9)
			out := t.TempDir()
			stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
			if status != 1 {
				t.Errorf("exit status %d, want 1 (regressed):\n%s", status, stderr)
			}
			sum, err := summary.Read(filepath.Join(out, summary.FileName))
			if err != nil || len(sum.Regressed()) != 1 {
				t.Fatalf("summary.json: %v, %+v, want one regressed benchmark", err, sum)
			}
			if !slices.ContainsFunc(sum.Regressed()[0].Figures, func(v verdict.Verdict) bool {
				return v.Figure == "instructions" && v.Fails() && strings.Contains(v.Loosened, c.says)
			}) {
				t.Errorf("summary.json does not say that the gate was loosened (%q): %+v", c.says, sum.Regressed()[0])
			}
		})
	}
}

// The gate on low-noise figures: a change counts when it is worse than
// both the threshold and the noise of the runs; the threshold is
// calibrated from the baseline's runs (3 runs that do not move: the floor
// of a count, 0.5%), or the declared 1% with fewer runs.
func TestMetricGate(t *testing.T) {
	for _, c := range []struct {
		name      string
		old, new  []float64
		regressed bool
	}{
		{"2% more, no noise", []float64{1e9, 1e9, 1e9}, []float64{1.02e9, 1.02e9, 1.02e9}, true},
		{"0.7% more, no noise: over the floor", []float64{1e9, 1e9, 1e9}, []float64{1.007e9, 1.007e9, 1.007e9}, true},
		{"0.4% more: under the floor", []float64{1e9, 1e9, 1e9}, []float64{1.004e9, 1.004e9, 1.004e9}, false},
		{"0.7% more, 2 runs: under the declared 1%", []float64{1e9, 1e9}, []float64{1.007e9, 1.007e9}, false},
		{"2% more, but 5% noise", []float64{0.97e9, 1e9, 1.02e9}, []float64{1.0e9, 1.02e9, 1.05e9}, false},
		{"fewer", []float64{1e9, 1e9}, []float64{0.9e9, 0.9e9}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldDir, newDir := t.TempDir(), t.TempDir()
			for dir, values := range map[string][]float64{oldDir: c.old, newDir: c.new} {
				unzipTo(t, filepath.Join(fixtures, "havlak6cc_quick_test", "outputs.zip"), filepath.Join(dir, "havlak6cc"))
				setMetric(t, filepath.Join(dir, "havlak6cc"), values...)
			}
			out := t.TempDir()
			stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
			if regressed := status == 1; regressed != c.regressed || status > 1 {
				t.Errorf("exit status %d, want regressed %v:\n%s", status, c.regressed, stderr)
			}
			// summary.json says what the exit status says, with the figure.
			sum, err := summary.Read(filepath.Join(out, summary.FileName))
			if err != nil || sum.Status() != status || len(sum.Regressed()) != map[bool]int{true: 1}[c.regressed] {
				t.Errorf("summary.json: %v, status %v, want %d", err, sum, status)
			} else if c.regressed && !slices.ContainsFunc(sum.Regressed()[0].Figures, func(v verdict.Verdict) bool { return v.Figure == "instructions" && v.Fails() }) {
				t.Errorf("summary.json does not name the instructions: %+v", sum.Regressed()[0])
			}
			if c.name == "2% more, no noise" && !strings.Contains(stderr, "report: havlak6cc: instructions +2.00% (REGRESSED: 1,000,000,000 → 1,020,000,000 instructions, median of 3 and 3 runs; threshold 0.5% (the floor: 5 × noise 0% of 3 reruns is under it), noise 0.0000%)") {
				t.Errorf("the evidence is missing:\n%s", stderr)
			}
		})
	}
}

// TestServerStudy reports a real quick server result (the runner's
// router_mutex_quick_test, its trace, graphs and snapshot profiles left
// out) with the program fixtures, as a study of its own, and a second
// stage made from it to check the reference's throughput ratio.
func TestServerStudy(t *testing.T) {
	dir := t.TempDir()
	unzipTo(t, filepath.Join(fixtures, "havlak6_quick_test", "outputs.zip"), filepath.Join(dir, "havlak6"))
	unzipTo(t, filepath.Join("testdata/servers/router_mutex_quick_test/outputs.zip"), filepath.Join(dir, "router_mutex"))
	second := filepath.Join(dir, "router_sharded")
	unzipTo(t, filepath.Join("testdata/servers/router_mutex_quick_test/outputs.zip"), second)
	editResult(t, second, func(doc map[string]any) {
		b := doc["benchmark"].(map[string]any)
		b["name"], b["stage"], b["reference"] = "router_sharded", 4, "router_mutex"
		for _, r := range doc["server"].(map[string]any)["rounds"].([]any) {
			r := r.(map[string]any)
			r["throughput"] = 2 * r["throughput"].(float64)
		}
	})
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", dir, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	table := readFile(t, filepath.Join(out, "table.md"))
	if !regexp.MustCompile(`(?s)\*\*Havlak loop finding\*\*.*\*\*HTTP router under load\*\*.*\| router_mutex \| 3 \| \d+ \| .*\| router_sharded \| 4 \| \d+ \| 2\.00× \|`).MatchString(table) {
		t.Errorf("table.md lacks the server study's rows in stage order, or the throughput ratio:\n%s", table)
	}
	md := readFile(t, filepath.Join(out, "report.md"))
	for _, want := range []string{"## HTTP router under load: profiles under load", "### router_mutex (stage 3)",
		"- mutex contention (fraction 1/10): ", "`havlak-lab/go/router/router3.(*cache).get` ", "- blocking (rate 10000 ns): "} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "net/http/pprof") {
		t.Error("report.md counts the profiler's own waiting as contention")
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(page, "<h2>HTTP router under load</h2>") || !strings.Contains(page, `data-stage="router_sharded"`) {
		t.Error("index.html lacks the server study's section")
	}
	if _, err := os.Stat(filepath.Join(out, "stages", "router_mutex", "flame.svg")); err != nil {
		t.Errorf("no flame graph of the server's CPU profile: %v", err)
	}
}

// standardCopies unpacks the fixtures into a new directory, with copies of
// some stages made results of the standard workload ("NAME_standard",
// started later, ten times slower, of another compilation mode).
func standardCopies(t *testing.T, standard ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range fixtureStages(t) {
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(dir, name))
	}
	unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(dir, "router_mutex"))
	for _, name := range standard {
		copied := filepath.Join(dir, name+"_standard")
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), copied)
		editResult(t, copied, func(doc map[string]any) {
			doc["benchmark"].(map[string]any)["workload"] = map[string]any{"name": "standard", "description": "the full-size input of " + name}
			doc["environment"].(map[string]any)["build"].(map[string]any)["compilation_mode"] = "opt"
			for _, r := range runsOf(doc) {
				r["real_seconds"] = r["real_seconds"].(float64) * 10
			}
		})
	}
	return dir
}

// With results of both workloads, the report shows the standard ones,
// says which quick ones it left out, why and how to see them (stderr,
// report.md, the page), and captions each table with its own workload;
// --workload quick shows the others and leaves out the standard ones.
func TestWorkloadsAreNotMixed(t *testing.T) {
	dir := standardCopies(t, "havlak1", "havlak6")
	out := t.TempDir()
	stderr, _, err := runReport(t, "--from", dir, "--out", out)
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	leftOut := "Left out: 8 results of the quick workload (havlak1, havlak1cc, havlak6, havlak6cc, havlak7, router_mutex, wc_w, wordcount3), " +
		"whose timings do not compare with the standard workload's; --workload quick reports them instead."
	md := readFile(t, filepath.Join(out, "report.md"))
	table := readFile(t, filepath.Join(out, "table.md"))
	page := readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(stderr, "report: left out: 8 results of the quick workload (havlak1, ") || !strings.Contains(stderr, "of the standard workload") {
		t.Errorf("stderr does not say what was left out:\n%s", stderr)
	}
	if !strings.Contains(md, "Standard workloads.\n\n"+leftOut+"\n") {
		t.Errorf("report.md does not say what was left out:\n%s", md)
	}
	if !strings.Contains(page, `<p class="note left-out">`+strings.ReplaceAll(leftOut, "'", "&#39;")+`</p>`) {
		t.Errorf("index.html does not say what was left out:\n%s", page)
	}
	want := "**Havlak loop finding**\n\nStandard workload: the full-size input of havlak1 or the full-size input of havlak6.\n\n"
	if !strings.HasPrefix(table, want) || strings.Contains(table, "Quick") || strings.Contains(table, "HTTP router") {
		t.Errorf("table.md should be the standard results alone, captioned %q:\n%s", want, table)
	}
	if !strings.Contains(page, "<h2>Havlak loop finding</h2>\n<p class=\"note workload\">Standard workload: the full-size input of havlak1 or the full-size input of havlak6.</p>") ||
		strings.Contains(page, "Quick workload") {
		t.Errorf("index.html should caption the table with the standard workload alone:\n%s", page)
	}
	if strings.Contains(md, "other results ran in another environment") {
		t.Errorf("report.md counts the left-out results' environments:\n%s", md)
	}

	out = t.TempDir()
	if stderr, _, err = runReport(t, "--from", dir, "--out", out, "--workload", "quick"); err != nil {
		t.Fatalf("report --workload quick: %v\n%s", err, stderr)
	}
	md = readFile(t, filepath.Join(out, "report.md"))
	for _, want := range []string{
		"Quick workloads: the harness at work",
		"Left out: 2 results of the standard workload (havlak1, havlak6), whose timings do not compare with the quick workload's; --workload standard reports them instead.",
		"**Havlak loop finding**\n\nQuick workload: 3 trees of 50 loops.\n\n",
		"**Word count**\n\nQuick workload: a 1 MB text.\n\n",
		"**HTTP router under load**\n\nQuick workload: 8 connections, one 2 s round.\n\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("--workload quick: report.md lacks %q:\n%s", want, md)
		}
	}
	page = readFile(t, filepath.Join(out, "index.html"))
	if !strings.Contains(page, "<h2>HTTP router under load</h2>\n<p class=\"note workload\">Quick workload: 8 connections, one 2 s round.</p>") {
		t.Errorf("--workload quick: index.html does not caption the servers' table:\n%s", page)
	}

	// A workload without results, or none of that name, is bad usage.
	_, status, err := runReport(t, "--from", fixtures, "--out", t.TempDir(), "--workload", "standard")
	if status != 2 || !strings.Contains(fmt.Sprint(err), "no results of the standard workload in "+fixtures+": Left out: 7 results of the quick workload") {
		t.Errorf("--workload standard without standard results: exit status %d: %v", status, err)
	}
	if _, status, err := runReport(t, "--from", fixtures, "--out", t.TempDir(), "--workload", "full"); status != 2 || !strings.Contains(fmt.Sprint(err), "--workload=full") {
		t.Errorf("--workload full: exit status %d: %v", status, err)
	}
}

// The baseline is read for the report's workload: quick results are
// compared with the baseline's quick results, even when it has standard
// ones (which a baseline read on its own would show).
func TestBaselineOfTheSameWorkload(t *testing.T) {
	dir := standardCopies(t, "havlak6")
	out := t.TempDir()
	stderr, status, err := runReport(t, "--from", dir, "--baseline", dir, "--workload", "quick", "--out", out)
	if err != nil || status != 0 {
		t.Fatalf("exit status %d: %v\n%s", status, err, stderr)
	}
	table := readFile(t, filepath.Join(out, "table.md"))
	if strings.Contains(table, "not in the baseline") || !regexp.MustCompile(`\| havlak6 \| .* \| time ~ \(\+0\.0%`).MatchString(table) {
		t.Errorf("the quick results are not compared with the baseline's quick ones:\n%s", table)
	}
}

// A server's regression that a commit accepts does not fail the report,
// as a program's does not: the lab's one comparison applies acceptances
// to every kind of benchmark.
func TestAcceptedServerRegression(t *testing.T) {
	base, change := t.TempDir(), t.TempDir()
	unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(base, "router_mutex"))
	unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(change, "router_mutex"))
	editResult(t, filepath.Join(change, "router_mutex"), func(doc map[string]any) {
		// A twentieth of the throughput: beyond any noise.
		for _, r := range doc["server"].(map[string]any)["rounds"].([]any) {
			r := r.(map[string]any)
			r["throughput"] = r["throughput"].(float64) / 20
		}
	})
	out := t.TempDir()
	stderr, status, _ := runReport(t, "--from", change, "--baseline", base, "--out", out)
	if status != 1 || !strings.Contains(stderr, "report: router_mutex regressed: REGRESSED: throughput") {
		t.Fatalf("a twentieth of the throughput: exit status %d\n%s", status, stderr)
	}
	stderr, status, _ = runReport(t, "--from", change, "--baseline", base, "--out", out,
		"--accept", "router_mutex:throughput:a global lock, for correctness")
	if status != 0 || strings.Contains(stderr, "regressed") {
		t.Fatalf("the same, accepted: exit status %d\n%s", status, stderr)
	}
	sum, err := summary.Read(filepath.Join(out, summary.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if b := sum.Benchmarks[0]; b.Name != "router_mutex" || b.Fails() || len(b.Accepted) != 1 || b.Outcome != verdict.Regressed {
		t.Errorf("summary.json: %+v", b)
	}
}
