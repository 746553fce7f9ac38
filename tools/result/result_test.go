package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// example is a valid result of a program benchmark.
func example() *Result {
	return &Result{
		SchemaVersion: SchemaVersion,
		Benchmark: Benchmark{
			Name: "havlak6", Kind: KindProgram, Study: "Havlak loop finding", Stage: 6,
			Language: "Go", Counterpart: "havlak6cc", Reference: "havlak1",
			Workload:    Workload{Name: WorkloadQuick, Description: "3 trees of 50 loops"},
			Repetitions: 2,
		},
		Environment: Environment{
			Machine:    Machine{Hostname: "perf-1", OS: "linux", Arch: "amd64", Cores: 2},
			Toolchains: Toolchains{Go: "go1.27.4", GCC: "gcc 12.2.0", Bazel: "4.2.3"},
			Source:     Source{Commit: "90740fb", Dirty: true},
			Build:      Build{CompilationMode: "opt", Config: ConfigQuick},
			Started:    "2026-11-23T08:00:00Z",
		},
		Timing: &Timing{
			Command: "havlak6",
			Runs: []Run{
				{Start: "2026-11-23T08:00:00Z", Usage: Usage{UserSeconds: 1, RealSeconds: 1.5, MaxRSSKiB: 1000}},
				{Start: "2026-11-23T08:00:02Z", ExitStatus: 1, Usage: Usage{RealSeconds: 0.1}},
			},
		},
		Files: []File{
			{Name: "cpu.pb.gz", Role: RoleProfile, Profile: "cpu"},
			{Name: "cpu.top.txt", Role: RoleView, Profile: "cpu"},
			{Name: "views/heap.svg", Role: RoleGraph, Profile: "heap"},
		},
	}
}

// writeFiles creates the files r lists in dir.
func writeFiles(t *testing.T, dir string, r *Result) {
	t.Helper()
	for _, name := range r.listed() {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriteReadDirAndZip(t *testing.T) {
	dir := t.TempDir()
	want := example()
	writeFiles(t, dir, want)
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), ZipName)
	zipDir(t, dir, zipPath)
	for _, path := range []string{dir, zipPath} {
		got, out, err := Read(path)
		if err != nil {
			t.Fatalf("Read(%s): %v", path, err)
		}
		if got.Benchmark != want.Benchmark || got.Environment != want.Environment || len(got.Timing.Runs) != 2 {
			t.Errorf("Read(%s) = %+v, want %+v", path, got, want)
		}
		if len(got.Timing.Successful()) != 1 {
			t.Errorf("Read(%s): %d successful runs, want 1", path, len(got.Timing.Successful()))
		}
		name := got.Find(RoleGraph, "heap")
		if data, err := out.ReadFile(name); err != nil || string(data) != name {
			t.Errorf("Read(%s): %s holds %q, %v", path, name, data, err)
		}
		if _, err := out.ReadFile("nothing.txt"); err == nil || !strings.Contains(err.Error(), "nothing.txt") {
			t.Errorf("Read(%s): reading a missing file: %v, want an error naming it", path, err)
		}
	}
}

func TestWriteRefusesAndLeavesNothing(t *testing.T) {
	for name, c := range map[string]struct {
		change func(*Result)
		want   string
	}{
		"missing file":   {func(r *Result) { r.Files = append(r.Files, File{Name: "gone.txt", Role: RoleData}) }, "gone.txt"},
		"no study":       {func(r *Result) { r.Benchmark.Study = "" }, "benchmark.study"},
		"bad kind":       {func(r *Result) { r.Benchmark.Kind = "shell" }, `kind "shell"`},
		"no runs":        {func(r *Result) { r.Timing.Runs = nil }, "timing.runs is empty"},
		"bad workload":   {func(r *Result) { r.Benchmark.Workload.Name = "huge" }, "workload.name"},
		"escaping file":  {func(r *Result) { r.Files[0].Name = "../cpu.pb.gz" }, "inside the result"},
		"unknown role":   {func(r *Result) { r.Files[0].Role = "picture" }, `role "picture"`},
		"go test no out": {func(r *Result) { r.Benchmark.Kind = KindGoTest }, "go_bench is empty"},
		"no line counts": {func(r *Result) { r.LineCounts = "lines.tsv" }, "lines.tsv"},
		"escaping lines": {func(r *Result) { r.LineCounts = "../lines.tsv" }, `line_counts "../lines.tsv": want a relative path inside`},
		"absolute lines": {func(r *Result) { r.LineCounts = "/etc/passwd" }, `line_counts "/etc/passwd"`},
		"lines listed":   {func(r *Result) { r.LineCounts = "cpu.top.txt" }, `line_counts "cpu.top.txt": a file of its own`},
		"figure unknown": {func(r *Result) { r.FigureLineCounts = map[string]string{"nope/A": "cpu.pb.gz"} }, `figure_line_counts["nope/A"]: no metric`},
		"figure escapes": {func(r *Result) {
			r.Metrics, r.FigureLineCounts = perOp("A"), map[string]string{"own_instructions_per_op/A": "../a.tsv"}
		},
			`figure_line_counts["own_instructions_per_op/A"] "../a.tsv": want a relative path`},
		"figure listed": {func(r *Result) {
			r.Metrics, r.FigureLineCounts = perOp("A"), map[string]string{"own_instructions_per_op/A": "cpu.top.txt"}
		},
			`"cpu.top.txt": a file of its own`},
		"figures share": {func(r *Result) {
			r.Metrics = perOp("A", "B")
			r.FigureLineCounts = map[string]string{"own_instructions_per_op/A": "a.tsv", "own_instructions_per_op/B": "a.tsv"}
		}, `figure_line_counts["own_instructions_per_op/B"] "a.tsv": a file of its own`},
	} {
		dir := t.TempDir()
		r := example()
		writeFiles(t, dir, r)
		c.change(r)
		err := Write(dir, r)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), FileName) {
			t.Errorf("%s: Write: %v, want an error naming %s and %q", name, err, FileName, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
			t.Errorf("%s: %s was written", name, FileName)
		}
	}
}

func TestReadErrorsNameTheFile(t *testing.T) {
	write := func(dir, name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]struct {
		files map[string]string
		want  string
	}{
		"older format": {map[string]string{"xtime.json": "{}", "benchmark.json": "{}"}, "before schema version 1"},
		"newer format": {map[string]string{FileName: `{"schema_version": 4}`}, "schema version 4; this lab reads versions 1 to 3"},
		"no version":   {map[string]string{FileName: `{"benchmark": {}}`}, "no schema_version"},
		"syntax":       {map[string]string{FileName: "{\n\"schema_version\": 1,\n}"}, "line 3"},
		"invalid":      {map[string]string{FileName: `{"schema_version": 1}`}, "benchmark.name"},
		"missing":      {map[string]string{"other.txt": ""}, FileName + ": missing"},
	} {
		dir := t.TempDir()
		for file, content := range c.files {
			write(dir, file, content)
		}
		_, _, err := Read(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: Read: %v, want an error naming %s and %q", name, err, dir, c.want)
		}
	}
	notZip := filepath.Join(t.TempDir(), ZipName)
	write(filepath.Dir(notZip), ZipName, "PK but not really")
	if _, _, err := Read(notZip); err == nil || !strings.Contains(err.Error(), notZip) {
		t.Errorf("Read(a broken zip): %v, want an error naming it", err)
	}
}

func TestFindAll(t *testing.T) {
	root := t.TempDir()
	good := filepath.Join(root, "havlak6_test")
	os.MkdirAll(good, 0o755)
	r := example()
	writeFiles(t, good, r)
	if err := Write(good, r); err != nil {
		t.Fatal(err)
	}
	zipDir(t, good, filepath.Join(root, "zipped", ZipName))
	// A test that is no benchmark leaves an outputs.zip too.
	other := filepath.Join(root, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "log.txt"), nil, 0o644)
	zipDir(t, other, filepath.Join(root, "other_test", ZipName))
	// A broken result is reported, not skipped.
	broken := filepath.Join(root, "broken")
	os.MkdirAll(broken, 0o755)
	os.WriteFile(filepath.Join(broken, FileName), []byte("{"), 0o644)

	found, err := FindAll(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, rel+map[bool]string{true: " ok", false: " error"}[f.Err == nil])
	}
	want := "broken error,havlak6_test ok,zipped/outputs.zip ok"
	if strings.Join(got, ",") != want {
		t.Errorf("FindAll found %q, want %q", strings.Join(got, ","), want)
	}
}

func TestDifferences(t *testing.T) {
	old := example().Environment
	same := old
	same.Source.Commit, same.Started, same.Build.Config = "abc", "later", ConfigPerf
	if d := Differences(old, same); len(d) != 0 {
		t.Errorf("commit, time and config changed: differences %v, want none", d)
	}
	moved := old
	moved.Machine.CPUModel = "AMD EPYC"
	moved.Toolchains.Go = "go1.28"
	d := Differences(old, moved)
	if len(d) != 2 || d[0].String() != `machine.cpu_model: "" → "AMD EPYC"` || d[1].Field != "toolchains.go" {
		t.Errorf("Differences = %v, want the CPU model and Go", d)
	}
}

func TestParseStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stable-status.txt")
	os.WriteFile(path, []byte("BUILD_HOST vm\nSTABLE_GIT_COMMIT 0123abc\nSTABLE_GIT_DIRTY true\nSTABLE_BAZEL_VERSION 4.2.3 (Debian)\n"), 0o644)
	s, err := ParseStatus(path)
	if err != nil || s != (Status{Commit: "0123abc", Dirty: true, BazelVersion: "4.2.3 (Debian)"}) {
		t.Errorf("ParseStatus = %+v, %v", s, err)
	}
	os.WriteFile(path, []byte("STABLE_GIT_DIRTY maybe\n"), 0o644)
	if _, err := ParseStatus(path); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Errorf("ParseStatus(bad dirty flag) = %v, want an error naming the line", err)
	}
}

func TestCaptureMachine(t *testing.T) {
	m := CaptureMachine()
	if m.OS == "" || m.Arch == "" || m.Cores < 1 {
		t.Errorf("CaptureMachine() = %+v: no OS, architecture or cores", m)
	}
	if m.OS == "linux" && (m.Kernel == "" || m.MemoryBytes <= 0) {
		t.Errorf("CaptureMachine() = %+v: no kernel or memory on Linux", m)
	}
}

func TestSample(t *testing.T) {
	in := []float64{4, 1, 3, 2}
	if s := NewSample(in); s != (Sample{Min: 1, Median: 2.5, Max: 4, Runs: 4}) || in[0] != 4 {
		t.Errorf("NewSample = %+v (input now %v); want 1, 2.5, 4 of 4 runs, the input untouched", s, in)
	}
	if s := NewSample([]float64{99, 100, 101}).Spread(); s != 0.02 {
		t.Errorf("Spread(99, 100, 101) = %v, want 0.02", s)
	}
	if s := NewSample([]float64{-99, -100, -101}).Spread(); s != 0.02 {
		t.Errorf("Spread(-99, -100, -101) = %v, want 0.02: noise is positive", s)
	}
	if s := NewSample([]float64{5}).Spread(); s != 0 {
		t.Errorf("Spread of one value = %v, want 0", s)
	}
}

func TestMetricsValidate(t *testing.T) {
	for name, c := range map[string]struct {
		metrics []Metric
		want    string
	}{
		"repeated":        {[]Metric{{Name: "x", Values: []float64{1}}, {Name: "x", Values: []float64{1}}}, "repeated"},
		"no values":       {[]Metric{{Name: "x"}}, "no values, and no reason"},
		"gated, no limit": {[]Metric{{Name: "x", Values: []float64{1}, Gated: true}}, "without a positive threshold"},
		"unknown class":   {[]Metric{{Name: "x", Values: []float64{1}, Class: "guess"}}, `class "guess": want one of count, timing`},
		"exact timing":    {[]Metric{{Name: "x", Values: []float64{1}, Class: ClassTiming, Exact: true}}, "only a count is exact"},
	} {
		r := example()
		r.Files = nil
		r.Metrics = c.metrics
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want %q", name, err, c.want)
		}
	}
	r := example()
	r.Metrics = []Metric{{Name: "instructions", Values: []float64{1, 2}, Gated: true, Threshold: 0.01}, {Name: "cycles", Unavailable: "no PMU"}}
	if err := r.Validate(); err != nil {
		t.Errorf("valid metrics: %v", err)
	}
}

func TestMetricLookup(t *testing.T) {
	r := example()
	for i := range MaxMetrics {
		r.Metrics = append(r.Metrics, Metric{Name: fmt.Sprint("m", i), Unit: "count", Values: []float64{float64(i)}})
	}
	data, _ := json.Marshal(r)
	decoded, err := Decode(data, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{r, decoded} {
		for i := range MaxMetrics {
			if m := r.Metric(fmt.Sprint("m", i)); m == nil || m.Values[0] != float64(i) {
				t.Fatalf("Metric(m%d) = %+v", i, m)
			}
		}
		if m := r.Metric("none"); m != nil {
			t.Errorf("Metric(none) = %+v", m)
		}
	}
	// Changed after Decode: the index never names a metric wrongly.
	decoded.Metrics[0].Name = "renamed"
	decoded.Metrics = append(decoded.Metrics, Metric{Name: "added"})
	if decoded.Metric("m0") != nil || decoded.Metric("renamed") != &decoded.Metrics[0] || decoded.Metric("added") == nil {
		t.Error("Metric after a change of the metrics")
	}
}

// perOp are a go_test's own instructions per operation of each of
// benchmarks.
func perOp(benchmarks ...string) []Metric {
	var ms []Metric
	for _, b := range benchmarks {
		ms = append(ms, Metric{Name: PerBenchmark(FigureOwnInstructionsPerOp, b), Unit: "instructions/op", Values: []float64{1}})
	}
	return ms
}

// A count's line counts are a file of the result that its line_counts
// names, and so is each figure's own (figure_line_counts): written and
// read back with it, through a directory and a zip.
func TestLineCountsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := example()
	want.LineCounts = "cachegrind.lines.tsv"
	want.Metrics = perOp("A", "B")
	want.FigureLineCounts = map[string]string{"own_instructions_per_op/A": "a.tsv", "own_instructions_per_op/B": "lines/b.tsv"}
	writeFiles(t, dir, want)
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), ZipName)
	zipDir(t, dir, zipPath)
	for _, path := range []string{dir, zipPath} {
		got, out, err := Read(path)
		if err != nil {
			t.Fatalf("Read(%s): %v", path, err)
		}
		if got.LineCounts != want.LineCounts {
			t.Errorf("Read(%s): line_counts %q, want %q", path, got.LineCounts, want.LineCounts)
		}
		if data, err := out.ReadFile(got.LineCounts); err != nil || string(data) != want.LineCounts {
			t.Errorf("Read(%s): %s holds %q, %v", path, got.LineCounts, data, err)
		}
		if len(got.FigureLineCounts) != 2 {
			t.Errorf("Read(%s): figure_line_counts %v, want %v", path, got.FigureLineCounts, want.FigureLineCounts)
		}
		for figure, name := range want.FigureLineCounts {
			if got.FigureLineCounts[figure] != name {
				t.Errorf("Read(%s): figure_line_counts[%s] %q, want %q", path, figure, got.FigureLineCounts[figure], name)
			}
			if data, err := out.ReadFile(name); err != nil || string(data) != name {
				t.Errorf("Read(%s): %s holds %q, %v", path, name, data, err)
			}
		}
	}
}
