package gosdk

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommand(t *testing.T) {
	runfiles := t.TempDir()
	sdk := filepath.Join(runfiles, "go_sdk", "bin", "go")
	workspace := filepath.Join(runfiles, "_main")
	for _, dir := range []string{filepath.Dir(sdk), workspace} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(workspace)

	t.Setenv("GO", "")
	t.Setenv("BUILD_WORKSPACE_DIRECTORY", "")
	if got := Command(); got != "go" {
		t.Errorf("outside bazel run: %q, want go on PATH", got)
	}
	t.Setenv("BUILD_WORKSPACE_DIRECTORY", "/somewhere")
	if got := Command(); got != "go" {
		t.Errorf("under bazel run without the SDK: %q, want go on PATH", got)
	}
	if err := os.WriteFile(sdk, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Command(); got != sdk {
		t.Errorf("under bazel run: %q, want the SDK's %s", got, sdk)
	}
	t.Setenv("GO", "/opt/go/bin/go")
	if got := Command(); got != "/opt/go/bin/go" {
		t.Errorf("with $GO set: %q, want $GO", got)
	}
}
