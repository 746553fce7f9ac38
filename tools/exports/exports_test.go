package exports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/result"
)

// The report's fixtures: real results of one quick run of the suite (one
// commit), and of the server study.
const (
	nightDir   = "../report/testdata/results"
	serversDir = "../report/testdata/servers"
)

// readNight reads every result under dirs.
func readNight(t *testing.T, dirs ...string) Set {
	t.Helper()
	found, err := result.FindAll(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var set Set
	for _, f := range found {
		if f.Err != nil {
			t.Fatal(f.Err)
		}
		set.Inputs = append(set.Inputs, Input{f.Result, f.Outputs})
	}
	if len(set.Inputs) == 0 {
		t.Fatalf("no results under %v", dirs)
	}
	return set
}

// only keeps the inputs of set of the benchmarks named.
func only(set Set, names ...string) Set {
	var kept Set
	for _, in := range set.Inputs {
		for _, name := range names {
			if in.Result.Benchmark.Name == name {
				kept.Inputs = append(kept.Inputs, in)
			}
		}
	}
	return kept
}

// withCounts gives the result of set named name the metrics the runner
// makes of Cachegrind's counts (cachegrind.Metrics: exact for a C++
// program, not for a Go one), as the results of today's runner carry, on
// a copy of the result.
func withCounts(t *testing.T, set Set, name string, goProgram bool, counts ...cachegrind.Counts) Set {
	t.Helper()
	out := Set{Figure: set.Figure}
	found := false
	for _, in := range set.Inputs {
		if in.Result.Benchmark.Name == name {
			r := *in.Result
			r.Metrics = cachegrind.Metrics(counts, goProgram, "cachegrind, 3 counted runs: "+name, 0.01)
			in.Result = &r
			found = true
		}
		out.Inputs = append(out.Inputs, in)
	}
	if !found {
		t.Fatalf("no result of %s", name)
	}
	return out
}

// withCommit gives every result of set the commit, on copies.
func withCommit(set Set, commit string) Set {
	out := Set{Figure: set.Figure}
	for _, in := range set.Inputs {
		r := *in.Result
		r.Environment.Source.Commit = commit
		in.Result = &r
		out.Inputs = append(out.Inputs, in)
	}
	return out
}

func export(t *testing.T, format string, set Set) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, format, set); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUnknownFormat(t *testing.T) {
	err := Write(&bytes.Buffer{}, "csv", readNight(t, nightDir))
	if err == nil || !strings.Contains(err.Error(), `format "csv": want one of gobench, bmf, gab, gab-bigger, openmetrics`) {
		t.Errorf("format csv: %v", err)
	}
}

// The single-run formats refuse results of two commits, naming the flag
// that selects one.
func TestOneRun(t *testing.T) {
	night := readNight(t, nightDir)
	two := Set{Inputs: append(slicesClone(night.Inputs), withCommit(only(night, "havlak6"), "c0ffee").Inputs...)}
	for _, format := range []string{BMF, GAB, GABBigger} {
		err := Write(&bytes.Buffer{}, format, two)
		if err == nil || !strings.Contains(err.Error(), "select one with --commit") {
			t.Errorf("%s of two commits: %v", format, err)
		}
	}
	twice := Set{Inputs: append(slicesClone(night.Inputs), only(night, "havlak6").Inputs...)}
	if err := Write(&bytes.Buffer{}, BMF, twice); err == nil || !strings.Contains(err.Error(), "benchmark havlak6 twice") {
		t.Errorf("bmf with havlak6 twice: %v", err)
	}
}

func TestNoSuchMetric(t *testing.T) {
	set := readNight(t, nightDir)
	set.Figure = "own_instructions"
	if err := Write(&bytes.Buffer{}, BMF, set); err == nil || !strings.Contains(err.Error(), `no figure named "own_instructions" in these 7 results`) {
		t.Errorf("a metric the night has not: %v", err)
	}
}

func slicesClone(in []Input) []Input { return append([]Input(nil), in...) }

// A benchmark on two workloads is two runs; two benchmarks on one workload
// each are one.
func TestOneRunWorkloads(t *testing.T) {
	night := readNight(t, nightDir)
	r := *only(night, "havlak6").Inputs[0].Result
	r.Benchmark.Workload.Name = "standard"
	standard := Input{&r, night.Inputs[0].Outputs}
	if err := Write(&bytes.Buffer{}, BMF, Set{Inputs: append(slicesClone(night.Inputs), standard)}); err == nil ||
		!strings.Contains(err.Error(), "benchmark havlak6 on workloads quick and standard (select one with --workload)") {
		t.Errorf("havlak6 on two workloads: %v", err)
	}
	var mixed Set
	for _, in := range night.Inputs {
		if in.Result.Benchmark.Name != "havlak6" {
			mixed.Inputs = append(mixed.Inputs, in)
		}
	}
	mixed.Inputs = append(mixed.Inputs, standard)
	if err := Write(&bytes.Buffer{}, BMF, mixed); err != nil {
		t.Errorf("havlak6 standard, the others quick: %v", err)
	}
}

// withHost gives every result of set another machine, on copies: another
// environment.
func withHost(set Set, host string) Set {
	var out Set
	for _, in := range set.Inputs {
		r := *in.Result
		r.Environment.Machine.Hostname = host
		in.Result = &r
		out.Inputs = append(out.Inputs, in)
	}
	return out
}

// The registry is what its readers trust: a name and a night's file each
// format alone has, an encoder, and PerEnvironment saying what the
// encoder does with a night of two machines (the nightly job writes one
// file per environment of exactly those formats that refuse it).
func TestRegistry(t *testing.T) {
	// The runs of the fixtures are of two commits: each on its own.
	runs := []Set{readNight(t, nightDir), readNight(t, serversDir)}
	names, files := map[string]bool{}, map[string]bool{}
	for _, f := range Formats {
		switch {
		case f.Name == "" || strings.ContainsAny(f.Name, "|, "):
			t.Errorf("format %q: want a name a usage line can list", f.Name)
		case names[f.Name]:
			t.Errorf("format %s: registered twice", f.Name)
		case f.FileName == "" || filepath.Base(f.FileName) != f.FileName || files[f.FileName]:
			t.Errorf("format %s: file %q: want a file name of its own", f.Name, f.FileName)
		case f.Write == nil:
			t.Errorf("format %s: no encoder", f.Name)
			continue
		}
		names[f.Name], files[f.FileName] = true, true
		if got, err := Lookup(f.Name); err != nil || got.Name != f.Name {
			t.Errorf("Lookup(%q) = %v, %v", f.Name, got.Name, err)
		}
		// openmetrics exports the server study's figures only, so one of
		// the runs is enough to see a format refuse.
		refused := false
		for _, run := range runs {
			if _, err := f.Write(run); err != nil {
				t.Errorf("%s of one run: %v", f.Name, err)
			}
			twoMachines := Set{Inputs: append(slicesClone(run.Inputs), withHost(run, "another-agent").Inputs...)}
			_, err := f.Write(twoMachines)
			if err != nil && !strings.Contains(err.Error(), "select one with --env") {
				t.Errorf("%s of two machines' results: %v, want a refusal naming --env or none", f.Name, err)
			}
			refused = refused || err != nil
		}
		if refused != f.PerEnvironment {
			t.Errorf("%s: PerEnvironment %v, and it refused two machines' results: %v", f.Name, f.PerEnvironment, refused)
		}
	}
	if got, want := Usage(), strings.Join(Names(), "|"); got != want || !strings.HasPrefix(got, GoBench+"|") {
		t.Errorf("Usage() = %q, want the names in order, %q", got, want)
	}
}
