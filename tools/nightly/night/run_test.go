package night

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/result"
)

// fakeWorkspace is a workspace whose tools/bazel logs its arguments, one
// call a line, to the returned file and prints what answer holds (a query
// of no target: nothing).
func fakeWorkspace(t *testing.T, answer string) (dir, calls string) {
	t.Helper()
	dir = t.TempDir()
	calls = filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\necho \"$*\" >>'" + calls + "'\nprintf '%s' '" + answer + "'\n"
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "bazel"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, calls
}

func TestRunRefusesANightThatIsNotNew(t *testing.T) {
	workspace, calls := fakeWorkspace(t, "")
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	earlier := filepath.Join(artifacts, "havlak6_test", "outputs.zip")
	if err := os.MkdirAll(filepath.Dir(earlier), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, []byte("last night's"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Run(RunOptions{Workspace: workspace, Gate: GateOptions{Artifacts: artifacts, Stdout: io.Discard, Stderr: io.Discard}})
	if cli.Status(err) != 2 || !strings.Contains(err.Error(), "not empty (havlak6_test") {
		t.Fatalf("Run of a directory holding a night = %v (status %d), want it refused as not empty, by name", err, cli.Status(err))
	}
	if data, err := os.ReadFile(earlier); err != nil || string(data) != "last night's" {
		t.Errorf("the earlier night's zip is %q, %v: want it untouched", data, err)
	}
	if _, err := os.Stat(calls); !os.IsNotExist(err) {
		t.Errorf("Bazel ran for a refused night (%v)", err)
	}
}

func TestRunOfAWorkspaceWithoutManifest(t *testing.T) {
	workspace, calls := fakeWorkspace(t, "")
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	err := Run(RunOptions{Workspace: workspace, Gate: GateOptions{Artifacts: artifacts, Stdout: io.Discard, Stderr: io.Discard}})
	if cli.Status(err) != 2 || !strings.Contains(err.Error(), "declares no benchmark_manifest") {
		t.Fatalf("Run in a workspace of no manifest = %v (status %d), want bad usage naming the manifest", err, cli.Status(err))
	}
	if _, err := os.Stat(artifacts); !os.IsNotExist(err) {
		t.Errorf("the night's directory was made for a night that never ran (%v)", err)
	}
	logged, err := os.ReadFile(calls)
	if err != nil || !strings.HasPrefix(string(logged), "query --output=xml") || strings.Count(string(logged), "\n") != 1 {
		t.Errorf("Bazel was called %q (%v): want one query of the manifest, then nothing", logged, err)
	}
}

func TestNightFlags(t *testing.T) {
	flags := nightFlags("/night/bazel-events.json", "/lab/tools/workspace_status.sh")
	for _, want := range []string{
		// Named tests run whatever the workspace filters out by tag
		// (its full-size tests are "perf", which a .bazelrc leaves out).
		"--test_tag_filters=",
		"--nocache_test_results",
		"--build_event_json_file=/night/bazel-events.json",
		"--workspace_status_command=/lab/tools/workspace_status.sh",
	} {
		if !slices.Contains(flags, want) {
			t.Errorf("the night's flags %q lack %s", flags, want)
		}
	}
	// Every variable the results' origin is read from reaches the tests:
	// without them no night would be trusted, promoted or kept.
	for _, name := range result.OriginEnv {
		if !slices.Contains(flags, "--test_env="+name) {
			t.Errorf("the night's flags do not pass %s to the tests", name)
		}
	}
}

func TestLabSourceInTheLab(t *testing.T) {
	workspace, calls := fakeWorkspace(t, "")
	if _, err := labSource(workspace, nil, statusScript); err == nil || !strings.Contains(err.Error(), statusScript) {
		t.Errorf("labSource of a workspace without %s = %v, want an error naming it", statusScript, err)
	}
	if err := os.WriteFile(filepath.Join(workspace, filepath.FromSlash(statusScript)), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := labSource(workspace, nil, statusScript)
	if want := filepath.Join(workspace, "tools", "workspace_status.sh"); err != nil || got != want {
		t.Errorf("labSource = %q, %v; want %q", got, err, want)
	}
	if _, err := os.Stat(calls); !os.IsNotExist(err) {
		t.Errorf("Bazel was asked where the lab is, in the lab (%v)", err)
	}
}
