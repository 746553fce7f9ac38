package perfrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"havlak-lab/tools/perf/cachegrind"
)

// printCountedRun is what `bazel run` shows of a C or C++ program next to
// xtime's line, as a Go program shows its allocations: its instructions
// counted by Cachegrind in one run on the counted workload, the exact
// figure the gate judges, where xtime's times move by 10% from run to
// run. The run happens in the runner's directory (the runfiles), where the
// counted arguments' data files are. A count that cannot be taken is said
// and does not fail the run, whose times are already printed.
func (p *program) printCountedRun() {
	if err := p.countedRun(); err != nil {
		fmt.Fprintf(os.Stderr, "perf: instructions: unavailable: %v\n", err)
	}
}

func (p *program) countedRun() error {
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "counted-run")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := withOutputs(p.Counted.Args, tmp)
	counts, err := cachegrind.Run{
		Valgrind: valgrind, Program: p.binary, Args: args,
		Out: filepath.Join(tmp, "cachegrind.out"), Stdout: io.Discard,
	}.Count()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d instructions on the counted workload (%s), counted by Cachegrind: exact, the figure the gate judges\n",
		counts.Total, strings.Join(args, " "))
	return nil
}
