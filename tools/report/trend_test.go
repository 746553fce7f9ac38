package main

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/trends"
)

// stepNights is the length of stepTrends' history, and stepAt the index of
// the first night after its step.
const (
	stepNights = 30
	stepAt     = 20
)

// stepTrends is a history of 30 nights: havlak6's real time and
// instructions step up by 3% at night 20 (a change point each), while
// havlak6cc stays flat. Each night has 5 noisy runs and a link to its
// profiles.
func stepTrends() trends.File {
	rng := rand.New(rand.NewSource(1))
	start := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	series := func(benchmark, metric, unit string, level, noise, step float64) trends.Series {
		s := trends.Series{Benchmark: benchmark, Figure: metric, Unit: unit}
		for i := range stepNights {
			mean := level
			if i >= stepAt {
				mean *= 1 + step
			}
			var values []float64
			for range 5 {
				values = append(values, mean*(1+noise*(2*rng.Float64()-1)))
			}
			day := start.AddDate(0, 0, i)
			s.Points = append(s.Points, trends.Point{
				Commit:   stepCommit(i),
				Time:     day,
				Values:   values,
				Profiles: fmt.Sprintf("nights/%s/%s/", day.Format("2006-01-02"), benchmark),
			})
		}
		if step != 0 {
			s.ChangePoints = []trends.Change{{Index: stepAt, From: stepCommit(stepAt - 1), To: stepCommit(stepAt), Change: step, Regression: true}}
		}
		return s
	}
	return trends.File{Series: []trends.Series{
		series("havlak6", "real", "s", 2.3, 0.01, 0.03),
		series("havlak6", "instructions", "instructions", 2.95e9, 0.001, 0.03),
		series("havlak6cc", "real", "s", 2.2, 0.01, 0),
	}}
}

// stepCommit is the commit of stepTrends' night i.
func stepCommit(i int) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprint("night ", i))))
}

// writeTrends writes a trends file into a temporary directory.
func writeTrends(t *testing.T, file any) string {
	t.Helper()
	data, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trends.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadTrends(t *testing.T) {
	want := stepTrends()
	got, err := trends.Read(writeTrends(t, want))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Series) || len(got[0].Points) != stepNights || got[0].ChangePoints[0] != want.Series[0].ChangePoints[0] {
		t.Fatalf("read %+v", got)
	}
	if !got[1].Points[3].Time.Equal(want.Series[1].Points[3].Time) || got[1].Points[3].Values[4] != want.Series[1].Points[3].Values[4] {
		t.Errorf("point 3: read %+v, wrote %+v", got[1].Points[3], want.Series[1].Points[3])
	}
}

// Every kind of bad input is refused with the file, and the series and
// field at fault.
func TestReadTrendsErrors(t *testing.T) {
	edit := func(change func(f *trends.File)) trends.File {
		f := stepTrends()
		change(&f)
		return f
	}
	for _, tc := range []struct {
		name string
		file any // written as JSON, or as it is when a string
		want string
	}{
		{"empty", "", "empty"},
		{"syntax", "{\"series\": [\n  {\"benchmark\": \"havlak6\",,}]}", "line 2: invalid character ','"},
		{"truncated", `{"series": [{"benchmark": "havlak6"`, "truncated"},
		{"two values", `{"series": []} {}`, "more than one JSON value"},
		{"unknown field", `{"series": [{"benchmark": "havlak6", "metrc": "real"}]}`, `unknown field "metrc"`},
		{"wrong type", "{\"series\": [\n{\"benchmark\": \"havlak6\", \"points\": [{\"values\": [\"1.5\"]}]}]}", `line 2: "series.0.points.0.values.0": a JSON string, want float64`},
		{"bad time", `{"series": [{"benchmark": "havlak6", "points": [{"time": "last night"}]}]}`, `"last night"`},
		{"no series", `{"series": []}`, `"series": no series`},
		{"no benchmark", edit(func(f *trends.File) { f.Series[1].Benchmark = "" }), `series[1] ( instructions): "benchmark": missing`},
		{"no metric", edit(func(f *trends.File) { f.Series[2].Figure = "" }), `series[2] (havlak6cc ): "metric": missing`},
		{"no points", edit(func(f *trends.File) { f.Series[2].Points = nil }), `series[2] (havlak6cc real): "points": no points`},
		{"no commit", edit(func(f *trends.File) { f.Series[0].Points[4].Commit = "" }), `series[0] (havlak6 real): "points"[4]."commit": missing`},
		{"no time", edit(func(f *trends.File) { f.Series[0].Points[4].Time = time.Time{} }), `"points"[4] (` + stepCommit(4) + `)."time": missing`},
		{"no values", edit(func(f *trends.File) { f.Series[0].Points[5].Values = nil }), `series[0] (havlak6 real): "points"[5] (` + stepCommit(5) + `)."values": no values`},
		{"script link", edit(func(f *trends.File) { f.Series[0].Points[5].Profiles = "javascript:alert(1)" }), `"points"[5] (` + stepCommit(5) + `)."profiles": "javascript:alert(1)": want a path relative to the page or an http(s) URL`},
		{"change at 0", edit(func(f *trends.File) { f.Series[0].ChangePoints[0].Index = 0 }), `series[0] (havlak6 real): "change_points"[0]."index": 0: a change lies between two points, so it must be 1 to 29`},
		{"change past the end", edit(func(f *trends.File) { f.Series[1].ChangePoints[0].Index = stepNights }), `series[1] (havlak6 instructions): "change_points"[0]."index": 30`},
		{"change without from", edit(func(f *trends.File) { f.Series[1].ChangePoints[0].From = "" }), `"change_points"[0]."from": missing`},
		{"change without to", edit(func(f *trends.File) { f.Series[1].ChangePoints[0].To = "" }), `"change_points"[0]."to": missing`},
		{"twice", edit(func(f *trends.File) { f.Series[2].Benchmark = "havlak6" }), `series[2] (havlak6 real): the same benchmark, metric and unit as series[0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trends.json")
			if s, ok := tc.file.(string); ok {
				if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				path = writeTrends(t, tc.file)
			}
			_, err := trends.Read(path)
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("trends.Read: %v, want %q after the file's name", err, tc.want)
			}

			// The report refuses it as bad usage, naming the flag.
			_, status, err := runReport(t, "--from", fixtures, "--out", t.TempDir(), "--trends", path)
			if status != 2 || !strings.HasPrefix(fmt.Sprint(err), "--trends: "+path+": ") || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Errorf("report exited %d: %v", status, err)
			}
		})
	}
	if _, err := trends.Read(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing file: %v", err)
	}
}

// The page carries uPlot and the data inline, and nothing of it without
// trends.
func TestTrendSection(t *testing.T) {
	out := t.TempDir()
	if stderr, _, err := runReport(t, "--from", fixtures, "--out", out); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	if page := readFile(t, filepath.Join(out, "index.html")); strings.Contains(page, "uPlot") || strings.Contains(page, `<section id="trends">`) {
		t.Errorf("a page without --trends has trend charts")
	}

	trends := writeTrends(t, stepTrends())
	if stderr, status, err := runReport(t, "--from", fixtures, "--out", out, "--trends", trends); err != nil {
		t.Fatalf("report exited %d: %v\n%s", status, err, stderr)
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	for _, want := range []string{
		`<section id="trends">`,
		`<figure class="trend" id="trend-0" data-benchmark="havlak6" data-metric="real">`,
		`<figure class="trend" id="trend-2" data-benchmark="havlak6cc" data-metric="real">`,
		"<li>&#43;3.0% (regression) between " + stepCommit(stepAt - 1)[:12] + " and " + stepCommit(stepAt)[:12] + "</li>",
		"The MIT License", // uPlot's licence goes with it
		"var uPlot=",
		`"links":["nights/2026-11-01/havlak6/"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Offline: nothing is fetched from elsewhere.
	for _, fetch := range []string{"<script src", "<link ", "@import"} {
		if strings.Contains(page, fetch) {
			t.Errorf("the page fetches something: %q", fetch)
		}
	}
}
