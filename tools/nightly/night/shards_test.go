package night

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/nightly/shard"
	"havlak-lab/tools/result"
)

// shardNight splits a night (makeNight) into the shards' results as the
// shards' jobs leave them, SHARDS/shard-K/<test>/outputs.zip, each shard's
// results from a machine of its own (perf-K), and SHARDS/shard-K.json;
// it returns SHARDS and the map, which balances the night's tests across
// n shards.
func shardNight(t *testing.T, night string, n int) (string, string) {
	t.Helper()
	entries, err := os.ReadDir(night)
	if err != nil {
		t.Fatal(err)
	}
	var benchmarks []shard.Benchmark
	for i, e := range entries {
		benchmarks = append(benchmarks, shard.Benchmark{Name: strings.TrimSuffix(strings.TrimSuffix(e.Name(), "_quick_test"), "_test"),
			Test: "//benchmarks:" + e.Name(), Seconds: float64(10 + 7*i), Duration: "default: no full-size result in the history"})
	}
	m, err := shard.Generate(benchmarks, n, nil, shard.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(t.TempDir(), "shards.json")
	if err := m.Write(mapFile); err != nil {
		t.Fatal(err)
	}
	shards := t.TempDir()
	for _, s := range m.Shards {
		for _, b := range s.Benchmarks {
			test := shard.TestName(b.Test)
			files := readZip(t, filepath.Join(night, test, result.ZipName))
			editResult(t, files, func(r *result.Result) { r.Environment.Machine.Hostname = fmt.Sprintf("perf-%d", s.Index) })
			writeZip(t, filepath.Join(shards, ShardDir(s.Index), test, result.ZipName), files)
		}
		writeStatus(t, shards, s.Index, 0)
	}
	return shards, mapFile
}

func writeStatus(t *testing.T, shards string, k, status int) {
	t.Helper()
	data, _ := json.Marshal(ShardStatus{Shard: k, ExitStatus: status})
	if err := os.WriteFile(filepath.Join(shards, ShardDir(k)+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A night of three shards merges into one night, gated once: the first
// becomes the baseline, the next is compared with it, benchmark by
// benchmark on its own agent's machine.
func TestMergeThreeShards(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	baseline := filepath.Join(t.TempDir(), "baseline")
	for i, want := range []string{"No baseline yet", "| havlak6 | Go |"} {
		shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
		merged := filepath.Join(t.TempDir(), "artifacts")
		var out bytes.Buffer
		if err := Merge(mapFile, shards, merged, &out); err != nil {
			t.Fatalf("night %d: %v\n%s", i, err, out.String())
		}
		for k := 0; k < 3; k++ {
			if !strings.Contains(out.String(), fmt.Sprintf("shard %d: ", k)) || !strings.Contains(out.String(), fmt.Sprintf("from perf-%d", k)) {
				t.Errorf("night %d: the merge does not name shard %d and its machine:\n%s", i, k, out.String())
			}
		}
		n, err := result.OpenNight(merged)
		if err != nil || len(n.Tests()) != 8 {
			t.Fatalf("night %d: the merged night: %v, %d tests, want 8", i, err, len(n.Tests()))
		}
		status, log := gateNight(t, baseline, merged)
		if status != 0 || !strings.Contains(log, want) || !isFile(filepath.Join(merged, "report", "index.html")) {
			t.Fatalf("night %d: exit status %d, want 0, a report and %q:\n%s", i, status, want, log)
		}
		// The formats of one run are written per machine, never mixed.
		if envs, _ := filepath.Glob(filepath.Join(merged, "exports", "env-*", "results.bmf.json")); len(envs) != 3 {
			t.Errorf("night %d: %d Bencher exports, want one per shard's machine, 3:\n%s", i, len(envs), log)
		}
		if strings.Contains(log, "Environment changed") {
			t.Errorf("night %d: each benchmark on its own agent, yet an environment changed:\n%s", i, log)
		}
	}
}

// A shard that never reports, or that failed, fails the night naming its
// benchmarks and its shard; the rest are merged and gated, and the gate
// says what is MISSING.
func TestMergeMissingShard(t *testing.T) {
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	baseline := filepath.Join(t.TempDir(), "baseline")
	shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	first := filepath.Join(t.TempDir(), "artifacts")
	if err := Merge(mapFile, shards, first, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if status, log := gateNight(t, baseline, first); status != 0 {
		t.Fatalf("first night: exit status %d:\n%s", status, log)
	}
	m, err := shard.Read(mapFile)
	if err != nil {
		t.Fatal(err)
	}

	shards, mapFile = shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	os.RemoveAll(filepath.Join(shards, ShardDir(2)))
	os.Remove(filepath.Join(shards, ShardDir(2)+".json"))
	// Shard 1 failed, and lost one of its results.
	writeStatus(t, shards, 1, 3)
	lost := m.Shards[1].Benchmarks[0]
	os.RemoveAll(filepath.Join(shards, ShardDir(1), shard.TestName(lost.Test)))

	merged := filepath.Join(t.TempDir(), "artifacts")
	var out bytes.Buffer
	err = Merge(mapFile, shards, merged, &out)
	var merr *MergeError
	if !errors.As(err, &merr) {
		t.Fatalf("a missing shard: %v, want a MergeError\n%s", err, out.String())
	}
	says := []string{"shard 2 never reported", "shard 1 failed: its tests ended with exit status 3",
		fmt.Sprintf("%s MISSING (shard 1, %s): no result in", lost.Name, lost.Test)}
	for _, b := range m.Shards[2].Benchmarks {
		says = append(says, fmt.Sprintf("%s MISSING (shard 2, %s): the shard never reported", b.Name, b.Test))
	}
	for _, want := range says {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the merge does not say %q:\n%v", want, err)
		}
	}
	if len(merr.Missing) != len(m.Shards[2].Benchmarks)+1 {
		t.Errorf("%d MISSING, want %d: %v", len(merr.Missing), len(m.Shards[2].Benchmarks)+1, merr.Missing)
	}
	// The night the merge wrote is gated as a night whose tests failed:
	// its missing benchmarks fail it, and it never becomes the baseline.
	before := snapshot(t, baseline)
	status, log := gateNight(t, baseline, merged, func(o *GateOptions) { o.TestsFailed = true })
	if status == 0 || !strings.Contains(log, "MISSING") || snapshot(t, baseline) != before {
		t.Errorf("the incomplete night: exit status %d, want a failure naming what is MISSING, and the baseline kept:\n%s", status, log)
	}
}

// A test in a shard the map does not give it, and a shard's results from
// two machines, are refused before anything is written.
func TestMergeRefuses(t *testing.T) {
	needCommands(t)
	shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	m, err := shard.Read(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	stray := shard.TestName(m.Shards[0].Benchmarks[0].Test)
	zip := filepath.Join(shards, ShardDir(0), stray, result.ZipName)
	files := readZip(t, zip)
	writeZip(t, filepath.Join(shards, ShardDir(1), stray, result.ZipName), files)
	other := shard.TestName(m.Shards[2].Benchmarks[0].Test)
	otherZip := filepath.Join(shards, ShardDir(2), other, result.ZipName)
	files = readZip(t, otherZip)
	editResult(t, files, func(r *result.Result) { r.Environment.Machine.Hostname = "somewhere-else" })
	writeZip(t, otherZip, files)

	merged := filepath.Join(t.TempDir(), "artifacts")
	err = Merge(mapFile, shards, merged, &bytes.Buffer{})
	for _, want := range []string{
		fmt.Sprintf("the test %s ran on shard 1, but %s gives it to shard 0", stray, mapFile),
		`shard 2: results from 2 machines`, `"somewhere-else" (` + other + `)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the merge does not refuse with %q: %v", want, err)
		}
	}
	if _, statErr := os.Lstat(merged); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("a refused merge wrote %s", merged)
	}
}

// Each shard's job runs its own tests, and the steps give it its own agent.
func TestShardTestsAndSteps(t *testing.T) {
	m, err := shard.Generate([]shard.Benchmark{
		{Name: "a", Test: "//benchmarks:a_test", Seconds: 30, Duration: "default"},
		{Name: "b", Test: "//benchmarks:b_test", Seconds: 20, Duration: "default"},
		{Name: "c", Test: "//benchmarks:c_test", Seconds: 10, Duration: "default"},
	}, 2, nil, shard.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(t.TempDir(), "shards.json")
	if err := m.Write(mapFile); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ShardTests(mapFile, 1, &out); err != nil || out.String() != "//benchmarks:b_test\n//benchmarks:c_test\n" {
		t.Errorf("shard 1's tests: %q, %v", out.String(), err)
	}
	if err := ShardTests(mapFile, 2, &out); err == nil {
		t.Error("shard 2 of 2: no error")
	}
	out.Reset()
	if err := Steps(mapFile, &out); err != nil {
		t.Fatal(err)
	}
	var pipeline struct {
		Steps []step `json:"steps"`
	}
	if err := json.Unmarshal(out.Bytes(), &pipeline); err != nil || len(pipeline.Steps) != 3 {
		t.Fatalf("steps: %v, %d steps, want 3:\n%s", err, len(pipeline.Steps), out.String())
	}
	for k, s := range pipeline.Steps[:2] {
		if s.Agents["perf_shard"] != fmt.Sprint(k) || s.Command != fmt.Sprintf("tools/ci/nightly.sh --shard %d", k) || s.Concurrency != 1 {
			t.Errorf("shard %d's step: %+v", k, s)
		}
	}
	if merge := pipeline.Steps[2]; !merge.AllowDependencyFailure || len(merge.DependsOn) != 2 || merge.Command != "tools/ci/nightly.sh --merge" {
		t.Errorf("the merge step: %+v", merge)
	}
}
