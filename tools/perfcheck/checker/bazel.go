package checker

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"havlak-lab/internal/bazelcmd"
)

// bazelArgs adds to a build or a test --noremote_upload_local_results,
// and the disk cache when there is one. A --config among args (the
// counts' config, --counts-config: the cluster's remote executor and
// cache) comes first, so that the flag still wins over what the config
// sets (a config's own --remote_upload_local_results would otherwise);
// with one, there is no disk cache, which Bazel cannot combine with
// remote execution ("Cannot combine gRPC based remote execution with disk
// caching"): the cluster is that build's cache.
func bazelArgs(args []string, diskCache string) []string {
	if len(args) == 0 || (args[0] != "build" && args[0] != "test") {
		return args
	}
	var configs, rest []string
	for _, arg := range args[1:] {
		if strings.HasPrefix(arg, "--config=") {
			configs = append(configs, arg)
		} else {
			rest = append(rest, arg)
		}
	}
	flags := slices.Concat([]string{args[0]}, configs, []string{"--noremote_upload_local_results"})
	if diskCache != "" && len(configs) == 0 {
		// Bazel 4 applies --noremote_upload_local_results to the disk cache
		// too, unless told not to: the disk cache is written, a remote one
		// never.
		flags = append(flags, "--disk_cache="+diskCache, "--incompatible_remote_results_ignore_disk")
	}
	return append(flags, rest...)
}

// bazel runs the checkout's Bazel (bazelcmd: its tools/bazel, else the
// bazel on PATH) in it, its output going to the Bazel log. A build or
// test never uploads to a remote cache, whatever the checkout's settings:
// the change's code, or the base's, is not to be trusted with it; both
// use the check's disk cache, but the base's builds with the counts'
// config, which the cluster executes and keeps.
func (c *checker) bazel(dir string, args ...string) error {
	return c.bazelTo(c.bazelLog, dir, args...)
}

// bazelTo runs the checkout's Bazel (bazelcmd), its standard output going
// to stdout and its standard error to the Bazel log; when it fails, the
// log's end is printed.
func (c *checker) bazelTo(stdout io.Writer, dir string, args ...string) error {
	args = bazelArgs(args, c.diskCache)
	if dir == c.base {
		c.baseUsed = true
	}
	start, _ := c.bazelLog.Seek(0, io.SeekCurrent)
	cmd := bazelcmd.Command(dir, args...)
	cmd.Stdout, cmd.Stderr = stdout, c.bazelLog
	err := cmd.Run()
	if err != nil {
		fmt.Fprintf(c.log, "perfcheck: bazel %s failed; the end of its output (all of it in %s):\n", args[0], c.bazelLog.Name())
		end, _ := c.bazelLog.Seek(0, io.SeekCurrent)
		from := max(start, end-4096)
		tail := make([]byte, end-from)
		c.bazelLog.ReadAt(tail, from)
		c.log.Write(tail)
	}
	return err
}
