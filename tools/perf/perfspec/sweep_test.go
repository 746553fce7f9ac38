package perfspec

import (
	"strings"
	"testing"
)

// withSweep is programSpec with a sweep.
func withSweep(sweep string) string {
	return strings.Replace(programSpec, `"pin_cpu": "last"`, `"sweep": `+sweep+`, "pin_cpu": "last"`, 1)
}

func TestDecodeSweep(t *testing.T) {
	s, err := Decode("spec.json", []byte(withSweep(`{"n": "loops found", "points": [
		{"n": 3800, "args": ["-trees=1"], "expect": "^# of loops: 3800 "},
		{"n": 7600, "args": ["-trees=2"], "expect": "^# of loops: 7600 "},
		{"n": 15200, "args": ["-trees=4"], "expect": ""}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	if sw := s.Program.Sweep; sw == nil || sw.N != "loops found" || len(sw.Points) != 3 || sw.Points[1].Args[0] != "-trees=2" {
		t.Errorf("sweep: %+v", s.Program.Sweep)
	}
	for sweep, want := range map[string]string{
		`{"n": "loops", "points": [{"n": 1, "args": ["a"]}, {"n": 2, "args": ["b"]}]}`:                          "2 sizes, want at least 3",
		`{"n": "loops", "points": [{"n": 1, "args": ["a"]}, {"n": 3, "args": ["b"]}, {"n": 2, "args": ["c"]}]}`: "increasing",
		`{"n": "loops", "points": [{"n": 1, "args": ["a"]}, {"n": 2, "args": []}, {"n": 3, "args": ["c"]}]}`:    "points[1].args: empty",
		`{"n": "", "points": []}`:                 "sweep.n: empty",
		`{"n": "loops", "points": [], "size": 3}`: "unknown field",
	} {
		if _, err := Decode("spec.json", []byte(withSweep(sweep))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sweep %s: %v, want %q", sweep, err, want)
		}
	}
}
