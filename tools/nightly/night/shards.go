package night

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/nightly/shard"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/runrecord"
)

// ShardMapOptions are what ShardMap runs on: `nightly shardmap`'s flags.
type ShardMapOptions struct {
	// Manifest is the benchmarks' manifest file (perfspec.Manifest): the
	// benchmarks, each sharded by its perf target.
	Manifest string
	// History is the results history's DSN; "" is the lab's local one
	// (history.LocalDSN).
	History string
	// Out is the map's file; a map already there is the previous one,
	// whose shards the benchmarks keep when they can.
	Out string
	// Shards is how many perf agents share the suite.
	Shards int
	// Tolerance is shard.Generate's.
	Tolerance float64
	// DefaultSeconds is the duration of a benchmark the history has no
	// result of.
	DefaultSeconds float64
	// Since bounds the results read: those that started after it.
	Since time.Time
	// Quick maps the benchmarks' quick tests and their durations on the
	// quick workload instead: a map to rehearse the sharded night on one
	// machine in minutes (docs/nightly.md#shards), never the nightly's.
	Quick  bool
	Stdout io.Writer
}

// recentResults is how many of a benchmark's newest results its duration
// is the median of.
const recentResults = 7

// ShardMap writes the shard map (shard.Map) of the manifest's full-size
// benchmarks across o.Shards agents, balanced by each one's duration in
// the history (the median of its newest results, each the time its timed
// and profiled runs took: measuredSeconds) or o.DefaultSeconds for one
// without, and keeping each on the shard the previous map at o.Out gave
// it within o.Tolerance: `nightly shardmap`. It prints the shards, the
// benchmarks that took the default, and the moves.
func ShardMap(ctx context.Context, o ShardMapOptions) error {
	switch {
	case o.Shards < 1:
		return cli.Usagef("--shards %d: want at least 1", o.Shards)
	case o.DefaultSeconds <= 0:
		return cli.Usagef("--default-seconds %v: want a duration", o.DefaultSeconds)
	case o.Manifest == "" || o.Out == "":
		return cli.Usagef("shardmap needs --manifest and --out")
	}
	m, err := perfspec.ReadManifest(cli.UserPath(o.Manifest))
	if err != nil {
		return err
	}
	out := cli.UserPath(o.Out)
	var previous *shard.Map
	if _, err := os.Lstat(out); err == nil {
		if previous, err = shard.Read(out); err != nil {
			return fmt.Errorf("the previous map: %w", err)
		}
	}
	dsn := o.History
	if dsn == "" {
		if dsn, err = history.LocalDSN(); err != nil {
			return err
		}
	} else if !strings.Contains(dsn, "://") {
		dsn = "sqlite:" + cli.UserPath(strings.TrimPrefix(dsn, "sqlite:"))
	}
	db, err := history.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	config, workload := result.ConfigPerf, result.WorkloadStandard
	if o.Quick {
		config, workload = result.ConfigQuick, result.WorkloadQuick
	}
	var benchmarks []shard.Benchmark
	for _, b := range m.Benchmarks {
		t, err := b.Target(config)
		if err != nil {
			continue // no test of that config: not in the suite
		}
		sb := shard.Benchmark{Name: b.Name, Test: t.Label}
		sb.Seconds, sb.Duration, err = duration(ctx, db, b.Name, config, workload, o.Since)
		if err != nil {
			return err
		}
		if sb.Seconds == 0 {
			sb.Seconds, sb.Duration = o.DefaultSeconds, "default: no result of the "+workload+" workload in the history"
			fmt.Fprintf(o.Stdout, "%s: no result of the %s workload in the history since %s: the default, %.0f s\n",
				cli.Field(b.Name), workload, o.Since.Format(time.DateOnly), o.DefaultSeconds)
		}
		benchmarks = append(benchmarks, sb)
	}
	next, err := shard.Generate(benchmarks, o.Shards, previous, o.Tolerance)
	if err != nil {
		return err
	}
	if err := next.Write(out); err != nil {
		return err
	}
	for _, s := range next.Shards {
		fmt.Fprintf(o.Stdout, "shard %d: %d benchmarks, %.0f s\n", s.Index, len(s.Benchmarks), s.Seconds)
	}
	for _, mv := range next.Moved {
		fmt.Fprintf(o.Stdout, "moved: %s from shard %d to %d: its timings start a new baseline on that agent\n",
			cli.Field(mv.Name), mv.From, mv.To)
	}
	fmt.Fprintf(o.Stdout, "%s: %d benchmarks on %d shards, the longest %.0f s, %d moved\n",
		out, len(benchmarks), len(next.Shards), next.Longest(), len(next.Moved))
	return nil
}

// duration is the median of the measured durations of the benchmark's
// newest results of the build config and workload since since, and what
// it is; 0 when the history has none.
func duration(ctx context.Context, db *history.DB, name, config, workload string, since time.Time) (float64, string, error) {
	stored, err := db.Results(ctx, history.ResultQuery{Benchmark: name, Workload: workload, From: since}, history.MaxResults)
	if err != nil {
		return 0, "", err
	}
	var seconds []float64
	newest := ""
	for i := len(stored) - 1; i >= 0 && len(seconds) < recentResults; i-- {
		s := stored[i]
		if s.Result.Environment.Build.Config != config {
			continue
		}
		out := s.Outputs()
		sec := measuredSeconds(s.Result, out)
		out.Close()
		if sec > 0 {
			seconds = append(seconds, sec)
			if newest == "" {
				newest = s.Result.Environment.Started
			}
		}
	}
	if len(seconds) == 0 {
		return 0, "", nil
	}
	slices.Sort(seconds)
	median := seconds[len(seconds)/2]
	if len(seconds)%2 == 0 {
		median = (seconds[len(seconds)/2-1] + seconds[len(seconds)/2]) / 2
	}
	return median, fmt.Sprintf("history: median of %d results, the newest started %s", len(seconds), newest), nil
}

// measuredSeconds is how long a result's measurement took, as far as the
// result tells: a program's runs' real seconds summed (timed and
// profiled), a server's warm-up, rounds, profiled and traced windows, a Go
// benchmark's iterations times their time per op; 0 when it does not tell
// (a Go benchmark whose lines are gone with its source).
func measuredSeconds(r *result.Result, out result.Outputs) float64 {
	sum := 0.0
	if r.Timing != nil {
		for _, run := range r.Timing.Runs {
			sum += run.RealSeconds
		}
	}
	if s := r.Server; s != nil {
		sum += s.Load.WarmupSeconds + s.Load.ProfileSeconds + s.Load.TraceSeconds
		for _, round := range s.Rounds {
			sum += round.Seconds
		}
	}
	if r.GoBench != "" {
		if lines, _, err := result.GoBench(r, out); err == nil {
			for _, line := range lines {
				for _, v := range line.Values {
					switch v.Unit {
					case "sec/op":
						sum += float64(line.Iters) * v.Value
					case "ns/op":
						sum += float64(line.Iters) * v.Value / 1e9
					}
				}
			}
		}
	}
	return sum
}

// ShardTests prints the labels of shard k's tests, one a line: the
// target pattern file tools/ci/nightly.sh --shard K gives bazel test. With
// the manifest, the suite's benchmarks the map does not know are placed
// (shard.Place) and named on stderr.
func ShardTests(mapFile, manifest string, k int, stdout, stderr io.Writer) error {
	m, err := shard.ReadPlaced(cli.UserPath(mapFile), manifest, stderr)
	if err != nil {
		return err
	}
	s, err := m.Shard(k)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	for _, test := range s.Tests() {
		fmt.Fprintln(stdout, test)
	}
	return nil
}

// ShardDir is the name of shard k's night among the shards' results
// (Merge).
func ShardDir(k int) string { return "shard-" + strconv.Itoa(k) }

// A Missing is a benchmark of the map whose result the merged night
// lacks, with its shard and why.
type Missing struct {
	Shard      int
	Name, Test string
	Why        string
}

// A MergeError is a merge that wrote the night but found shards that
// failed or never reported, and the benchmarks it lacks: the night fails.
type MergeError struct {
	// Failed names the shards whose tests failed or that never said how
	// they ended.
	Failed []string
	// Missing are the benchmarks the night lacks.
	Missing []Missing
}

func (e *MergeError) Error() string {
	return fmt.Sprintf("the night is incomplete: %d shards failed or never reported, %d benchmarks MISSING\n  %s",
		len(e.Failed), len(e.Missing), strings.Join(e.Lines(), "\n  "))
}

// Lines are the shards that failed, then the benchmarks MISSING, one a
// line: what the night's summary lists.
func (e *MergeError) Lines() []string {
	lines := slices.Clone(e.Failed)
	for _, m := range e.Missing {
		lines = append(lines, fmt.Sprintf("%s MISSING (shard %d, %s): %s", m.Name, m.Shard, m.Test, m.Why))
	}
	return lines
}

// Merge merges the shards' nights under shards, SHARDS/shard-K/<test>/
// outputs.zip with SHARDS/shard-K/bazel-events.json (what nightly collect
// leaves for tools/ci/nightly.sh --shard K) for each shard K of the map,
// into one night at dest (result.Night), which must not exist or be
// empty: `nightly merge` without the gate. It refuses, before writing
// anything, a shard's directory that is not a night, a test the map does
// not give to the shard it came from (named with both shards: a benchmark
// is compared only with its own agent's results), and a shard whose
// results come from more than one machine. It writes every result there
// is; then a shard whose build did not pass (its event file's
// BuildFinished: tests failed, or Bazel never said how it ended), and
// every benchmark without a result (a shard's directory missing, or
// lacking some) make a *MergeError, which names them with their shards.
// It prints each shard's machine and count. With the manifest, the map is
// the one the shards ran (shard.Place), its placements named.
func Merge(mapFile, manifest, shards, dest string, stdout io.Writer) error {
	_, err := merge(mapFile, manifest, shards, dest, stdout)
	return err
}

// merge is Merge, which also returns each shard of the map as it found
// it, for the run's record (runrecord.Shard); none when it refused the
// shards.
func merge(mapFile, manifest, shards, dest string, stdout io.Writer) ([]runrecord.Shard, error) {
	mapFile, shards, dest = cli.UserPath(mapFile), cli.UserPath(shards), cli.UserPath(dest)
	m, err := shard.ReadPlaced(mapFile, manifest, stdout)
	if err != nil {
		return nil, refused("the merge refused the shard map", err)
	}
	if err := result.Apart("the shards' results", shards, "the merged night", dest); err != nil {
		return nil, refused(refusedMergeDest, cli.Usagef("%v: refused", err))
	}
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return nil, refused(refusedMergeDest, cli.Usagef("%s: not empty: the merged night is written into a new directory", dest))
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, refused(refusedMergeDest, err)
	}
	var found []runrecord.Shard
	owner := map[string]int{} // a test's name: the shard the map gives it
	for _, s := range m.Shards {
		for _, b := range s.Benchmarks {
			owner[shard.TestName(b.Test)] = s.Index
		}
	}
	var refusals []string
	var merr MergeError
	zips := map[string]string{} // test name: its outputs.zip
	var opened []string         // the shards' nights
	for _, s := range m.Shards {
		dir := filepath.Join(shards, ShardDir(s.Index))
		rec := runrecord.Shard{Index: s.Index, State: runrecord.Reported, Expected: len(s.Benchmarks)}
		if !isDir(dir) {
			merr.Failed = append(merr.Failed, fmt.Sprintf("shard %d never reported: no %s", s.Index, dir))
			rec.State, rec.Why = runrecord.Missing, "never reported"
			for _, b := range s.Benchmarks {
				merr.Missing = append(merr.Missing, Missing{s.Index, b.Name, b.Test, "the shard never reported"})
				rec.Missing = append(rec.Missing, b.Name)
			}
			found = append(found, rec)
			continue
		}
		if code, name, err := buildExit(filepath.Join(dir, nightdir.Events)); err != nil {
			merr.Failed = append(merr.Failed, fmt.Sprintf("shard %d never said how its tests ended: %v", s.Index, err))
			rec.State, rec.Why = runrecord.ShardFailed, "never said how its tests ended"
		} else if code != 0 {
			merr.Failed = append(merr.Failed, fmt.Sprintf("shard %d failed: its tests ended %s (exit status %d)", s.Index, name, code))
			rec.State, rec.Why = runrecord.ShardFailed, fmt.Sprintf("its tests ended %s (exit status %d)", name, code)
		}
		n, err := result.OpenNight(dir, nightdir.Layout())
		if err != nil {
			refusals = append(refusals, fmt.Sprintf("shard %d: %v", s.Index, err))
			continue
		}
		opened = append(opened, dir)
		hosts := map[string][]string{}
		for _, test := range n.Tests() {
			k, ok := owner[test]
			switch {
			case !ok:
				refusals = append(refusals, fmt.Sprintf("%s: the test %s is in no shard of %s", n.Zip(test), test, mapFile))
				continue
			case k != s.Index:
				refusals = append(refusals, fmt.Sprintf("%s: the test %s ran on shard %d, but %s gives it to shard %d: its results are compared only with its own agent's",
					n.Zip(test), test, s.Index, mapFile, k))
				continue
			}
			zips[test] = n.Zip(test)
			if r, out, err := result.Read(n.Zip(test)); err == nil {
				hosts[r.Environment.Machine.Hostname] = append(hosts[r.Environment.Machine.Hostname], test)
				out.Close()
			}
		}
		if len(hosts) > 1 {
			refusals = append(refusals, severalMachines(s.Index, hosts))
		}
		for host := range hosts {
			fmt.Fprintf(stdout, "shard %d: %d of %d results, from %s\n", s.Index, len(n.Tests()), len(s.Benchmarks), cli.Field(host))
		}
		for _, b := range s.Benchmarks {
			if _, ok := zips[shard.TestName(b.Test)]; !ok {
				merr.Missing = append(merr.Missing, Missing{s.Index, b.Name, b.Test, "no result in " + dir})
				rec.Missing = append(rec.Missing, b.Name)
			} else {
				rec.Results++
			}
		}
		found = append(found, rec)
	}
	if len(refusals) > 0 {
		return nil, refused("the merge refused the shards' results",
			fmt.Errorf("%s: not merged (%d refused):\n  %s", shards, len(refusals), strings.Join(refusals, "\n  ")))
	}
	if err := writeMerged(dest, zips, opened); err != nil {
		return nil, refused("the merge could not write the merged night", err)
	}
	fmt.Fprintf(stdout, "%s: one night of %d results from %d shards\n", dest, len(zips), len(m.Shards))
	if len(merr.Failed) > 0 || len(merr.Missing) > 0 {
		return found, &merr
	}
	return found, nil
}

// refusedMergeDest is what the run's record says of a merge refused for
// where it was to write the merged night.
const refusedMergeDest = "the merge refused the merged night's directory: not new, nor empty, nor apart from the shards"

// severalMachines refuses a shard whose results came from more than one
// machine (hosts: a host name's tests).
func severalMachines(index int, hosts map[string][]string) string {
	var machines []string
	for host, tests := range hosts {
		machines = append(machines, fmt.Sprintf("%q (%s)", host, strings.Join(tests, ", ")))
	}
	sort.Strings(machines)
	return fmt.Sprintf("shard %d: results from %d machines, %s: a shard is one agent's", index, len(hosts), strings.Join(machines, ", "))
}

// writeMerged writes the merged night into dest, a new directory: each
// test's outputs.zip (zips: a test's name, its file) and the layout
// variants' counts the shards' nights (dirs) keep, checked as a night.
func writeMerged(dest string, zips map[string]string, dirs []string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	for _, test := range slices.Sorted(maps.Keys(zips)) {
		if err := copyCapped(zips[test], result.NightZip(dest, test)); err != nil {
			return err
		}
	}
	for _, dir := range dirs {
		if _, err := copyLayoutVariants(dir, dest); err != nil {
			return err
		}
	}
	_, err := result.OpenNight(dest, nightdir.Layout())
	return err
}

// MergeOptions are what MergeNight runs on: `nightly merge`'s flags.
type MergeOptions struct {
	// Map is the shard map (benchmarks/shards.json); Manifest, when set,
	// the suite it is placed against (shard.Place).
	Map, Manifest string
	// Shards holds the shards' nights, SHARDS/shard-K; run by a Buildkite
	// agent, they are first downloaded there from the build's shard
	// steps (ShardArtifacts, which must then be its name).
	Shards string
	// Gate gates the merged night, written into Gate.Artifacts.
	Gate GateOptions
}

// MergeNight is `nightly merge`: the shards' nights (downloaded first
// when a Buildkite agent runs it) merged into one night (Merge), gated
// once (Gate): one report, one gate, one history ingest. A merge that
// found a shard failed or missing results still gates what arrived, as a
// night whose tests failed and that is incomplete: the log and the
// summary name the shards and their benchmarks, the night fails and never
// becomes the baseline. A merge refused writes nothing and is not gated;
// its run is recorded in the history's archive alone (writeRun), the
// merged night's directory being none the lab made.
func MergeNight(o MergeOptions) error {
	started := time.Now()
	o.Gate.Sharded = true
	merr, err := o.mergeShards()
	if err != nil {
		o.Gate.refusedNight(started).writeRun(err)
		return err
	}
	if merr != nil {
		fmt.Fprintf(o.Gate.Stderr, "nightly: %s\n", cli.Printable(merr.Error()))
		o.Gate.TestsFailed, o.Gate.Incomplete = true, merr.Lines()
	}
	return Gate(o.Gate)
}

// mergeShards checks the gate's options and the baseline, then merges the
// shards into the night, o.Gate.Shards each as it found it: what it found
// failed or missing is a *MergeError, any other error a refusal, before
// the gate read the night.
func (o *MergeOptions) mergeShards() (*MergeError, error) {
	if err := o.Gate.check(); err != nil {
		return nil, refused("the gate refused its options", err)
	}
	// The baseline is refused before the merge writes the night.
	if _, err := o.Gate.stateDirs(); err != nil {
		return nil, err
	}
	if err := downloadShards(cli.UserPath(o.Shards), o.Gate.Stdout, o.Gate.Stderr); err != nil {
		return nil, refused("the merge refused the shards' directory", err)
	}
	found, err := merge(o.Map, o.Manifest, o.Shards, o.Gate.Artifacts, o.Gate.Stdout)
	var merr *MergeError
	if err != nil && !errors.As(err, &merr) {
		return nil, err
	}
	o.Gate.Shards = found
	return merr, nil
}

// downloadShards replaces shards with the shards' results of this build,
// which their steps uploaded (Steps), when a Buildkite agent runs the
// merge; elsewhere (by hand, three shards simulated on one machine) they
// are where the shards' jobs left them. A shard that uploaded nothing
// leaves nothing to download, which the merge names: a download that
// fails is reported, not fatal.
func downloadShards(shards string, stdout, stderr io.Writer) error {
	if os.Getenv("BUILDKITE") == "" {
		return nil
	}
	if filepath.Base(shards) != ShardArtifacts {
		return cli.Usagef("%s: run by Buildkite, the shards' results are downloaded into %s, where the shard steps uploaded them from", shards, ShardArtifacts)
	}
	if err := os.RemoveAll(shards); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "--- :buildkite: Downloading the shards' results")
	cmd := exec.Command("buildkite-agent", "artifact", "download", ShardArtifacts+"/*", ".")
	cmd.Dir, cmd.Stdout, cmd.Stderr = filepath.Dir(shards), stdout, stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "nightly: downloading the shards' results: %v (the merge names what is missing)\n", err)
	}
	return nil
}
