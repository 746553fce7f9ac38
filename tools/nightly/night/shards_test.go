package night

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/nightly/shard"
	"havlak-lab/tools/result"
)

// shardNight splits a night (makeNight) into the shards' nights as the
// shards' jobs leave them, SHARDS/shard-K/<test>/outputs.zip with
// SHARDS/shard-K/bazel-events.json, each shard's results from a machine of
// its own (perf-K); it returns SHARDS and the map, which balances the
// night's tests across n shards, then moves each benchmark of move to the
// next shard, as a regenerated map would.
func shardNight(t *testing.T, night string, n int, move ...string) (string, string) {
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
	for _, name := range move {
		moveBenchmark(t, m, name)
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

// moveBenchmark moves the benchmark name of m to the next shard, and lists
// the move.
func moveBenchmark(t *testing.T, m *shard.Map, name string) {
	t.Helper()
	for from := range m.Shards {
		i := slices.IndexFunc(m.Shards[from].Benchmarks, func(b shard.Benchmark) bool { return b.Name == name })
		if i < 0 {
			continue
		}
		b, to := m.Shards[from].Benchmarks[i], (from+1)%len(m.Shards)
		m.Shards[from].Benchmarks = slices.Delete(m.Shards[from].Benchmarks, i, i+1)
		m.Shards[to].Benchmarks = append(m.Shards[to].Benchmarks, b)
		slices.SortFunc(m.Shards[to].Benchmarks, func(a, b shard.Benchmark) int { return strings.Compare(a.Name, b.Name) })
		m.Moved = append(m.Moved, shard.Move{Name: name, From: from, To: to})
		return
	}
	t.Fatalf("no benchmark %s in the map", name)
}

// mergeNight merges the shards' nights into a new night and gates it
// against baseline, as nightly merge does; it returns the exit status,
// everything printed and the merged night.
func mergeNight(t *testing.T, baseline, mapFile, shards string) (int, string, string) {
	t.Helper()
	var out bytes.Buffer
	o := gateOptions(t, baseline, filepath.Join(t.TempDir(), "artifacts"), &out)
	status := cli.Report(&out, "nightly", MergeNight(MergeOptions{Map: mapFile, Shards: shards, Gate: o}))
	return status, out.String(), o.Artifacts
}

// writeStatus writes the build event file of shard k's night, whose
// BuildFinished event says how its tests ended: Bazel's exit code
// (0 SUCCESS, 3 TESTS_FAILED); status -1 writes a build that never
// finished.
func writeStatus(t *testing.T, shards string, k, status int) {
	t.Helper()
	lines := []string{`{"id":{"started":{}},"started":{"uuid":"x","command":"test"}}`}
	switch status {
	case -1:
	case 0:
		lines = append(lines, `{"id":{"buildFinished":{}},"finished":{"overallSuccess":true,"exitCode":{"name":"SUCCESS"}}}`)
	default:
		lines = append(lines, fmt.Sprintf(`{"id":{"buildFinished":{}},"finished":{"exitCode":{"name":"TESTS_FAILED","code":%d}}}`, status))
	}
	if err := os.WriteFile(filepath.Join(shards, ShardDir(k), nightdir.Events), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
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
		status, log, merged := mergeNight(t, baseline, mapFile, shards)
		if status != 0 || !strings.Contains(log, want) || !isFile(filepath.Join(merged, "report", "index.html")) {
			t.Fatalf("night %d: exit status %d, want 0, a report and %q:\n%s", i, status, want, log)
		}
		for k := 0; k < 3; k++ {
			if !strings.Contains(log, fmt.Sprintf("shard %d: ", k)) || !strings.Contains(log, fmt.Sprintf("from perf-%d", k)) {
				t.Errorf("night %d: the merge does not name shard %d and its machine:\n%s", i, k, log)
			}
		}
		// One summary for the night, naming its machines.
		if !strings.Contains(log, "perf-0, perf-1, perf-2)") {
			t.Errorf("night %d: the summary does not name the shards' machines:\n%s", i, log)
		}
		n, err := result.OpenNight(merged, nightdir.Layout())
		if err != nil || len(n.Tests()) != 8 {
			t.Fatalf("night %d: the merged night: %v, %d tests, want 8", i, err, len(n.Tests()))
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

// firstShardedNight merges a night of three shards and gates it: the
// baseline it becomes, and its map.
func firstShardedNight(t *testing.T) (string, string) {
	t.Helper()
	needCommands(t)
	t.Setenv("BUILDKITE", "")
	baseline := filepath.Join(t.TempDir(), "baseline")
	shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	if status, log, _ := mergeNight(t, baseline, mapFile, shards); status != 0 || !isDir(baseline) {
		t.Fatalf("first night: exit status %d, want 0 and a baseline:\n%s", status, log)
	}
	return baseline, mapFile
}

// Each benchmark is compared only with its own agent's results: once the
// map moves havlak6 to another shard, its result (three times slower) is
// not compared with its old agent's, and the night says its environment
// changed; havlak7, as slow on its own agent, still regresses.
func TestMergeMovedBenchmark(t *testing.T) {
	baseline, _ := firstShardedNight(t)
	shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1, slow: "havlak6", alsoSlow: "havlak7"}), 3, "havlak6")
	status, log, _ := mergeNight(t, baseline, mapFile, shards)
	if status != 1 || !strings.Contains(log, "report: havlak7 regressed") || strings.Contains(log, "havlak6 regressed") {
		t.Errorf("havlak6 moved, havlak7 slower on its own agent: exit status %d, want 1, havlak7 regressed, havlak6 not compared:\n%s", status, log)
	}
	if !strings.Contains(log, "Environment changed") {
		t.Errorf("havlak6 moved to another agent, and the night does not say its environment changed:\n%s", log)
	}
}

// A shard that never reports, or that failed, fails the night naming its
// benchmarks and its shard; the rest are merged and gated as a night whose
// tests failed: the gate says what is MISSING, and the baseline stays.
func TestMergeMissingShard(t *testing.T) {
	baseline, mapFile := firstShardedNight(t)
	m, err := shard.Read(mapFile)
	if err != nil {
		t.Fatal(err)
	}

	shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	os.RemoveAll(filepath.Join(shards, ShardDir(2)))
	// Shard 1 failed, and lost one of its results; shard 0 passed all its
	// tests, but Bazel never said so (killed before the end).
	writeStatus(t, shards, 1, 3)
	writeStatus(t, shards, 0, -1)
	lost := m.Shards[1].Benchmarks[0]
	os.RemoveAll(filepath.Join(shards, ShardDir(1), shard.TestName(lost.Test)))

	merged := filepath.Join(t.TempDir(), "artifacts")
	var out bytes.Buffer
	err = Merge(mapFile, "", shards, merged, &out)
	var merr *MergeError
	if !errors.As(err, &merr) {
		t.Fatalf("a missing shard: %v, want a MergeError\n%s", err, out.String())
	}
	says := []string{"shard 2 never reported", "shard 1 failed: its tests ended TESTS_FAILED (exit status 3)",
		"shard 0 never said how its tests ended: " + filepath.Join(shards, ShardDir(0), nightdir.Events) + ": the build never finished",
		fmt.Sprintf("%s MISSING (shard 1, %s): no result in", lost.Name, lost.Test)}
	for _, b := range m.Shards[2].Benchmarks {
		says = append(says, fmt.Sprintf("%s MISSING (shard 2, %s): the shard never reported", b.Name, b.Test))
	}
	for _, want := range says {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the merge does not say %q:\n%v", want, err)
		}
	}
	if len(merr.Missing) != len(m.Shards[2].Benchmarks)+1 || len(merr.Failed) != 3 {
		t.Errorf("%d MISSING, want %d; %d shards failed, want 3: %v", len(merr.Missing), len(m.Shards[2].Benchmarks)+1, len(merr.Failed), merr)
	}
	// nightly merge gates what arrived as a night whose tests failed: its
	// missing benchmarks fail it, named, and it never becomes the baseline.
	before := snapshot(t, baseline)
	status, log, merged := mergeNight(t, baseline, mapFile, shards)
	n, _ := result.OpenNight(merged, nightdir.Layout())
	if status == 0 || n == nil || len(n.Tests()) != 8-len(m.Shards[2].Benchmarks)-1 || snapshot(t, baseline) != before {
		t.Errorf("the incomplete night: exit status %d, want a failure, the results that arrived gated, and the baseline kept:\n%s", status, log)
	}
	for _, want := range append(says, "**The night is incomplete**", "MISSING: the baseline has") {
		if !strings.Contains(log, want) {
			t.Errorf("the incomplete night's log does not say %q:\n%s", want, log)
		}
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
	err = Merge(mapFile, "", shards, merged, &bytes.Buffer{})
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
	if err := ShardTests(mapFile, "", 1, &out, &out); err != nil || out.String() != "//benchmarks:b_test\n//benchmarks:c_test\n" {
		t.Errorf("shard 1's tests: %q, %v", out.String(), err)
	}
	if err := ShardTests(mapFile, "", 2, &out, &out); err == nil {
		t.Error("shard 2 of 2: no error")
	}
	out.Reset()
	if err := Steps(mapFile, "", false, &out, &out); err != nil {
		t.Fatal(err)
	}
	var pipeline struct {
		Steps []step `json:"steps"`
	}
	if err := json.Unmarshal(out.Bytes(), &pipeline); err != nil || len(pipeline.Steps) != 3 {
		t.Fatalf("steps: %v, %d steps, want 3:\n%s", err, len(pipeline.Steps), out.String())
	}
	for k, s := range pipeline.Steps[:2] {
		if s.Agents["perf_shard"] != fmt.Sprint(k) || s.Command != fmt.Sprintf("tools/ci/nightly.sh --shard %d", k) || s.Concurrency != 1 ||
			!slices.Contains(s.ArtifactPaths, fmt.Sprintf("%s/shard-%d/%s", ShardArtifacts, k, nightdir.Events)) {
			t.Errorf("shard %d's step: %+v", k, s)
		}
	}
	if merge := pipeline.Steps[2]; !merge.AllowDependencyFailure || len(merge.DependsOn) != 2 || merge.Command != "tools/ci/nightly.sh --merge" {
		t.Errorf("the merge step: %+v", merge)
	}
}

// shardmap balances the manifest's tests by their durations in the
// history: with --quick, the quick tests, havlak1 and havlak6 by their
// recorded runs and wc_w, which the history lacks, at the default; the
// full-size map of the same history has no results to go by.
func TestShardMap(t *testing.T) {
	needCommands(t)
	ctx := context.Background()
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "history.sqlite")
	db, err := history.Create(ctx, dsn, history.Personal)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []string{"havlak1_quick_test", "havlak6_quick_test"} {
		if _, err := db.Ingest(ctx, filepath.Join(*fixtures, test, result.ZipName)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	type target struct {
		Label string `json:"label"`
		Spec  string `json:"spec"`
	}
	var benchmarks []map[string]any
	for _, name := range []string{"havlak1", "havlak6", "wc_w"} {
		benchmarks = append(benchmarks, map[string]any{"name": name, "kind": "program", "study": "havlak", "targets": map[string]target{
			"perf":  {"//benchmarks:" + name + "_test", "benchmarks/" + name + "_test.spec.json"},
			"quick": {"//benchmarks:" + name + "_quick_test", "benchmarks/" + name + "_quick_test.spec.json"},
		}})
	}
	manifest := filepath.Join(dir, "manifest.json")
	data, _ := json.Marshal(map[string]any{"schema_version": 1, "path": "benchmarks/manifest.json", "benchmarks": benchmarks})
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, quick := range []bool{true, false} {
		out := filepath.Join(dir, fmt.Sprintf("shards-%v.json", quick))
		var log bytes.Buffer
		err := ShardMap(ctx, ShardMapOptions{Manifest: manifest, History: dsn, Out: out, Shards: 2, Tolerance: shard.DefaultTolerance,
			DefaultSeconds: 60, Since: time.Now().AddDate(-10, 0, 0), Quick: quick, Stdout: &log})
		if err != nil {
			t.Fatalf("quick %v: %v\n%s", quick, err, log.String())
		}
		m, err := shard.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]shard.Benchmark{}
		for _, s := range m.Shards {
			for _, b := range s.Benchmarks {
				got[b.Name] = b
			}
		}
		suffix, fromHistory := "_test", 0
		if quick {
			suffix = "_quick_test"
		}
		for name, b := range got {
			if b.Test != "//benchmarks:"+name+suffix {
				t.Errorf("quick %v: %s's test %s, want %s", quick, name, b.Test, "//benchmarks:"+name+suffix)
			}
			if strings.HasPrefix(b.Duration, "history: median of 1 results") && b.Seconds > 0 && b.Seconds != 60 {
				fromHistory++
			}
		}
		if want := map[bool]int{true: 2, false: 0}[quick]; len(got) != 3 || fromHistory != want || got["wc_w"].Seconds != 60 {
			t.Errorf("quick %v: %d durations from the history, want %d; wc_w at %v s, want the default:\n%s", quick, fromHistory, want, got["wc_w"].Seconds, log.String())
		}
	}
}

// writeManifest writes a manifest of the benchmarks named, each with its
// full-size test //benchmarks:<test>.
func writeManifest(t *testing.T, tests map[string]string) string {
	t.Helper()
	var benchmarks []map[string]any
	for name, test := range tests {
		benchmarks = append(benchmarks, map[string]any{"name": name, "kind": "program", "study": "havlak", "targets": map[string]any{
			"perf": map[string]string{"label": test, "spec": "benchmarks/" + shard.TestName(test) + ".spec.json"}}})
	}
	data, _ := json.Marshal(map[string]any{"schema_version": 1, "path": "benchmarks/manifest.json", "benchmarks": benchmarks})
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A benchmark of the suite that the map does not know yet runs all the
// same: the shard's job, the steps and the merge place it alike, by the
// default rule, and name it in their logs.
func TestShardsPlaceANewBenchmark(t *testing.T) {
	needFixtures(t)
	shards, mapFile := shardNight(t, makeNight(t, nightSpec{allocs: 1}), 3)
	m, err := shard.Read(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{}
	for _, s := range m.Shards {
		for _, b := range s.Benchmarks {
			tests[b.Name] = b.Test
		}
	}
	manifest := writeManifest(t, tests)
	// The map from before havlak7 was added.
	from := slices.IndexFunc(m.Shards, func(s shard.Shard) bool { return slices.Contains(s.Tests(), tests["havlak7"]) })
	s := &m.Shards[from]
	i := slices.IndexFunc(s.Benchmarks, func(b shard.Benchmark) bool { return b.Name == "havlak7" })
	s.Seconds -= s.Benchmarks[i].Seconds
	s.Benchmarks = slices.Delete(s.Benchmarks, i, i+1)
	if err := m.Write(mapFile); err != nil {
		t.Fatal(err)
	}
	_, placements, err := m.Place(tests)
	if err != nil || len(placements) != 1 {
		t.Fatalf("placements %v, %v", placements, err)
	}
	to := placements[0].Shard
	// Its shard's job ran it, on that shard's agent.
	test := shard.TestName(tests["havlak7"])
	files := readZip(t, filepath.Join(shards, ShardDir(from), test, result.ZipName))
	os.RemoveAll(filepath.Join(shards, ShardDir(from), test))
	editResult(t, files, func(r *result.Result) { r.Environment.Machine.Hostname = fmt.Sprintf("perf-%d", to) })
	writeZip(t, filepath.Join(shards, ShardDir(to), test, result.ZipName), files)

	named := fmt.Sprintf("havlak7 (%s): not in the shard map: placed in shard %d by default", tests["havlak7"], to)
	var out, log bytes.Buffer
	if err := ShardTests(mapFile, manifest, to, &out, &log); err != nil || !strings.Contains(out.String(), tests["havlak7"]+"\n") ||
		!strings.Contains(log.String(), named) {
		t.Errorf("shard %d's tests: %v\n%s%s", to, err, out.String(), log.String())
	}
	out.Reset()
	log.Reset()
	if err := Steps(mapFile, manifest, false, &out, &log); err != nil || !strings.Contains(log.String(), named) {
		t.Errorf("steps: %v\n%s", err, log.String())
	}
	merged := filepath.Join(t.TempDir(), "artifacts")
	out.Reset()
	if err := Merge(mapFile, manifest, shards, merged, &out); err != nil || !strings.Contains(out.String(), named) {
		t.Errorf("merge: %v\n%s", err, out.String())
	}
	if n, err := result.OpenNight(merged, nightdir.Layout()); err != nil || !slices.Contains(n.Tests(), test) {
		t.Errorf("the merged night lacks %s: %v", test, err)
	}
	// Without the manifest, the map as it is: the merge refuses the test
	// it does not know.
	if err := Merge(mapFile, "", shards, filepath.Join(t.TempDir(), "artifacts"), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "is in no shard") {
		t.Errorf("merged without the manifest: %v", err)
	}
}
