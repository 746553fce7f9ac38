package answer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An answer reads back as written, but what lives in memory only; one
// without its first bad commit, or with a field no answer has, is refused.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bisect-havlak6.json")
	a := &Answer{Benchmark: "havlak6", Figure: "instructions", FirstBad: Measurement{Commit: "c1", Median: 2}, Saved: 1, GoProgram: true}
	if err := Write(path, a); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil || got.FirstBad.Commit != "c1" || got.Saved != 1 || got.GoProgram {
		t.Errorf("read back %+v, %v", got, err)
	}
	if err := Write(path, &Answer{Benchmark: "havlak6"}); err == nil || !strings.Contains(err.Error(), "no first_bad commit") {
		t.Errorf("an answer without its first bad commit written: %v", err)
	}
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), `"saved"`, `"skipped": 0, "saved"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), `unknown field "skipped"`) || !strings.Contains(err.Error(), path) {
		t.Errorf("an unknown field: %v, want it refused, naming the file", err)
	}
}
