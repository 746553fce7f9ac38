// Command toy is the program of a made-up study (tools/perf/testing): it
// sums the squares of 1..n, a few times over, and prints the sum, with a
// CPU profile on request, as the lab's benchmark programs do.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"havlak-lab/internal/cli"
)

func main() { cli.Exit(run(os.Args[1:])) }

func run(args []string) error {
	fs := flag.NewFlagSet("toy", flag.ContinueOnError)
	n := fs.Int("n", 1000000, "sum the squares of 1..`N`")
	passes := fs.Int("passes", 10, "how many times")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(cli.UserPath(*cpuProfile))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var sum uint64
	for p := 0; p < *passes; p++ {
		sum = sumOfSquares(*n)
	}
	fmt.Printf("sum: %d\n", sum)
	return nil
}

func sumOfSquares(n int) uint64 {
	var sum uint64
	for i := 1; i <= n; i++ {
		sum += uint64(i) * uint64(i)
	}
	return sum
}
