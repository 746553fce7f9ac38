package night

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/internal/bazelcmd"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/labrepo"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// A night of a workspace, whole, in one command (`nightly run`): what a
// workspace that loads the lab runs on its schedule (docs/adopting.md's
// pipeline), with nothing of this repository's CI scripts. It asks Bazel
// for the workspace's manifest, tests its full-size benchmarks with the
// count actions of their layout variants, collects their outputs and
// gates the night. The flags the night's results depend on are the
// command's, not a .bazelrc's: who started the run (result.OriginEnv, which
// decides whether the night may become the baseline and enter the
// history) and the commit it measured (the lab's workspace status
// script). tools/ci/nightly.sh does the same here, sharded.

// RunOptions is a night of the workspace at Workspace.
type RunOptions struct {
	// Workspace is the workspace's top directory (cli.WorkspaceRoot).
	Workspace string
	// ManifestTarget names the manifest when the workspace declares
	// several (perfspec.ManifestFlag); "" is the one it declares.
	ManifestTarget string
	// BazelArgs go on the night's Bazel commands after the night's own
	// flags: a config of the workspace's .bazelrc, say.
	BazelArgs []string
	// Gate gates the night; its Artifacts is where the night is made: a
	// new or empty directory.
	Gate GateOptions
}

// statusScript is the lab's workspace status command, relative to the
// lab's top directory: what every result records of its source.
const statusScript = "tools/workspace_status.sh"

// Run makes and gates a night of the workspace's benchmarks. Its error
// carries the exit status: 1 when the tests or the gate failed (the gate
// having said why), 2 for bad usage.
func Run(o RunOptions) error {
	artifacts := absolute(cli.UserPath(o.Gate.Artifacts))
	if err := checkNewNight(artifacts); err != nil {
		return err
	}
	log := cli.Terminal(o.Gate.Stderr)
	bazel := bazelcmd.Runner(o.Workspace, log)
	label, g, err := perfspec.QueryManifest(bazel, o.ManifestTarget)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	full, err := perfspec.DeclaredTargets(g, label, result.ConfigPerf)
	if err != nil {
		return err
	}
	var tests []string
	for _, test := range full {
		tests = append(tests, test)
	}
	slices.Sort(tests)
	if len(tests) == 0 {
		return fmt.Errorf("the manifest %s declares no full-size benchmark: the night has nothing to run", label)
	}
	status, err := labSource(o.Workspace, bazel, statusScript)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		return err
	}
	flags := append(nightFlags(filepath.Join(artifacts, nightdir.Events), status), o.BazelArgs...)
	// The manifest, built in the night's configuration: where its paths
	// lead in bazel-bin, the counts of the layout variants among them.
	if err := bazel(log, append(append([]string{"build"}, flags...), label)...); err != nil {
		return fmt.Errorf("building the benchmarks' manifest %s: %w", label, err)
	}
	rel, err := perfspec.ManifestFile(label)
	if err != nil {
		return err
	}
	manifest, err := filepath.EvalSymlinks(perfspec.Built(o.Workspace, rel))
	if err != nil {
		return fmt.Errorf("the manifest %s was built, but: %w", label, err)
	}
	var counts bytes.Buffer
	if err := LayoutTargets(manifest, tests, &counts); err != nil {
		return err
	}
	targets := append(tests, strings.Fields(counts.String())...)
	fmt.Fprintf(o.Gate.Stdout, "--- the night: bazel test of %d benchmarks and %d counts of layout variants (%s)\n",
		len(tests), len(targets)-len(tests), label)
	testErr := bazel(o.Gate.Stdout, append(append([]string{"test"}, flags...), targets...)...)
	return o.collectAndGate(artifacts, manifest, testErr)
}

// collectAndGate collects the night's tests' outputs into artifacts and
// gates it: a night whose tests failed (testErr) never becomes the
// baseline, and one whose collect failed fails as incomplete.
func (o RunOptions) collectAndGate(artifacts, manifest string, testErr error) error {
	fmt.Fprintln(o.Gate.Stdout, "--- collecting the tests' outputs")
	events := filepath.Join(artifacts, nightdir.Events)
	// The build's own links, resolved now: bazel run's next build moves them.
	testlogs, _ := filepath.EvalSymlinks(filepath.Join(o.Workspace, result.Testlogs))
	bazelBin, _ := filepath.EvalSymlinks(filepath.Join(o.Workspace, "bazel-bin"))
	dirs, collectErr := Collect(events, testlogs, artifacts)
	for _, dir := range dirs {
		fmt.Fprintln(o.Gate.Stdout, cli.Field(dir))
	}
	if collectErr == nil {
		_, collectErr = CollectLayoutVariants(manifest, events, bazelBin, artifacts)
	}
	if collectErr != nil {
		fmt.Fprintf(o.Gate.Stderr, "nightly: collect: %s\n", cli.Printable(collectErr.Error()))
	}
	gate := o.Gate
	gate.Artifacts, gate.Manifest = artifacts, manifest
	gate.TestsFailed, gate.CollectFailed = testErr != nil, collectErr != nil
	gateErr := Gate(gate)
	if testErr != nil {
		return errors.Join(fmt.Errorf("the night's bazel test failed: %w", testErr), quiet(gateErr))
	}
	return gateErr
}

// quiet is err without the exit status the gate already explained.
func quiet(err error) error {
	if errors.As(err, new(cli.ExitError)) {
		return nil
	}
	return err
}

// nightFlags are the flags of the night's Bazel commands: its tests run
// whatever the workspace's tag filter (they are named), anew, one at a
// time; its build event file is events; its results record the workspace's
// commit (the lab's status script, status) and who started the run.
func nightFlags(events, status string) []string {
	flags := []string{
		"--test_tag_filters=",
		"--nocache_test_results",
		"--local_test_jobs=1",
		"--build_event_json_file=" + events,
		"--workspace_status_command=" + status,
	}
	for _, name := range result.OriginEnv {
		flags = append(flags, "--test_env="+name)
	}
	return flags
}

// labSource is the lab's source file rel as the workspace's Bazel has it:
// in the workspace when the lab is the main repository, else in the
// external repository Bazel fetched into its output base.
func labSource(workspace string, bazel func(io.Writer, ...string) error, rel string) (string, error) {
	dir := workspace
	if labrepo.Dir() != "" {
		var out bytes.Buffer
		if err := bazel(&out, "info", "output_base"); err != nil {
			return "", fmt.Errorf("asking Bazel for its output base, where the lab is: %w", err)
		}
		dir = filepath.Join(strings.TrimSpace(out.String()), filepath.FromSlash(labrepo.Dir()))
	}
	path := filepath.Join(absolute(dir), filepath.FromSlash(rel))
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("the lab's %s is not at %s: %v", rel, path, err)
	}
	return path, nil
}

// checkNewNight refuses a night's directory that exists and is not empty:
// an earlier night's outputs must not pass for tonight's, and nothing of
// what is there is the night's to remove.
func checkNewNight(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return cli.Usagef("%s: %v", dir, err)
	case len(entries) > 0:
		return cli.Usagef("%s is not empty (%s, …): a night is made in a new or empty directory; remove it or name another",
			dir, cli.Field(entries[0].Name()))
	}
	return nil
}
