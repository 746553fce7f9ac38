package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
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

func runReport(t *testing.T, args ...string) (stderr string, regressed bool, err error) {
	t.Helper()
	var b bytes.Buffer
	regressed, err = run(args, &b)
	return b.String(), regressed, err
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
	var x struct{ Runs []Run }
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, xtimeFile))), &x); err != nil {
		t.Fatal(err)
	}
	var v []float64
	for _, r := range x.Runs {
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
	stderr, regressed, err := runReport(t, "--from", fixtures, "--out", out)
	if err != nil || regressed {
		t.Fatalf("report: %v, regressed %v\n%s", err, regressed, stderr)
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
		"**Word count**", "speed-up over wordcount3 |", "| wc_w | C (GNU coreutils) | ",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table.md lacks %q:\n%s", want, table)
		}
	}
	if !strings.Contains(page, `id="chart-time-word-count"`) {
		t.Error("index.html lacks the word count charts")
	}
	if !strings.Contains(page, `id="chart-time"`) || !strings.Contains(page, `id="chart-rss"`) {
		t.Error("index.html lacks the charts")
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) ||
		regexp.MustCompile(`(src|href)="https?:`).MatchString(page) {
		t.Error("index.html fetches something from the network")
	}
}

// A synthetic profile: main calls a (3 samples) and b (1), a calls c (2).
func syntheticProfile() *profile.Profile {
	fn := map[string]*profile.Function{}
	loc := map[string]*profile.Location{}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	for i, name := range []string{"main", "a", "b", "c"} {
		fn[name] = &profile.Function{ID: uint64(i + 1), Name: name}
		loc[name] = &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn[name]}}}
		p.Function = append(p.Function, fn[name])
		p.Location = append(p.Location, loc[name])
	}
	add := func(n int64, frames ...string) {
		var locs []*profile.Location
		for i := len(frames) - 1; i >= 0; i-- { // leaf first
			locs = append(locs, loc[frames[i]])
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 10_000_000}})
	}
	add(1, "main", "a")
	add(2, "main", "a", "c")
	add(1, "main", "b")
	return p
}

func TestTopFunctions(t *testing.T) {
	flat, cum := TopFunctions(syntheticProfile(), 3)
	want := func(got []FuncStat, names []string, fractions []float64) {
		t.Helper()
		if len(got) != len(names) {
			t.Fatalf("got %v, want %v", got, names)
		}
		for i := range got {
			if got[i].Name != names[i] || got[i].Fraction != fractions[i] {
				t.Errorf("#%d: %s %.2f, want %s %.2f", i, got[i].Name, got[i].Fraction, names[i], fractions[i])
			}
		}
	}
	want(flat, []string{"c", "a", "b"}, []float64{0.5, 0.25, 0.25})
	want(cum, []string{"main", "a", "c"}, []float64{1, 0.75, 0.5})
}

func TestFlameGraph(t *testing.T) {
	svg := string(FlameGraph(syntheticProfile(), "synthetic"))
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	// Each frame is as wide as its share of the 1200px: main all of it,
	// a three quarters, c and b half and a quarter.
	for name, width := range map[string]string{"main": "1199.50", "a": "899.50", "c": "599.50", "b": "299.50"} {
		re := regexp.MustCompile(`<title>` + name + ` \([0-9.]+%\)</title><rect x="[0-9.]+" y="[0-9]+" width="` + width + `"`)
		if !re.MatchString(svg) {
			t.Errorf("no %s frame %s wide in\n%s", name, width, svg)
		}
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
	os.WriteFile(filepath.Join(corrupt, "benchmark.json"), []byte(`{"name": "corrupt", "kind": "go", "workload": "quick"}`), 0o644)
	os.WriteFile(filepath.Join(corrupt, cpuProfile), []byte("not a profile"), 0o644)
	os.Remove(filepath.Join(corrupt, heapProfile))

	out := t.TempDir()
	stderr, _, err := runReport(t, "--from", dir, "--out", out)
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	for _, want := range []string{
		truncated + ": zip: not a valid zip file",
		filepath.Join(corrupt, cpuProfile) + ": parsing profile: unrecognized profile format",
		filepath.Join(corrupt, heapProfile) + ": missing",
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
	_, ok := err.(usageError)
	return ok
}

// scaleRuns copies the fixtures to a new directory, unpacked, with the real
// times and max RSS of stage multiplied.
func scaleRuns(t *testing.T, stage string, realFactor, rssFactor float64) string {
	dir := t.TempDir()
	for _, name := range fixtureStages(t) {
		unzipTo(t, filepath.Join(fixtures, name+"_quick_test", "outputs.zip"), filepath.Join(dir, name))
	}
	path := filepath.Join(dir, stage, xtimeFile)
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatal(err)
	}
	for _, run := range doc["runs"].([]any) {
		r := run.(map[string]any)
		r["real_seconds"] = r["real_seconds"].(float64) * realFactor
		r["max_rss_kib"] = math.Round(r["max_rss_kib"].(float64) * rssFactor)
	}
	data, _ := json.Marshal(doc)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
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
			stderr, regressed, err := runReport(t, "--from", scaleRuns(t, stage, c.real, c.rss), "--baseline", fixtures, "--out", out)
			if err != nil || regressed != c.wantRegressed {
				t.Fatalf("regressed %v, %v; want %v\n%s", regressed, err, c.wantRegressed, stderr)
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
	path := filepath.Join(newer, "havlak6", xtimeFile)
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatal(err)
	}
	for _, run := range doc["runs"].([]any) {
		r := run.(map[string]any)
		r["start"] = "2999-01-01T00:00:00Z"
		r["real_seconds"] = 42.0
	}
	data, _ := json.Marshal(doc)
	os.WriteFile(path, data, 0o644)
	for _, roots := range [][]string{{older, newer}, {newer, older}} {
		results, err := FindResults(roots...)
		if err != nil || len(results) != 1 || results[0].Runs[0].RealSeconds != 42 {
			t.Errorf("FindResults%v: %d results, %v; want only the newer one", roots, len(results), err)
		}
	}
}
