// Package bazelcmd says which Bazel builds a workspace, for the lab's
// tools that build and query one: this repository, a copy of it, or
// another repository that loads the lab.
//
// A workspace's own tools/bazel comes first: it is this repository's
// entry point (it installs, once, the Debian packages a fresh machine
// lacks, /usr/bin/bazel among them), and the convention of Bazel's own
// launcher and of bazelisk for a workspace's wrapper. A workspace without
// one is built by the bazel on PATH, which is then the user's choice.
package bazelcmd

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Wrapper is where a workspace keeps its own entry point to Bazel,
// relative to its top directory.
const Wrapper = "tools/bazel"

// Path is the Bazel that builds the workspace at dir: its Wrapper when it
// has one that can be run, else "bazel", which exec looks up on PATH.
func Path(dir string) string {
	wrapper := filepath.Join(dir, filepath.FromSlash(Wrapper))
	if info, err := os.Stat(wrapper); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
		return wrapper
	}
	return "bazel"
}

// Command is the command that runs the workspace's Bazel (Path) with
// args, in dir.
func Command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(Path(dir), args...)
	cmd.Dir = dir
	return cmd
}

// Runner runs the workspace's Bazel at dir, as the lab's tools that ask
// it things do (perfspec.QueryManifest, `bazel info`): each call runs
// Bazel with its args, its standard output to stdout and its standard
// error to log.
func Runner(dir string, log io.Writer) func(stdout io.Writer, args ...string) error {
	return func(stdout io.Writer, args ...string) error {
		cmd := Command(dir, args...)
		cmd.Stdout, cmd.Stderr = stdout, log
		return cmd.Run()
	}
}
