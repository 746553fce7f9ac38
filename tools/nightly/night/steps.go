package night

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/nightly/shard"
	"havlak-lab/tools/result"
)

// The keys of the nightly job's generated steps.
const (
	shardStepKey = "nightly-perf-shard-"
	mergeStepKey = "nightly-perf-merge"
)

// ShardArtifacts is the directory a shard's job leaves its night in,
// ShardArtifacts/shard-K/<test>/outputs.zip with the build's event file
// ShardArtifacts/shard-K/bazel-events.json (tools/ci/nightly.sh --shard),
// uploaded, and where the merge step downloads them all.
const ShardArtifacts = "shard-artifacts"

// step is one Buildkite command step, with the keys of
// .buildkite/pipeline.yml's steps.
type step struct {
	Label                  string            `json:"label"`
	Key                    string            `json:"key"`
	Command                string            `json:"command"`
	DependsOn              []string          `json:"depends_on,omitempty"`
	AllowDependencyFailure bool              `json:"allow_dependency_failure,omitempty"`
	Agents                 map[string]string `json:"agents"`
	Concurrency            int               `json:"concurrency"`
	ConcurrencyGroup       string            `json:"concurrency_group"`
	TimeoutInMinutes       int               `json:"timeout_in_minutes"`
	ArtifactPaths          []string          `json:"artifact_paths"`
	Retry                  retry             `json:"retry"`
}

type retry struct {
	Automatic []automatic `json:"automatic"`
}

type automatic struct {
	ExitStatus int `json:"exit_status"`
	Limit      int `json:"limit"`
}

// agentGone retries a step only when its agent went away: lost (-1),
// killed (137) or stopped (143); failing tests never retry.
var agentGone = retry{Automatic: []automatic{{-1, 1}, {137, 1}, {143, 1}}}

// Steps writes the nightly job's steps for the map, as JSON that
// `buildkite-agent pipeline upload` reads, to stdout, or uploads them with
// it when upload is set: one step per shard, on the perf
// agent tagged perf_shard=K (the same machine every night: a benchmark is
// compared only with its own agent's results), one job at a time on it;
// then the merge step, after every shard whatever its outcome (a shard
// that failed or never reported fails the night, named, in the merge), on
// shard 0's agent, which keeps the baseline and the history: `nightly
// steps [--upload]`. With the manifest, the suite's benchmarks the map
// does not know are placed (shard.Place) and named on stderr.
func Steps(mapFile, manifest string, upload bool, stdout, stderr io.Writer) error {
	m, err := shard.ReadPlaced(cli.UserPath(mapFile), manifest, stderr)
	if err != nil {
		return err
	}
	var steps []step
	var keys []string
	for _, s := range m.Shards {
		k := strconv.Itoa(s.Index)
		dir := ShardArtifacts + "/" + ShardDir(s.Index)
		steps = append(steps, step{
			Label:            fmt.Sprintf(":stopwatch: nightly benchmarks, shard %d (%d benchmarks)", s.Index, len(s.Benchmarks)),
			Key:              shardStepKey + k,
			Command:          "tools/ci/nightly.sh --shard " + k,
			Agents:           map[string]string{"queue": "perf", "arch": "amd64", "perf_shard": k},
			Concurrency:      1,
			ConcurrencyGroup: "havlak-lab/nightly-perf-shard-" + k,
			// Its benchmarks, 5 timed runs plus profiled runs each, on a
			// cold agent: as the whole suite's step had.
			TimeoutInMinutes: 240,
			ArtifactPaths: []string{dir + "/*/" + result.ZipName, dir + "/" + nightdir.Events,
				dir + "/" + nightdir.LayoutVariants + "/*/*.zip"},
			Retry: agentGone,
		})
		keys = append(keys, shardStepKey+k)
	}
	steps = append(steps, step{
		Label:                  ":stopwatch: nightly benchmarks, merged and gated",
		Key:                    mergeStepKey,
		Command:                "tools/ci/nightly.sh --merge",
		DependsOn:              keys,
		AllowDependencyFailure: true,
		Agents:                 map[string]string{"queue": "perf", "arch": "amd64", "perf_shard": "0"},
		Concurrency:            1,
		ConcurrencyGroup:       "havlak-lab/nightly-perf-shard-0",
		TimeoutInMinutes:       60,
		ArtifactPaths:          []string{"artifacts/*/" + result.ZipName, "artifacts/report/**/*", "artifacts/exports/**/*"},
		Retry:                  agentGone,
	})
	data, err := json.MarshalIndent(map[string][]step{"steps": steps}, "", "  ")
	if err != nil {
		return err
	}
	if !upload {
		_, err = fmt.Fprintf(stdout, "%s\n", data)
		return err
	}
	// The agent reads the pipeline from a file, whose name says it is JSON.
	dir, err := os.MkdirTemp("", "nightly-steps-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "steps.json")
	if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("buildkite-agent", "pipeline", "upload", file)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("buildkite-agent pipeline upload: %w", err)
	}
	return nil
}
