package check

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"havlak-lab/internal/labrepo"
	"havlak-lab/tools/perf/perfrun"
	"havlak-lab/tools/result"
)

// HarnessTargets are what the base builds for its Harness: the runner and
// the worker its counts are declared for.
var HarnessTargets = []string{labrepo.Label("//tools/perf/runner"), "@count_worker//:worker.json"}

// A Harness is the base's runner (//tools/perf/runner), which measures
// both sides of a check. The change contributes its benchmarks' binaries
// and declared runs, the files of its quick tests' runfiles; how they are
// run, counted and read is the base's. So a change that edits the runner
// (a count scaled, a figure dropped) is measured as any other. (The own
// view of a change that edits the gate, which decides nothing, is
// measured by the change's runner instead: what its own tools would say.)
type Harness struct {
	// Runner is the base's runner binary.
	Runner string
	// Worker is the base's @count_worker//:worker.json: the machine the
	// counts are declared for (result.CountWorker).
	Worker string
	// Log receives the runner's output.
	Log io.Writer
}

// harnessTimeout bounds one measurement: a quick workload takes seconds,
// a server's rounds a minute.
const harnessTimeout = 15 * time.Minute

// NewHarness is the harness of a base built in workspace (HarnessTargets
// built there), whose Bazel output base is outputBase.
func NewHarness(workspace, outputBase string, log io.Writer) Harness {
	return Harness{
		Runner: labrepo.BinPath(workspace, "tools/perf/runner/runner_/runner"),
		Worker: filepath.Join(outputBase, "external", "count_worker", "worker.json"),
		Log:    log,
	}
}

// Measure measures t as built in workspace, in dir (which it makes), and
// returns where its result is. A program with a count action is counted
// as that action counts (the runner's count mode, on a runfiles tree of
// its quick test's files); any other benchmark's quick test is run as
// bazel test runs it (the runner's mode in the test's runfiles, its
// outputs in dir/outputs). A failing run's result, when it wrote one, is
// returned all the same: it says why.
func (h Harness) Measure(t Target, workspace, dir string) (string, error) {
	testDir, err := t.TestDir()
	if err != nil {
		return "", err
	}
	name, err := workspaceNameOf(workspace)
	if err != nil {
		return "", err
	}
	runfiles := filepath.Join(workspace, "bazel-bin", testDir+".runfiles")
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), harnessTimeout)
	defer cancel()
	var cmd *exec.Cmd
	var out string
	// PATH as Bazel gives every action of the lab (--incompatible_strict_action_env).
	env := []string{"PATH=/bin:/usr/bin:/usr/local/bin", "TMPDIR=" + tmp}
	if t.Counts != "" {
		inputs := filepath.Join(dir, "inputs")
		if err := perfrun.ManifestInputs(filepath.Join(runfiles, "MANIFEST"), name, inputs); err != nil {
			return "", err
		}
		out = filepath.Join(dir, result.ZipName)
		cmd = exec.CommandContext(ctx, h.Runner, "count", t.Spec, h.Worker, inputs, out)
		cmd.Dir = dir
	} else {
		out = filepath.Join(dir, "outputs")
		if err := os.MkdirAll(out, 0o755); err != nil {
			return "", err
		}
		cmd = exec.CommandContext(ctx, h.Runner, t.Mode, t.Spec)
		cmd.Dir = filepath.Join(runfiles, name)
		env = append(env, "HOME="+tmp, "TEST_TMPDIR="+tmp, "TEST_UNDECLARED_OUTPUTS_DIR="+out,
			"TEST_SRCDIR="+runfiles, "RUNFILES_DIR="+runfiles, "TEST_WORKSPACE="+name, "TEST_TARGET="+t.Test)
	}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = h.Log, h.Log
	fmt.Fprintf(h.Log, "perfcheck: measuring %s in %s: %s\n", t.Benchmark, workspace, strings.Join(cmd.Args, " "))
	runErr := cmd.Run()
	if runErr == nil {
		return out, nil
	}
	// A failing quick test's result says why; a failing count has none.
	if _, err := os.Stat(filepath.Join(out, result.FileName)); t.Counts == "" && err == nil {
		return out, nil
	}
	return "", fmt.Errorf("the runner on %s: %w", t.Benchmark, runErr)
}
