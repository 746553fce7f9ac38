// Command stepdir keeps a CI step's private directory, where
// tools/ci/bazel_ci.sh puts BuildBuddy's key and the unscrubbed build
// event file, outside the checkout (docs/security.md):
//
//	stepdir open -pid PID      # under tools/bazel run: prints DIR
//	DIR/stepdir key DIR        # the key from $STEPDIR_KEY: prints the rc file
//	DIR/stepdir close -events FILE DIR
//	DIR/stepdir fork           # prints whose pull request, if a fork's
//
// open makes $XDG_RUNTIME_DIR (else $TMPDIR, else /tmp)/havlak-lab-ci-UID,
// mode 700, if it is not there, and refuses one that is not this user's
// alone; removes from it everything but the directories of steps that
// still run (step-PID-START: the process PID with that start time, from
// /proc), which a step killed before its cleanup (kill -9, a lost agent)
// leaves; makes step-PID-START, mode 700, for the step's process PID;
// copies this program into it, so the step's later commands and its
// cleanup run it without Bazel; and prints its path.
//
// key writes the rc file that gives Bazel the key (build
// --remote_header=x-buildbuddy-api-key=…, mode 600) into DIR and prints its
// path. The key comes from the environment, never the command line, which
// ps shows.
//
// close, with $STEPDIR_KEY set, copies DIR/bazel-events.json to FILE with
// every occurrence of the key replaced by REDACTED (Bazel records its
// command line, rc files included, in the build event stream), then
// removes DIR.
//
// fork prints "pull request #N from REPOSITORY" when the build is a pull
// request from another repository than the pipeline's
// (BUILDKITE_PULL_REQUEST_REPO is not BUILDKITE_REPO, whatever the form of
// their git URLs), which bazel_ci.sh treats as untrusted, and nothing
// otherwise.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/ci/stepdir/step"
)

// selfName is the name of this program's copy in a step's directory.
const selfName = "stepdir"

func main() { cli.Exit(run(os.Args[1:], os.Stdout)) }

const usage = "usage: stepdir open -pid PID | stepdir key DIR | stepdir close -events FILE DIR | stepdir fork"

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef(usage)
	}
	fs := flag.NewFlagSet("stepdir "+args[0], flag.ContinueOnError)
	var pid int
	var events string
	switch args[0] {
	case "open":
		fs.IntVar(&pid, "pid", 0, "the step's process (bazel_ci.sh's)")
	case "close":
		fs.StringVar(&events, "events", "", "where the scrubbed build event file goes")
	case "key", "fork":
	default:
		return cli.Usagef(usage)
	}
	if help, err := cli.ParseFlags(fs, args[1:]); help || err != nil {
		return err
	}
	switch {
	case args[0] == "open" && pid > 0 && fs.NArg() == 0:
		dir, err := step.Open(step.Base(os.Getenv), "/proc", pid)
		if err != nil {
			return err
		}
		if err := step.CopySelf(filepath.Join(dir, selfName)); err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, dir)
		return err
	case args[0] == "key" && fs.NArg() == 1:
		rc, err := step.WriteKeyRC(fs.Arg(0), os.Getenv(step.KeyEnv))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, rc)
		return err
	case args[0] == "close" && events != "" && fs.NArg() == 1:
		return step.Close(fs.Arg(0), events, os.Getenv(step.KeyEnv))
	case args[0] == "fork" && fs.NArg() == 0:
		if from := step.Fork(os.Getenv); from != "" {
			_, err := fmt.Fprintln(stdout, from)
			return err
		}
		return nil
	}
	return cli.Usagef(usage)
}
