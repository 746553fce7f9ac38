package shard

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// suite is a suite like //benchmarks:manifest's: durations from 20 s to
// 300 s.
func suite(n int) []Benchmark {
	var bs []Benchmark
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("bench%02d", i)
		bs = append(bs, Benchmark{Name: name, Test: "//benchmarks:" + name + "_test",
			Seconds: float64(20 + (i*97)%281), Duration: "history: median of 3 results"})
	}
	return bs
}

func shardOf(m *Map) map[string]int {
	of := map[string]int{}
	for _, s := range m.Shards {
		for _, b := range s.Benchmarks {
			of[b.Name] = s.Index
		}
	}
	return of
}

func total(bs []Benchmark) float64 {
	sum := 0.0
	for _, b := range bs {
		sum += b.Seconds
	}
	return sum
}

func TestBalanced(t *testing.T) {
	bs := suite(29)
	for n := 1; n <= 4; n++ {
		m, err := Generate(bs, n, nil, DefaultTolerance)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Names()) != len(bs) || len(m.Shards) != n {
			t.Fatalf("%d shards: %d benchmarks in %d shards, want %d in %d", n, len(m.Names()), len(m.Shards), len(bs), n)
		}
		// Greedy longest-first is within 4/3 of the optimum, itself at
		// least the mean; with many short benchmarks, far closer.
		if mean := total(bs) / float64(n); m.Longest() > mean*1.05 {
			t.Errorf("%d shards: longest %.0f s, mean %.0f s: not balanced", n, m.Longest(), mean)
		}
		if len(m.Moved) != 0 {
			t.Errorf("%d shards: a first map moved %v", n, m.Moved)
		}
	}
}

// Regenerating the map with one new benchmark moves nothing else, and
// with the same benchmarks changes nothing.
func TestStable(t *testing.T) {
	bs := suite(29)
	first, err := Generate(bs, 3, nil, DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate(bs, 3, first, DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := first.Encode()
	b, _ := again.Encode()
	if string(a) != string(b) {
		t.Errorf("regenerated with nothing changed, the map changed:\n%s\n%s", a, b)
	}

	grown := append(suite(29), Benchmark{Name: "newbench", Test: "//benchmarks:newbench_test", Seconds: 60, Duration: "default: no result in the history"})
	next, err := Generate(grown, 3, first, DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	was, now := shardOf(first), shardOf(next)
	for name, k := range was {
		if now[name] != k {
			t.Errorf("%s moved from shard %d to %d when newbench came", name, k, now[name])
		}
	}
	if _, ok := now["newbench"]; !ok || len(next.Moved) != 0 {
		t.Errorf("newbench not placed, or moves listed: %v", next.Moved)
	}

	// Durations that changed beyond the tolerance move what they must,
	// and the map says so.
	skewed := suite(29)
	for i := range skewed {
		if was[skewed[i].Name] == 0 {
			skewed[i].Seconds *= 3
		}
	}
	moved, err := Generate(skewed, 3, first, DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	if len(moved.Moved) == 0 || moved.Longest() > total(skewed)/3*(1+DefaultTolerance)*1.05 {
		t.Fatalf("shard 0 three times longer: moves %v, longest %.0f of %.0f", moved.Moved, moved.Longest(), total(skewed))
	}
	now = shardOf(moved)
	for _, mv := range moved.Moved {
		if mv.From != was[mv.Name] || mv.To != now[mv.Name] {
			t.Errorf("move %+v: was %d, is %d", mv, was[mv.Name], now[mv.Name])
		}
	}
	if len(moved.Moved) > 10 {
		t.Errorf("%d of 29 benchmarks moved: want the fewest", len(moved.Moved))
	}
}

func TestReadWrite(t *testing.T) {
	m, err := Generate(suite(7), 2, nil, DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shards.json")
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Names()) != 7 || back.Shards[1].Index != 1 {
		t.Errorf("read back %+v", back)
	}
	data, _ := os.ReadFile(path)
	for _, c := range []struct{ name, edit, want string }{
		{"version", `"schema_version": 1`, "schema_version 2: want 1"},
		{"unknown field", `"tolerance"`, `unknown field "tolerances"`},
		{"a test twice", `"//benchmarks:bench01_test"`, "its test //benchmarks:bench00_test has the name of bench0"},
	} {
		var bad string
		switch c.name {
		case "version":
			bad = strings.Replace(string(data), c.edit, `"schema_version": 2`, 1)
		case "unknown field":
			bad = strings.Replace(string(data), c.edit, `"tolerances"`, 1)
		default:
			bad = strings.Replace(string(data), c.edit, `"//benchmarks:bench00_test"`, 1)
		}
		if _, err := Decode([]byte(bad), "shards.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := m.Shard(2); err == nil || !strings.Contains(err.Error(), "shards 0 to 1") {
		t.Errorf("shard 2 of 2: %v", err)
	}
}

// A benchmark the map does not know is placed by the default rule, named;
// what the night cannot run as mapped stays an error, naming each.
func TestPlace(t *testing.T) {
	m, err := Generate(suite(5), 2, nil, DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := m.Encode()
	tests := map[string]string{}
	for _, b := range suite(5) {
		tests[b.Name] = b.Test
	}
	same, placements, err := m.Place(tests)
	if err != nil || len(placements) != 0 || len(same.Names()) != 5 {
		t.Errorf("the map of the suite: %d placed, %v", len(placements), err)
	}

	// Two new benchmarks: each on the least loaded shard in turn, the
	// lowest numbered of equals, as regenerating the map would place it.
	tests["newbench"] = "//benchmarks:newbench_test"
	tests["another"] = "//benchmarks:another_test"
	least := func(m *Map) int {
		k := 0
		for i, s := range m.Shards {
			if s.Seconds < m.Shards[k].Seconds {
				k = i
			}
		}
		return k
	}
	first := least(m)
	placed, placements, err := m.Place(tests)
	if err != nil {
		t.Fatal(err)
	}
	if len(placements) != 2 || placements[0].Name != "another" || placements[0].Shard != first || placements[1].Name != "newbench" {
		t.Fatalf("placements %+v, want another on shard %d, then newbench", placements, first)
	}
	of := shardOf(placed)
	for _, p := range placements {
		if of[p.Name] != p.Shard || p.Seconds != DefaultSeconds || p.Shards != 2 {
			t.Errorf("%+v: in shard %d of the placed map", p, of[p.Name])
		}
		for _, want := range []string{p.Name + " (" + p.Test + "): not in the shard map: placed in shard ", "--shards 2 --out MAP"} {
			if !strings.Contains(p.String(), want) {
				t.Errorf("%q, want %q in it", p, want)
			}
		}
	}
	if err := placed.Check(); err != nil || len(placed.Names()) != 7 {
		t.Errorf("the placed map: %d benchmarks, %v", len(placed.Names()), err)
	}
	if total(placed.Shards[first].Benchmarks) != placed.Shards[first].Seconds {
		t.Errorf("shard %d's seconds %v are not its benchmarks'", first, placed.Shards[first].Seconds)
	}
	if after, _ := m.Encode(); string(after) != string(before) {
		t.Errorf("Place changed the map it was given")
	}

	// What the night cannot run as mapped.
	delete(tests, "bench01")
	tests["bench02"] = "//benchmarks:other_test"
	_, _, err = m.Place(tests)
	for _, want := range []string{
		"bench01 (shard ", "): not in the suite: its shard's build would not find //benchmarks:bench01_test",
		"bench02 (shard ", "its test is //benchmarks:other_test, the map says //benchmarks:bench02_test",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the map of another suite: %v, want %q", err, want)
		}
	}
	// A new benchmark whose test has the name of a mapped one's.
	clash := map[string]string{"clash": "//other:bench00_test"}
	for _, b := range suite(5) {
		clash[b.Name] = b.Test
	}
	if _, _, err := m.Place(clash); err == nil || !strings.Contains(err.Error(), "has the name of") {
		t.Errorf("a new benchmark's test named as bench00's: %v", err)
	}
	if _, err := Generate(suite(2), 3, nil, DefaultTolerance); err == nil || !strings.Contains(err.Error(), "a shard would have nothing to run") {
		t.Errorf("2 benchmarks on 3 shards: %v", err)
	}
}

var (
	manifestFlag = flag.String("manifest", "", "//benchmarks:manifest's file (bazel-bin/benchmarks/manifest.json)")
	mapFlag      = flag.String("map", "", "the checked-in shard map, benchmarks/shards.json")
)

// runfile resolves a $(rootpath) argument: go_test runs in its package's
// directory, not in the runfiles root.
func runfile(p string) string {
	if filepath.IsAbs(p) || os.Getenv("TEST_SRCDIR") == "" {
		return p
	}
	return filepath.Join(os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE"), p)
}

// The checked-in map runs the suite's full-size tests: a benchmark added
// without regenerating the map is placed by default and named here (the
// night's log names it too), never a red presubmit; a map naming a test
// the suite lacks, or a benchmark twice, fails here, in the presubmit and
// in the nightly job's first step, not at night.
func TestCheckedInMap(t *testing.T) {
	if *manifestFlag == "" || *mapFlag == "" {
		t.Skip("needs -manifest and -map (bazel test //tools/nightly/shard:shard_test)")
	}
	var log strings.Builder
	if _, err := ReadPlaced(runfile(*mapFlag), runfile(*manifestFlag), &log); err != nil {
		t.Error(err)
	}
	if log.Len() > 0 {
		t.Logf("%s", log.String())
	}
}
