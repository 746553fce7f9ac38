package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/changepoint"
)

func TestReadCSV(t *testing.T) {
	s, err := readCSV([]byte("value,id,time,note\n169027012,c1,2026-11-20T02:00:00Z,x\n169027100,c2,2026-11-21T02:00:00Z,y\n"),
		"dir/havlak6.csv", changepoint.HigherIsBetter)
	if err != nil {
		t.Fatal(err)
	}
	want := []changepoint.Point{
		{ID: "c1", Time: time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC), Value: 169027012},
		{ID: "c2", Time: time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC), Value: 169027100},
	}
	if s.Name != "havlak6" || s.Direction != changepoint.HigherIsBetter || len(s.Points) != 2 ||
		s.Points[0] != want[0] || s.Points[1] != want[1] {
		t.Errorf("readCSV: %+v, want havlak6, higher, %+v", s, want)
	}

	for _, c := range []struct{ csv, want string }{
		{"", "h.csv: no header line"},
		{"id,value\n", `h.csv:1: no column "time"`},
		{"id,time,value\n", "h.csv: no points"},
		{"id,time,value\nc1,2026-11-20T02:00:00Z,1\nc2,yesterday,2\n", `h.csv:3: time "yesterday": want RFC 3339`},
		{"id,time,value\nc1,2026-11-20T02:00:00Z,fast\n", `h.csv:2: value "fast" is not a number`},
		{"id,time,value\nc1,2026-11-20T02:00:00Z\n", "h.csv:2: no value (2 fields)"},
	} {
		if _, err := readCSV([]byte(c.csv), "h.csv", changepoint.LowerIsBetter); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("readCSV(%q): error %v, want one saying %q", c.csv, err, c.want)
		}
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "h.json")
	os.WriteFile(file, []byte(`[{"name": "havlak6 own_instructions", "direction": "lower",
		"points": [{"id": "c1", "time": "2026-11-20T02:00:00Z", "value": 169027012}]}]`), 0o644)
	series, err := readFile(file, "h.json", changepoint.HigherIsBetter)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 || series[0].Name != "havlak6 own_instructions" || series[0].Direction != changepoint.LowerIsBetter ||
		len(series[0].Points) != 1 || series[0].Points[0].Value != 169027012 {
		t.Errorf("readFile: %+v", series)
	}
	os.WriteFile(file, []byte(`[{"name": "x", "direction": "sideways"}]`), 0o644)
	if _, err := readFile(file, "h.json", changepoint.LowerIsBetter); err == nil || !strings.Contains(err.Error(), `h.json: direction "sideways"`) {
		t.Errorf("readFile of a bad direction: error %v", err)
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"h.csv"}, "-otava is required"},
		{[]string{"-otava", "/x"}, "no input files"},
		{[]string{"-otava", "/x", "-direction", "up", "h.csv"}, `-direction: direction "up"`},
		{[]string{"-otava", "/x", "/no/such/h.csv"}, "/no/such/h.csv"},
	} {
		err := run(c.args, io.Discard, io.Discard)
		if cli.Status(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q): %v (status %d), want status 2 saying %q", c.args, err, cli.Status(err), c.want)
		}
	}
}
