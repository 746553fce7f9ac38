package pgo

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/pprof/profile"
)

// cpuProfile is a CPU profile with one sample per stack, each stack listed
// leaf first; a stack's element may hold several names, the inlined
// functions of one location, innermost first.
func cpuProfile(stacks ...[][]string) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10000000,
	}
	functions := map[string]*profile.Function{}
	for _, stack := range stacks {
		sample := &profile.Sample{Value: []int64{1, 10000000}}
		for _, names := range stack {
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Address: uint64(0x1000 + len(p.Location))}
			for _, name := range names {
				fn := functions[name]
				if fn == nil {
					fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: "x.go"}
					functions[name] = fn
					p.Function = append(p.Function, fn)
				}
				loc.Line = append(loc.Line, profile.Line{Function: fn, Line: 1})
			}
			p.Location = append(p.Location, loc)
			sample.Location = append(sample.Location, loc)
		}
		p.Sample = append(p.Sample, sample)
	}
	return p
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const source = `package main

type LoopFinder struct{}

func (f *LoopFinder) FindLoops() {
	defer func() {}()
}

func (f LoopFinder) Size() int { return 0 }

type Set[T comparable] struct{}

func (s *Set[T]) Add(v T) {}

func Map[K comparable, V any](m map[K]V) {}

func main() {}

func init() {}
`

func TestDeclared(t *testing.T) {
	path := writeFile(t, t.TempDir(), "main.go", source)
	got, err := Declared("main", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"main.(*LoopFinder).FindLoops": true,
		"main.LoopFinder.Size":         true,
		"main.(*Set).Add":              true,
		"main.Map":                     true,
		"main.main":                    true,
		"main.init":                    true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Declared = %v, want %v", got, want)
	}
}

func TestDeclaredNamesABadFile(t *testing.T) {
	path := writeFile(t, t.TempDir(), "bad.go", "package main\nfunc (\n")
	_, err := Declared("main", []string{path})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("bad.go:")) {
		t.Errorf("Declared of a broken file: error %v, want one naming bad.go", err)
	}
}

func TestStale(t *testing.T) {
	path := writeFile(t, t.TempDir(), "main.go", source)
	declared, err := Declared("main", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	p := cpuProfile(
		// Inlined into FindLoops: a closure of it, and a renamed function.
		[][]string{{"main.(*LoopFinder).FindLoops.func1", "main.(*LoopFinder).dfs", "main.(*LoopFinder).FindLoops"}, {"main.main"}},
		[][]string{{"runtime.mallocgc"}, {"main.(*Set[go.shape.int]).Add"}, {"main.Map[go.shape.string,go.shape.int]"}},
		[][]string{{"main.init.0"}, {"main.init"}, {"runtime.main"}},
		[][]string{{"main.(*LoopFinder).FindLoops.deferwrap1"}, {"main.gone.func2.1"}},
	)
	got := Stale(p, "main", declared)
	want := []string{"main.(*LoopFinder).dfs", "main.gone.func2.1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stale = %q, want %q", got, want)
	}
	if got := Stale(p, "havlak-lab/go/internal/lab", declared); got != nil {
		t.Errorf("Stale of a package the profile does not name = %q, want none", got)
	}
}

func TestMergeAddsSamples(t *testing.T) {
	a := cpuProfile([][]string{{"main.f"}, {"main.main"}})
	b := cpuProfile([][]string{{"main.f"}, {"main.main"}}, [][]string{{"main.g"}, {"main.main"}})
	merged, err := Merge([]*profile.Profile{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range merged.Sample {
		total += s.Value[0]
	}
	if total != 3 {
		t.Errorf("merged profile has %d samples, want 3", total)
	}
	if got, want := Functions(merged, "main"), []string{"main.f", "main.g", "main.main"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Functions = %q, want %q", got, want)
	}
}

func TestMergeRefusesAnEmptyProfile(t *testing.T) {
	empty := cpuProfile()
	if _, err := Merge([]*profile.Profile{cpuProfile([][]string{{"main.main"}}), empty}); err == nil {
		t.Error("Merge with a profile without samples succeeded")
	}
	if _, err := Merge(nil); err == nil {
		t.Error("Merge of nothing succeeded")
	}
}

func TestReadProfileRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := cpuProfile([][]string{{"main.main"}}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "default.pgo", buf.String())
	p, err := ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := Functions(p, "main"); !reflect.DeepEqual(got, []string{"main.main"}) {
		t.Errorf("Functions of the read profile = %q", got)
	}
	garbage := writeFile(t, dir, "garbage.pgo", "not a profile")
	if _, err := ReadProfile(garbage); err == nil || !bytes.Contains([]byte(err.Error()), []byte("garbage.pgo")) {
		t.Errorf("ReadProfile of garbage: error %v, want one naming the file", err)
	}
}
