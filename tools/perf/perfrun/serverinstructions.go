package perfrun

// A server's own instructions per request: the server run under
// Cachegrind (the collector off, cachegrind.GoEnv) twice, sent its
// targets round-robin one request after another on one connection, once
// for a short pass and once for a longer one, then stopped by SIGTERM.
// What the longer run executed more, over the requests it got more, is
// what a request costs: the start, the ready check and the shutdown
// cancel out.

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/loadgen"
	"havlak-lab/tools/result"
)

// metricOwnInstructionsPerRequest names the figure in result.json.
const metricOwnInstructionsPerRequest = result.MetricOwnInstructionsPerRequest

// The two runs of a repetition send at least this many requests each,
// rounded up to whole passes over the targets, so that every target
// counts as often whatever the file holds.
const (
	shortRequests, longRequests = 250, 1000
	// instructionRepetitions is how many values the figure has: two
	// server runs each, a few seconds under Valgrind (docs/noise.md).
	instructionRepetitions = 2
)

// instructionsPerRequest measures the figure; a machine without Valgrind
// leaves it unavailable, saying so, and any other failure is an error.
func (b *bench) instructionsPerRequest(targets []loadgen.Target) (result.Metric, error) {
	n1, n2 := wholePasses(shortRequests, len(targets)), wholePasses(longRequests, len(targets))
	m := result.Metric{Name: metricOwnInstructionsPerRequest, Unit: "instructions/request", Cost: result.CostWork,
		Source: fmt.Sprintf("cachegrind, own instructions of the server sent %d and then %d requests of its %d targets, one at a time on one connection, the difference per request",
			n1, n2, len(targets))}
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		m.Unavailable = err.Error()
		return m, nil
	}
	for i := 1; i <= instructionRepetitions; i++ {
		var own [2]uint64
		for j, n := range []int{n1, n2} {
			c, err := b.countServer(valgrind, targets, n, fmt.Sprintf("server.cachegrind.%d.%d", i, n))
			if err != nil {
				return m, err
			}
			own[j] = c.Own
		}
		if own[1] < own[0] {
			return m, fmt.Errorf("the server's own instructions: %d after %d requests, %d after %d: fewer for more", own[0], n1, own[1], n2)
		}
		m.Values = append(m.Values, float64(own[1]-own[0])/float64(n2-n1))
	}
	m.Gated, m.Threshold = true, serverInstructionThreshold
	return m, nil
}

// wholePasses is at least n requests, in whole passes over targets.
func wholePasses(n, targets int) int { return (n + targets - 1) / targets * targets }

// countServer runs the server under Cachegrind, its profiling rates 0 (a
// sampled profile draws random numbers), sends it n requests and stops
// it; name names Cachegrind's file and the server's output in the
// outputs.
func (b *bench) countServer(valgrind string, targets []loadgen.Target, n int, name string) (cachegrind.Counts, error) {
	// One P: net/http's read in the background of each request, started
	// and then cancelled, runs or not as the threads meet; on one P the
	// scheduler runs it the same way request after request (0.2% apart
	// instead of 1%, docs/noise.md).
	env := append(os.Environ(), "GOMAXPROCS=1")
	run := cachegrind.Run{Valgrind: valgrind, Program: b.binary, GoProgram: true, Env: env, Out: b.outPath(name + ".out")}
	s, err := b.startServerCommand(func(flags []string) *exec.Cmd {
		run.Args = append(append(flags, "-blockprofilerate=0", "-mutexprofilefraction=0"), withOutputs(b.Args, b.out)...)
		return run.Command()
	}, b.outPath(name+".output.txt"), nil)
	if err != nil {
		return cachegrind.Counts{}, fmt.Errorf("under Cachegrind: %w", err)
	}
	// Under Valgrind a request takes some 50 times as long.
	serr := loadgen.SendInOrder(s.addr, targets, n, b.expectRE, 30*time.Second)
	exit := s.stop()
	if serr != nil {
		return cachegrind.Counts{}, fmt.Errorf("under Cachegrind: %w", serr)
	}
	if !exit.Clean {
		return cachegrind.Counts{}, fmt.Errorf("under Cachegrind, the server did not shut down cleanly: %s, exit status %d (%s)",
			exit.Signal, exit.ExitStatus, b.outPath(name+".output.txt"))
	}
	c, err := cachegrind.ReadFile(run.Out)
	if err != nil {
		return c, err
	}
	return c, needSymbols(c, run.Out)
}

// needSymbols fails unless Cachegrind named the Go program's functions:
// without them (a stripped binary) nothing tells its own instructions
// from the runtime's.
func needSymbols(c cachegrind.Counts, file string) error {
	if _, ok := c.Functions["main.main"]; !ok {
		return fmt.Errorf("%s names no main.main: without the server's symbols Cachegrind cannot tell its own instructions from the Go runtime's", file)
	}
	return nil
}
