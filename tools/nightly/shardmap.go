package main

import (
	"context"
	"flag"
	"io"
	"os"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/nightly/night"
	"havlak-lab/tools/nightly/shard"
)

// runShardMap reads shardmap's flags and writes the map.
func runShardMap(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nightly shardmap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := night.ShardMapOptions{Stdout: stdout}
	fs.StringVar(&o.Manifest, "manifest", "", "the benchmarks' manifest `FILE`, a benchmark_manifest's JSON under bazel-bin (this repository's: bazel-bin/benchmarks/manifest.json)")
	fs.StringVar(&o.History, "history", os.Getenv("HAVLAK_LAB_HISTORY"), "the results history's `DSN` (default: the lab's local history)")
	fs.StringVar(&o.Out, "out", "", "the map's `FILE` (this repository's: benchmarks/shards.json); a map there is the previous one")
	fs.IntVar(&o.Shards, "shards", 0, "how many perf agents (`N`) share the suite")
	fs.Float64Var(&o.Tolerance, "tolerance", shard.DefaultTolerance, "how much longer than the best balance the longest shard may be while no benchmark moves (a `fraction`)")
	fs.Float64Var(&o.DefaultSeconds, "default-seconds", shard.DefaultSeconds, "the duration, in `seconds`, of a benchmark without full-size results in the history")
	days := fs.Int("since", 30, "read the results of the last `DAYS` days")
	fs.BoolVar(&o.Quick, "quick", false, "map the quick tests, by their durations on the quick workload: to rehearse a sharded night on one machine, never the nightly's map")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.Usagef("shardmap wants flags only\n%s", usage)
	}
	if *days < 1 {
		return cli.Usagef("--since %d: want a number of days, at least 1", *days)
	}
	o.Since = time.Now().AddDate(0, 0, -*days)
	return night.ShardMap(context.Background(), o)
}
