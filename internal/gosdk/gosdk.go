// Package gosdk finds the go command for the lab's tools that run it
// themselves (bisect's go builds, buildbarn's build of its module).
package gosdk

import (
	"os"
	"path/filepath"
)

// Command is $GO, else under `bazel run` the workspace's pinned Go SDK (a
// runfile of the tool: the lab's modules need a newer Go than Debian
// bookworm's golang-go, which is 1.19), else go on PATH.
func Command() string {
	if goCmd := os.Getenv("GO"); goCmd != "" {
		return goCmd
	}
	if os.Getenv("BUILD_WORKSPACE_DIRECTORY") != "" {
		// bazel run starts programs in their runfiles' workspace directory.
		if sdk, err := filepath.Abs(filepath.Join("..", "go_sdk", "bin", "go")); err == nil {
			if _, err := os.Stat(sdk); err == nil {
				return sdk
			}
		}
	}
	return "go"
}
