package perfrun

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"havlak-lab/internal/complexity"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/result"
)

// sweep counts the program under Cachegrind once at each size of the
// spec's sweep (perfspec.Sweep) and fits the order of the gated count's
// growth (package internal/complexity): the result's sweep, which the gate
// judges beside the counted figures (tools/verdict's Policy.Compare). One run
// a size: the counts are exact for C and C++ programs and move by 0.01% at
// most for a Go program's own instructions (docs/noise.md), far below what
// separates two orders.
func (p *program) sweep() (*result.Sweep, error) {
	sw := p.Sweep
	valgrind, err := cachegrind.Valgrind()
	if err != nil {
		return nil, err
	}
	goProgram := p.Profiler == "go"
	figure := cachegrind.GatedMetric(goProgram)
	s := &result.Sweep{Figure: figure, Unit: result.UnitInstructions, N: sw.N, Gated: true, Threshold: countThreshold,
		Source: "cachegrind, one run a size: " + p.binaryName()}
	// What the sweep costs, for docs/regressions.md: shown, never judged.
	start := time.Now()
	for i, point := range sw.Points {
		fmt.Fprintf(os.Stderr, "perf: %s: sweep, N = %d %s (%d of %d, Cachegrind)\n", p.Benchmark.Name, point.N, sw.N, i+1, len(sw.Points))
		output := fmt.Sprintf("sweep.%d.output.txt", point.N)
		f, err := os.Create(p.outPath(output))
		if err != nil {
			return nil, err
		}
		args := withOutputs(point.Args, p.out)
		counts, err := cachegrind.Run{
			Valgrind: valgrind, Program: p.binary, Args: args, GoProgram: goProgram, Env: CountEnvironment(os.Environ()),
			Out: p.outPath(fmt.Sprintf("sweep.%d.cachegrind.out", point.N)), Stdout: f,
		}.Count()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if point.Expect != "" {
			expect, err := regexp.Compile(point.Expect)
			if err != nil {
				return nil, fmt.Errorf("sweep point %d: expect: %w", point.N, err)
			}
			if data, _ := os.ReadFile(p.outPath(output)); countMatches(data, expect) == 0 {
				os.Stderr.Write(data)
				return nil, fmt.Errorf("sweep point %d: no line of %s matches '%s': the run did not make the size it claims", point.N, output, point.Expect)
			}
		}
		value, err := counts.Metric(figure)
		if err != nil {
			return nil, err
		}
		s.Points = append(s.Points, result.SweepPoint{N: float64(point.N), Args: point.Args, Value: float64(value)})
	}
	best, all, err := complexity.Best(s.Sizes(), s.Values())
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	s.Fit = best
	var others []string
	for _, f := range all {
		if f.Order != best.Order {
			others = append(others, fmt.Sprintf("%s %.3f%%", f.Order, 100*f.RMS))
		}
	}
	fmt.Fprintf(os.Stderr, "perf: %s: %s grows as %s (other orders' RMS: %s); the sweep took %.1f s\n",
		p.Benchmark.Name, figure, best, strings.Join(others, ", "), time.Since(start).Seconds())
	return s, nil
}

// binaryName is the program's file name, as the counted runs' source
// names it.
func (p *program) binaryName() string {
	name := p.binary
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}
