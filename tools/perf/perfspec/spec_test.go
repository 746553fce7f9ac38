package perfspec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// Specs as perf_spec writes them, one of each kind.
const (
	programSpec = `{
  "schema_version": 2,
  "benchmark": {"name": "havlak6", "kind": "program", "study": "Havlak loop finding", "stage": 6,
    "language": "Go", "counterpart": "havlak6cc", "reference": "havlak1",
    "workload": {"name": "quick", "description": "3 trees of 50 loops"}, "repetitions": 5},
  "build": {"compilation_mode": "fastbuild", "config": "quick"},
  "status": "tools/perf/private/build_status.txt",
  "binary": "go/havlak6/havlak6_/havlak6",
  "pprof": "tools/pprof",
  "args": ["-iterations=10"],
  "expect": "^# of loops: 11400 ",
  "program": {
    "xtime": "tools/xtime/xtime_/xtime", "profiler": "go", "profiles": ["cpu", "heap"],
    "heap": "flag", "heap_env": "", "heap_args": [], "trace": false,
    "counted": {"args": ["-iterations=10"], "expect": "^# of loops", "repetitions": 3},
    "pin_cpu": "last", "disable_aslr": false
  }
}`
	goTestSpec = `{
  "schema_version": 2,
  "benchmark": {"name": "explodepath", "kind": "go_test", "study": "explodePath", "stage": 0,
    "language": "Go", "workload": {"name": "quick"}, "repetitions": 6},
  "build": {"compilation_mode": "fastbuild", "config": "quick"},
  "status": "s", "binary": "go/explodepath/explodepath_test", "pprof": "tools/pprof",
  "args": [], "expect": "",
  "go_test": {"bench": ".", "count": 6, "benchtime": "100x"}
}`
	serverSpec = `{
  "schema_version": 2,
  "benchmark": {"name": "router_mutex", "kind": "server", "study": "HTTP router under load", "stage": 3,
    "language": "Go", "workload": {"name": "quick"}, "repetitions": 1},
  "build": {"compilation_mode": "fastbuild", "config": "quick"},
  "status": "s", "binary": "go/router/cmd/router3/router3", "pprof": "tools/pprof",
  "args": [], "expect": "^GET /",
  "server": {"connections": 8, "rate": 0, "warmup": "500ms", "duration": "2s", "profile": "1s",
    "trace": "500ms", "targets": "go/router/testdata/load.txt", "ready": "/healthz",
    "block_profile_rate": 10000, "mutex_profile_fraction": 10}
}`
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		spec, kind string
	}{
		{programSpec, result.KindProgram},
		{goTestSpec, result.KindGoTest},
		{serverSpec, result.KindServer},
	} {
		s, err := Decode("spec.json", []byte(tc.spec))
		if err != nil {
			t.Errorf("%s: %v", tc.kind, err)
			continue
		}
		if got := s.sections(); len(got) != 1 || got[0] != tc.kind || s.Benchmark.Kind != tc.kind {
			t.Errorf("%s: sections %q, kind %q", tc.kind, got, s.Benchmark.Kind)
		}
	}
	s, _ := Decode("spec.json", []byte(programSpec))
	if p := s.Program; p == nil || p.Profiler != "go" || !p.Wants("heap") || p.Counted == nil || p.Counted.Repetitions != 3 || s.Args[0] != "-iterations=10" {
		t.Errorf("program spec decoded as %+v, program %+v", s, p)
	}
}

// edit returns spec with change applied to its JSON object.
func edit(t *testing.T, spec string, change func(map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(spec), &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func section(m map[string]any, name string) map[string]any { return m[name].(map[string]any) }

// A spec of no kind, of two, of a kind its section is not, or with a field
// the format does not have is refused, with the file and the field named.
func TestDecodeRefuses(t *testing.T) {
	var other map[string]any
	json.Unmarshal([]byte(serverSpec), &other)
	server := other["server"]
	for _, tc := range []struct {
		name   string
		data   []byte
		errors string
	}{
		{"no section", edit(t, programSpec, func(m map[string]any) { delete(m, "program") }),
			`bad.json: sections []: want exactly one of ["program" "go_test" "server"]`},
		{"two sections", edit(t, programSpec, func(m map[string]any) { m["server"] = server }),
			`bad.json: sections ["program" "server"]: want exactly one of ["program" "go_test" "server"]`},
		{"kind of another section", edit(t, serverSpec, func(m map[string]any) { section(m, "benchmark")["kind"] = "program" }),
			`bad.json: benchmark.kind "program" with a "server" section: want the section of its kind`},
		{"a server's field in a program's section", edit(t, programSpec, func(m map[string]any) { section(m, "program")["connections"] = 8 }),
			`bad.json: unknown field "connections": not in the spec's format (package perfspec)`},
		{"an old flat spec's field", edit(t, programSpec, func(m map[string]any) { m["profiler"] = "go" }),
			`bad.json: unknown field "profiler": not in the spec's format (package perfspec)`},
		{"a bad field of a section", edit(t, goTestSpec, func(m map[string]any) { section(m, "go_test")["count"] = 0 }),
			`bad.json: go_test.bench ".", go_test.count 0: want a pattern and at least 1`},
		{"two objects", []byte(goTestSpec + "\n{}"), `bad.json: invalid character '{' after top-level value`},
		{"a later version", edit(t, goTestSpec, func(m map[string]any) { m["schema_version"] = 3 }),
			`bad.json: schema_version 3: want 2, or none (the flat format of version 1)`},
		{"a version 1 spec of no kind", edit(t, goTestSpec, func(m map[string]any) {
			delete(m, "schema_version")
			section(m, "benchmark")["kind"] = "library"
		}), `bad.json (schema version 1): sections []: want exactly one of ["program" "go_test" "server"]`},
	} {
		_, err := Decode("bad.json", tc.data)
		if err == nil || err.Error() != tc.errors {
			t.Errorf("%s: Decode = %v; want %s", tc.name, err, tc.errors)
		}
	}
}

// Specs that perf_spec wrote before the sections (testdata/v1_*, copied
// from a build of commit a06cb46) decode as the sections of their kinds:
// bisect reads the specs of older commits' builds.
func TestDecodeV1(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(*Spec) bool
	}{
		{"v1_havlak6_quick_test_spec.json", func(s *Spec) bool {
			p := s.Program
			return p != nil && s.GoTest == nil && s.Server == nil && p.Profiler == "go" && p.Heap == HeapFlag &&
				p.Counted != nil && p.Counted.Repetitions == 3 && p.XTime != "" && s.Expect != ""
		}},
		{"v1_explodepath_quick_test_spec.json", func(s *Spec) bool {
			return s.GoTest != nil && s.Program == nil && s.Server == nil && *s.GoTest == GoTest{Bench: ".", Count: 6, Benchtime: "100x"}
		}},
		{"v1_router_mutex_quick_test_spec.json", func(s *Spec) bool {
			l := s.Server
			return l != nil && s.Program == nil && s.GoTest == nil && l.Connections == 8 && l.Ready == "/healthz" && l.Targets != ""
		}},
	} {
		s, err := Read(filepath.Join("testdata", tc.file))
		if err != nil || s.SchemaVersion != 1 || !tc.check(s) {
			t.Errorf("%s: Read = %+v, %v", tc.file, s, err)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "havlak6_quick_test_spec.json")
	os.WriteFile(path, []byte(programSpec), 0o666)
	if s, err := Read(path); err != nil || s.Benchmark.Name != "havlak6" {
		t.Errorf("Read = %+v, %v", s, err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat(" ", maxSize+1)), 0o666)
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), big) {
		t.Errorf("Read of a huge file = %v, want an error naming it", err)
	}
}

func TestProgramCheck(t *testing.T) {
	good := Program{XTime: "x", Profiler: "go", Profiles: []string{"heap"}, Heap: "env", HeapEnv: "B_HEAP"}
	if err := good.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	for name, change := range map[string]func(*Program){
		"heap mode env without a variable": func(p *Program) { p.HeapEnv = "" },
		"profiler rust":                    func(p *Program) { p.Profiler = "rust" },
		"no xtime":                         func(p *Program) { p.XTime = "" },
		"profile mutex":                    func(p *Program) { p.Profiles = []string{"mutex"} },
		"pin_cpu all":                      func(p *Program) { p.PinCPU = "all" },
		"no counted runs":                  func(p *Program) { p.Counted = &Counted{} },
	} {
		bad := good
		change(&bad)
		if err := bad.Check(); err == nil || !strings.HasPrefix(err.Error(), "program.") {
			t.Errorf("%s: check = %v, want an error naming a field of program", name, err)
		}
	}
}

func TestServerCheck(t *testing.T) {
	good := Server{Connections: 8, Warmup: "1s", Duration: "2s", Profile: "1s", Trace: "500ms",
		Targets: "load.txt", Ready: "/healthz"}
	if err := good.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	for name, change := range map[string]func(*Server){
		"no connections": func(s *Server) { s.Connections = 0 },
		"bad duration":   func(s *Server) { s.Duration = "5" },
		"zero trace":     func(s *Server) { s.Trace = "0s" },
		"no targets":     func(s *Server) { s.Targets = "" },
	} {
		bad := good
		change(&bad)
		if err := bad.Check(); err == nil || !strings.HasPrefix(err.Error(), "server.") {
			t.Errorf("%s: check = %v, want an error naming a field of server", name, err)
		}
	}
	spec := Spec{Common: Common{Benchmark: result.Benchmark{Name: "r", Kind: result.KindServer}, Binary: "r", PProf: "p"}, Server: &good}
	if err := spec.Check(); err == nil || err.Error() != "benchmark.repetitions 0: want at least 1" {
		t.Errorf("a server spec of no rounds: check = %v", err)
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
