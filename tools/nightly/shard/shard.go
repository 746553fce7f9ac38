// Package shard owns the nightly suite's shard map (docs/nightly.md#shards):
// which perf agent's shard runs which full-size benchmark. It is a
// checked-in JSON file, benchmarks/shards.json, that `nightly shardmap`
// generates from the benchmarks' measured durations in the results
// history and that the nightly job reads to run one job per shard and to
// know, when it merges them, which benchmarks each shard owed. Every reader
// and writer of the file goes through this package: Read checks it, Write
// writes it whole or not at all.
//
// A benchmark stays on its shard from one map to the next when that keeps
// the shards within the tolerance of the best balance; a benchmark that
// moves runs on another machine, so its timings start a new baseline (its
// environment key changes): the map lists the moves.
package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"havlak-lab/internal/atomicfile"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// SchemaVersion is the version of the map's format that this package
// reads and writes.
const SchemaVersion = 1

// DefaultTolerance is how much longer than the best greedy balance the
// longest shard may be while every benchmark keeps its shard: 10%.
const DefaultTolerance = 0.10

// maxMapBytes bounds the map file's size.
const maxMapBytes = 4 << 20

// A Map assigns every full-size benchmark to one shard.
type Map struct {
	SchemaVersion int `json:"schema_version"`
	// Tolerance is the one the map was generated with (Generate).
	Tolerance float64 `json:"tolerance"`
	// Shards are the shards 0, 1, ..., in order.
	Shards []Shard `json:"shards"`
	// Moved are the benchmarks that changed shard since the previous map:
	// their timings start a new baseline on their new agent.
	Moved []Move `json:"moved"`
}

// A Shard is the benchmarks one perf agent runs.
type Shard struct {
	// Index is the shard's number, its place in Map.Shards.
	Index int `json:"shard"`
	// Seconds is the sum of its benchmarks' durations.
	Seconds float64 `json:"seconds"`
	// Benchmarks are sorted by name.
	Benchmarks []Benchmark `json:"benchmarks"`
}

// A Benchmark is one full-size benchmark of a shard.
type Benchmark struct {
	// Name is the benchmark's name (the manifest's).
	Name string `json:"name"`
	// Test is the label of its full-size test (the manifest's perf
	// target: //benchmarks:havlak6_test).
	Test string `json:"test"`
	// Seconds is the duration the map was balanced with.
	Seconds float64 `json:"seconds"`
	// Duration says where Seconds came from: the history's results, or
	// the declared default for a benchmark the history has none of.
	Duration string `json:"duration"`
}

// A Move is a benchmark that changed shard when the map was generated.
type Move struct {
	Name string `json:"name"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// TestName is the name of a test label's target, the name of its
// directory in a night (nightly collect).
func TestName(label string) string { return label[strings.LastIndex(label, ":")+1:] }

// Check tells what is wrong with the map, if anything: a wrong version,
// no shards, a shard out of place or without benchmarks (an agent with
// nothing to run), a benchmark without a name or a test
// label, a benchmark or a test (by its night's name) in two shards, a
// duration that is not a number of seconds, a move that is not the
// benchmark's.
func (m *Map) Check() error {
	if m.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d: want %d", m.SchemaVersion, SchemaVersion)
	}
	if len(m.Shards) == 0 {
		return errors.New("shards: none")
	}
	if !finite(m.Tolerance) || m.Tolerance < 0 {
		return fmt.Errorf("tolerance %v: want a fraction, at least 0", m.Tolerance)
	}
	shardOf := map[string]int{}
	testOf := map[string]string{}
	for i, s := range m.Shards {
		where := fmt.Sprintf("shards[%d]", i)
		if s.Index != i {
			return fmt.Errorf("%s.shard %d: want %d", where, s.Index, i)
		}
		if !finite(s.Seconds) || s.Seconds < 0 {
			return fmt.Errorf("%s.seconds %v: want a duration", where, s.Seconds)
		}
		if len(s.Benchmarks) == 0 {
			return fmt.Errorf("%s: no benchmarks: fewer shards, or more benchmarks", where)
		}
		for j, b := range s.Benchmarks {
			where := fmt.Sprintf("%s.benchmarks[%d]", where, j)
			if err := result.CheckName(b.Name); err != nil {
				return fmt.Errorf("%s.name: %v", where, err)
			}
			if !strings.HasPrefix(b.Test, "//") || !strings.Contains(b.Test, ":") {
				return fmt.Errorf("%s (%s).test %q: want a label //package:name", where, b.Name, b.Test)
			}
			if err := result.CheckName(TestName(b.Test)); err != nil || nightdir.Layout().Reserved(TestName(b.Test)) {
				return fmt.Errorf("%s (%s).test %q: not a name a night's test directory can have", where, b.Name, b.Test)
			}
			if !finite(b.Seconds) || b.Seconds < 0 {
				return fmt.Errorf("%s (%s).seconds %v: want a duration", where, b.Name, b.Seconds)
			}
			if other, ok := shardOf[b.Name]; ok {
				return fmt.Errorf("%s: the benchmark %s is also in shard %d", where, b.Name, other)
			}
			if other, ok := testOf[TestName(b.Test)]; ok {
				return fmt.Errorf("%s (%s): its test %s has the name of %s's: a night would hold one", where, b.Name, b.Test, other)
			}
			if j > 0 && s.Benchmarks[j-1].Name >= b.Name {
				return fmt.Errorf("%s (%s): the benchmarks are not sorted by name", where, b.Name)
			}
			shardOf[b.Name], testOf[TestName(b.Test)] = i, b.Name
		}
	}
	for i, mv := range m.Moved {
		if to, ok := shardOf[mv.Name]; !ok || to != mv.To || mv.From == mv.To || mv.From < 0 {
			return fmt.Errorf("moved[%d]: %s from %d to %d is not a move to the shard the map gives it", i, mv.Name, mv.From, mv.To)
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Decode decodes and checks a map read from the file name: one JSON
// object of SchemaVersion with no field the format does not have. Its
// errors name the file.
func Decode(data []byte, name string) (*Map, error) {
	if len(data) > maxMapBytes {
		return nil, fmt.Errorf("%s: %d bytes: a shard map has at most %d", name, len(data), maxMapBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Map
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a shard map: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: not a shard map: more than one JSON value", name)
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &m, nil
}

// Read reads and checks the map at path.
func Read(path string) (*Map, error) {
	data, err := result.ReadFileLimited(path, maxMapBytes)
	if err != nil {
		return nil, err
	}
	return Decode(data, path)
}

// Encode is the map's file: indented JSON and a newline, after Check.
func (m *Map) Encode() ([]byte, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Write writes the map to path, whole or not at all.
func (m *Map) Write(path string) error {
	data, err := m.Encode()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// Shard returns shard k, or an error naming how many there are.
func (m *Map) Shard(k int) (*Shard, error) {
	if k < 0 || k >= len(m.Shards) {
		return nil, fmt.Errorf("shard %d: the map has shards 0 to %d", k, len(m.Shards)-1)
	}
	return &m.Shards[k], nil
}

// Tests are the labels of the shard's tests, in its benchmarks' order.
func (s *Shard) Tests() []string {
	tests := make([]string, len(s.Benchmarks))
	for i, b := range s.Benchmarks {
		tests[i] = b.Test
	}
	return tests
}

// Longest is the duration of the map's longest shard: the night's wall
// time when every shard runs at once.
func (m *Map) Longest() float64 {
	longest := 0.0
	for _, s := range m.Shards {
		longest = max(longest, s.Seconds)
	}
	return longest
}

// Names are the names of every benchmark of the map, sorted.
func (m *Map) Names() []string {
	var names []string
	for _, s := range m.Shards {
		for _, b := range s.Benchmarks {
			names = append(names, b.Name)
		}
	}
	slices.Sort(names)
	return names
}

// DefaultSeconds is the duration of a benchmark with nothing better to go
// by: shardmap's default for one without results in the history, and the
// estimate a benchmark the map does not know is placed with (Place).
const DefaultSeconds = 60

// A Placement is a benchmark of the suite that the map does not know,
// placed by the default rule.
type Placement struct {
	Benchmark
	Shard int
	// Shards is how many shards the map has, for the command that
	// regenerates it.
	Shards int
}

// String is what the night's log and the presubmit say of it.
func (p Placement) String() string {
	return fmt.Sprintf("%s (%s): not in the shard map: placed in shard %d by default (the least loaded); "+
		"regenerate the map to keep it there for good: nightly shardmap --manifest FILE --shards %d --out MAP, "+
		"the manifest built and the map where the night reads it (docs/nightly.md#shards)", p.Name, p.Test, p.Shard, p.Shards)
}

// Place is the map for the suite: suite is the full-size test of each of
// its benchmarks, by name (the manifest's perf targets). A
// benchmark of the suite that the map does not know is placed by the
// default rule, the one regenerating the map applies to a new benchmark:
// in name order, each on the shard with the least estimated time (the
// lowest numbered of equals), estimated at DefaultSeconds. The placements
// are returned for the caller to name; m is not changed.
//
// What remains an error is what the night cannot run as mapped: a
// benchmark of the map that the suite lacks, or whose test is not the
// suite's, is a label its shard's build would not find (the build fails,
// and none of the shard's benchmarks run); leaving the suite is a
// decision (the gate's --retire) that regenerating the map goes with. And
// a placed benchmark whose test has the name of another's, since a night
// holds one of them (Check).
func (m *Map) Place(suite map[string]string) (*Map, []Placement, error) {
	var diffs []string
	placed := *m
	placed.Shards = slices.Clone(m.Shards)
	inMap := map[string]bool{}
	for i, s := range m.Shards {
		placed.Shards[i].Benchmarks = slices.Clone(s.Benchmarks)
		for _, b := range s.Benchmarks {
			inMap[b.Name] = true
			switch test, ok := suite[b.Name]; {
			case !ok:
				diffs = append(diffs, fmt.Sprintf("%s (shard %d): not in the suite: its shard's build would not find %s", b.Name, s.Index, b.Test))
			case test != b.Test:
				diffs = append(diffs, fmt.Sprintf("%s (shard %d): its test is %s, the map says %s", b.Name, s.Index, test, b.Test))
			}
		}
	}
	if len(diffs) > 0 {
		return nil, nil, fmt.Errorf("the shard map names what the suite lacks (regenerate the map: docs/nightly.md#shards):\n  %s", strings.Join(diffs, "\n  "))
	}
	var placements []Placement
	for _, name := range slices.Sorted(maps.Keys(suite)) {
		if inMap[name] {
			continue
		}
		k := 0
		for i, s := range placed.Shards {
			if s.Seconds < placed.Shards[k].Seconds {
				k = i
			}
		}
		b := Benchmark{Name: name, Test: suite[name], Seconds: DefaultSeconds, Duration: "default: not in the shard map, placed by default"}
		s := &placed.Shards[k]
		s.Benchmarks = append(s.Benchmarks, b)
		slices.SortFunc(s.Benchmarks, func(x, y Benchmark) int { return strings.Compare(x.Name, y.Name) })
		s.Seconds += b.Seconds
		placements = append(placements, Placement{Benchmark: b, Shard: k, Shards: len(placed.Shards)})
	}
	if err := placed.Check(); err != nil {
		return nil, nil, fmt.Errorf("the shard map with the suite's new benchmarks placed: %w", err)
	}
	return &placed, placements, nil
}

// Suite is the suite a map is of, from the manifest: the full-size test
// of each benchmark, by name; or its quick test, when the map is one of
// the quick tests (shardmap --quick, to rehearse a sharded night).
func Suite(manifest *perfspec.Manifest, m *Map) map[string]string {
	config := result.ConfigPerf
	mapped := map[string]bool{}
	for _, s := range m.Shards {
		for _, test := range s.Tests() {
			mapped[test] = true
		}
	}
	for _, b := range manifest.Benchmarks {
		if quick, err := b.Target(result.ConfigQuick); err == nil && mapped[quick.Label] {
			config = result.ConfigQuick
			break
		}
	}
	suite := map[string]string{}
	for _, b := range manifest.Benchmarks {
		if t, err := b.Target(config); err == nil {
			suite[b.Name] = t.Label
		}
	}
	return suite
}

// ReadPlaced reads the map at path and places in it what the suite of the
// manifest at manifestPath has and it lacks (Place), naming each
// placement on log; no manifest ("") is the map as it is.
func ReadPlaced(path, manifestPath string, log io.Writer) (*Map, error) {
	m, err := Read(path)
	if err != nil || manifestPath == "" {
		return m, err
	}
	manifest, err := perfspec.ReadManifest(manifestPath)
	if err != nil {
		return nil, err
	}
	placed, placements, err := m.Place(Suite(manifest, m))
	if err != nil {
		return nil, fmt.Errorf("%s against %s: %w", path, manifestPath, err)
	}
	for _, p := range placements {
		fmt.Fprintf(log, "%s: %s\n", path, p)
	}
	return placed, nil
}
