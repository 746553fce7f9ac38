package trends

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWriteReadsBack(t *testing.T) {
	at := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	want := []Series{{
		Benchmark: "havlak6", Figure: "own_instructions", Unit: "instructions",
		Points: []Point{
			{Commit: "c1", Time: at, Values: []float64{100, 101}, Profiles: "nights/1/havlak6/"},
			{Commit: "c2", Time: at.Add(24 * time.Hour), Values: []float64{103}},
		},
		ChangePoints: []Change{{Index: 1, From: "c1", To: "c2", Change: 0.025, Regression: true}},
	}}
	path := filepath.Join(t.TempDir(), "trends.json")
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

// A series the reader would refuse is not written, and nothing is left.
func TestWriteRefusesWhatReadRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trends.json")
	err := Write(path, []Series{{Benchmark: "havlak6", Figure: "real"}})
	if err == nil || !strings.Contains(err.Error(), "no points") {
		t.Fatalf("Write: %v, want an error about no points", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists after a refused write (%v)", path, err)
	}
}
