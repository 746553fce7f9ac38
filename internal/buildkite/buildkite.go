// Package buildkite posts what a lab's tool found where a Buildkite job
// shows it: an annotation of the build. The nightly gate posts the night's
// table, the perf check its comment; outside a Buildkite job neither posts
// anything, and the file the tool wrote is all there is.
package buildkite

import (
	"io"
	"os"
	"os/exec"
	"strings"
)

// Annotator returns what posts markdown as the build's annotation of
// context, in a style of Buildkite's ("success", "error"), when a Buildkite
// agent runs the job ($BUILDKITE, buildkite-agent in PATH), else nil. An
// annotation of the same context replaces the last. The agent's output
// goes to stdout and stderr.
func Annotator(context string, stdout, stderr io.Writer) func(style, markdown string) error {
	if os.Getenv("BUILDKITE") == "" {
		return nil
	}
	agent, err := exec.LookPath("buildkite-agent")
	if err != nil {
		return nil
	}
	return func(style, markdown string) error {
		cmd := exec.Command(agent, "annotate", "--style", style, "--context", context)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(markdown+"\n"), stdout, stderr
		return cmd.Run()
	}
}
