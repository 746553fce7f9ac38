package perfrun

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/result"
)

// goTestMode runs a go_test binary's benchmarks.
func (b *bench) goTestMode(out string) (*result.Result, error) {
	env, err := b.startTest(out)
	if err != nil {
		return nil, err
	}
	g := b.GoTest
	args := []string{
		"-test.run=^$",
		"-test.bench=" + g.Bench,
		"-test.benchmem",
		fmt.Sprintf("-test.count=%d", g.Count),
		"-test.cpuprofile=" + filepath.Join(b.out, "cpu.pprof"),
		"-test.memprofile=" + filepath.Join(b.out, "heap.pprof"),
	}
	if g.Benchtime != "" {
		args = append(args, "-test.benchtime="+g.Benchtime)
	}
	f, err := os.Create(filepath.Join(b.out, benchFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := execute(exec.Command(b.binary, args...), nil, io.MultiWriter(os.Stdout, f)); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if b.matchesRE(benchFile, regexp.MustCompile(`^Benchmark`)) == 0 {
		fmt.Fprintf(os.Stderr, "go_bench: no benchmark matched -test.bench=%s\n", g.Bench)
		return nil, cli.ExitError{Status: 1}
	}
	for _, view := range []struct{ file, profile string }{
		{"cpu.top.txt", "cpu.pprof"},
		{"cpu.top-cum.txt", "cpu.pprof"},
		{"heap.alloc_space.txt", "heap.pprof"},
		{"heap.alloc_objects.txt", "heap.pprof"},
	} {
		if err := b.view(view.file, view.profile); err != nil {
			return nil, err
		}
	}
	return b.writeResult(&result.Result{Environment: env, GoBench: benchFile})
}
