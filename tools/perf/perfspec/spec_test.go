package perfspec

import (
	"testing"

	"havlak-lab/tools/result"
)

func TestSpecCheck(t *testing.T) {
	good := Spec{
		Benchmark: result.Benchmark{Name: "b", Kind: result.KindProgram, Repetitions: 1},
		Binary:    "b", XTime: "x", PProf: "p", Profiler: "go", Profiles: []string{"heap"}, Heap: "env", HeapEnv: "B_HEAP",
	}
	if err := good.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	bad := good
	bad.HeapEnv = ""
	if err := bad.Check(); err == nil {
		t.Error("check passed heap mode env without a variable")
	}
	bad = good
	bad.Profiler = "rust"
	if err := bad.Check(); err == nil {
		t.Error("check passed profiler rust")
	}
}

func TestServerSpecCheck(t *testing.T) {
	good := Spec{
		Benchmark: result.Benchmark{Name: "r", Kind: result.KindServer, Repetitions: 1},
		Binary:    "r", PProf: "p",
		Server: ServerLoad{Connections: 8, Warmup: "1s", Duration: "2s", Profile: "1s", Trace: "500ms",
			Targets: "load.txt", Ready: "/healthz"},
	}
	if err := good.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	for name, change := range map[string]func(*Spec){
		"no connections": func(s *Spec) { s.Server.Connections = 0 },
		"bad duration":   func(s *Spec) { s.Server.Duration = "5" },
		"zero trace":     func(s *Spec) { s.Server.Trace = "0s" },
		"no targets":     func(s *Spec) { s.Server.Targets = "" },
		"no rounds":      func(s *Spec) { s.Benchmark.Repetitions = 0 },
	} {
		bad := good
		change(&bad)
		if err := bad.Check(); err == nil {
			t.Errorf("%s: check passed", name)
		}
	}
}

func TestParsePinCPU(t *testing.T) {
	for in, want := range map[string]int{"": -1, "last": -1, "none": -2, "3": 3} {
		if got, err := ParsePinCPU(in); err != nil || got != want {
			t.Errorf("ParsePinCPU(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1", "x", "1,2"} {
		if _, err := ParsePinCPU(bad); err == nil {
			t.Errorf("ParsePinCPU(%q): no error", bad)
		}
	}
}
