package detection

import (
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	r := &Record{Version: Version, Checkout: "abc+", Started: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC), Cases: []Case{
		{Name: "extra-work-cc-0.5", Kind: "extra-work", Language: "C++", Size: "0.5%", Benchmark: "havlak7cc", Figure: "instructions", CaughtBy: []string{"instructions", "estimated_cycles"}},
		{Name: "locality-go-1", Kind: "locality", Language: "Go", Size: "1%", Benchmark: "havlak5", Figure: "d1_misses", CaughtBy: []string{}},
	}}
	data, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cases) != 2 || !got.Cases[0].Caught() || got.Cases[1].Caught() || got.Checkout != "abc+" {
		t.Errorf("read back %+v", got)
	}
	if v, err := got.Cases[0].SizePercent(); err != nil || v != 0.5 {
		t.Errorf("size %v, %v; want 0.5", v, err)
	}
}

func TestParseRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"another version": `{"version": 2, "cases": []}`,
		"unknown field":   `{"version": 1, "cases": [], "extra": 1}`,
		"no benchmark":    `{"version": 1, "cases": [{"name": "a", "kind": "k", "language": "Go", "size": "1%", "figure": "f"}]}`,
		"bad size":        `{"version": 1, "cases": [{"name": "a", "kind": "k", "language": "Go", "size": "big", "benchmark": "b", "figure": "f"}]}`,
		"twice":           `{"version": 1, "cases": [{"name": "a", "kind": "k", "language": "Go", "size": "1%", "benchmark": "b", "figure": "f"}, {"name": "a", "kind": "k", "language": "Go", "size": "2%", "benchmark": "b", "figure": "f"}]}`,
		"trailing":        `{"version": 1, "cases": []} {}`,
		"too big":         `{"version": 1, "checkout": "` + strings.Repeat("x", MaxBytes) + `", "cases": []}`,
	} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: Parse accepted it", name)
		}
	}
}

func TestEmbedded(t *testing.T) {
	if _, err := Embedded(); err != nil {
		t.Fatalf("the checked-in record does not read: %v", err)
	}
}
