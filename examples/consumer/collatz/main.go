// Command collatz finds the start below n whose Collatz sequence is the
// longest, a few times over, and prints it: the program of the example
// consumer's benchmark (../measure). Of the lab it knows one library,
// the program's side of the contract: it ends through program.Exit,
// which gives the runner its allocation figures.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"havlak-lab/tools/perf/program"
)

func main() { program.Exit(run(os.Args[1:])) }

func run(args []string) error {
	fs := flag.NewFlagSet("collatz", flag.ContinueOnError)
	n := fs.Int("n", 1000000, "look at the starts 1..`N`")
	passes := fs.Int("passes", 1, "how many times")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var start, steps int
	for p := 0; p < *passes; p++ {
		start, steps = longest(*n)
	}
	fmt.Printf("longest: %d (%d steps)\n", start, steps)
	return nil
}

// longest returns the start in 1..n (n ≥ 1) with the most steps to 1,
// the first of them on a tie, and its steps.
func longest(n int) (start, steps int) {
	start = 1
	for s := 2; s <= n; s++ {
		if k := chain(s); k > steps {
			start, steps = s, k
		}
	}
	return start, steps
}

func chain(s int) int {
	k := 0
	for x := uint64(s); x != 1; k++ {
		if x%2 == 0 {
			x /= 2
		} else {
			x = 3*x + 1
		}
	}
	return k
}
