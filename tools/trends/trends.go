// Package trends is the format of a trends file: benchmarks' figures over
// commits or nights, with their change points, as the report charts them
// (tools/report --trends) and the nightly job writes them from the results
// history (tools/history, tools/changepoint).
package trends

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"havlak-lab/internal/versionedjson"
)

// A File is a trends file, as JSON:
//
//	{"series": [{
//	  "benchmark": "havlak6", "metric": "real", "unit": "s",
//	  "points": [
//	    {"commit": "4f1c…", "time": "2026-11-01T02:00:00Z",
//	     "values": [2.31, 2.28, 2.35], "profiles": "nights/2026-11-01/havlak6/"},
//	    …],
//	  "change_points": [
//	    {"index": 20, "from": "9a0b…", "to": "c1d2…", "change": 0.031, "regression": true}]
//	}]}
//
// Unknown fields are refused, so that a misspelt one is not silently lost.
type File struct {
	Series []Series `json:"series"`
}

// A Series is one figure of one benchmark over commits or nights.
type Series struct {
	Benchmark string `json:"benchmark"`
	Figure    string `json:"metric"`
	Unit      string `json:"unit,omitempty"` // may be empty for plain counts
	// Points in the order of the history (commit order); the chart spaces
	// them evenly.
	Points       []Point  `json:"points"`
	ChangePoints []Change `json:"change_points,omitempty"`
}

// A Point is one commit's or night's measurement.
type Point struct {
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"`   // when it was measured
	Values []float64 `json:"values"` // one per run; the chart shows their median, min and max
	// Profiles is where that night's profiles are: a URL relative to the
	// page (or an http(s) URL); clicking the point opens it. Optional.
	Profiles string `json:"profiles,omitempty"`
}

// A Change is a change point: the series shifts between
// Points[Index-1] and Points[Index].
type Change struct {
	Index int `json:"index"`
	// From is the last commit before the change and To the first after it
	// (usually Points[Index-1].Commit and Points[Index].Commit): the range
	// that holds the commit that made it.
	From string `json:"from"`
	To   string `json:"to"`
	// Change is the relative change of the level, e.g. 0.031 for 3.1%
	// higher; Regression says whether that is worse for this figure.
	Change     float64 `json:"change"`
	Regression bool    `json:"regression"`
}

// MaxBytes bounds a trends file: a night's charts, a few hundred series
// of a few hundred points, are a few MiB.
const MaxBytes = 256 << 20

// format is a trends file's, through the lab's one codec: it has no
// version field.
var format = versionedjson.Format[File]{Name: "a trends file", MaxBytes: MaxBytes, Check: (*File).check}

// Read reads and checks a trends file; its errors name the file and
// the field at fault.
func Read(path string) ([]Series, error) {
	file, err := format.Read(path)
	if err != nil {
		return nil, err
	}
	return file.Series, nil
}

// Parse reads and checks the JSON of a trends file.
func Parse(data []byte) ([]Series, error) {
	file, err := format.Parse(data)
	if err != nil {
		return nil, err
	}
	return file.Series, nil
}

// check checks the series of a file.
func (file *File) check() error {
	if len(file.Series) == 0 {
		return errors.New(`"series": no series`)
	}
	// A figure is its name and unit (result.FigureKey): a Go benchmark
	// line has one of each unit it reports.
	seen := map[[3]string]int{}
	for i, s := range file.Series {
		if err := s.check(); err != nil {
			return fmt.Errorf("series[%d]%s: %w", i, s.label(), err)
		}
		key := [3]string{s.Benchmark, s.Figure, s.Unit}
		if j, ok := seen[key]; ok {
			return fmt.Errorf("series[%d]%s: the same benchmark, metric and unit as series[%d]", i, s.label(), j)
		}
		seen[key] = i
	}
	return nil
}

// label names a series in errors, as far as it can.
func (s Series) label() string {
	if s.Benchmark == "" && s.Figure == "" {
		return ""
	}
	return fmt.Sprintf(" (%s %s)", s.Benchmark, s.Figure)
}

func (s Series) check() error {
	switch {
	case s.Benchmark == "":
		return errors.New(`"benchmark": missing`)
	case s.Figure == "":
		return errors.New(`"metric": missing`)
	case len(s.Points) == 0:
		return errors.New(`"points": no points`)
	}
	for i, p := range s.Points {
		field := fmt.Sprintf(`"points"[%d]`, i)
		switch {
		case p.Commit == "":
			return fmt.Errorf(`%s."commit": missing`, field)
		case p.Time.IsZero():
			return fmt.Errorf(`%s (%s)."time": missing`, field, p.Commit)
		case len(p.Values) == 0:
			return fmt.Errorf(`%s (%s)."values": no values`, field, p.Commit)
		}
		if p.Profiles != "" {
			u, err := url.Parse(p.Profiles)
			if err != nil {
				return fmt.Errorf(`%s (%s)."profiles": %v`, field, p.Commit, err)
			}
			if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
				return fmt.Errorf(`%s (%s)."profiles": %q: want a path relative to the page or an http(s) URL`, field, p.Commit, p.Profiles)
			}
		}
	}
	for i, c := range s.ChangePoints {
		field := fmt.Sprintf(`"change_points"[%d]`, i)
		switch {
		case c.Index < 1 || c.Index >= len(s.Points):
			return fmt.Errorf(`%s."index": %d: a change lies between two points, so it must be 1 to %d`, field, c.Index, len(s.Points)-1)
		case c.From == "":
			return fmt.Errorf(`%s."from": missing`, field)
		case c.To == "":
			return fmt.Errorf(`%s."to": missing`, field)
		}
	}
	return nil
}

// Write writes series as a trends file at path, whole or not at all.
func Write(path string, series []Series) error {
	return format.Write(path, &File{Series: series})
}
