package main

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"havlak-lab/tools/result"
)

// writeResult writes result.json last, listing every file of the outputs:
// the timing of a program's runs, or the Go benchmark lines of a go_test.
func (b *bench) writeResult(env result.Environment, timing *result.Timing, goBench string, metrics []result.Metric) error {
	files, err := b.files(goBench)
	if err != nil {
		return err
	}
	r := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Benchmark:     b.Benchmark,
		Environment:   env,
		Timing:        timing,
		GoBench:       goBench,
		Metrics:       metrics,
		Files:         files,
	}
	if err := result.Write(b.out, r); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "perf: %s: %s lists %d files\n", b.Benchmark.Name, result.FileName, len(files))
	return nil
}

// profileNames are the profiles a file's name can start with.
var profileNames = []string{"cpu", "heap", "allocs", "goroutine", "block", "mutex"}

// classify gives a file of the outputs its role, and for a profile or a
// view of one which profile, after its name; have holds every name.
//
//	cpu.pb.gz, heap.pb.gz         profile (pprof's proto, symbolised); a
//	                              server's also allocs, goroutine, block,
//	                              mutex (profileNames)
//	cpu.pprof, heap.pprof         profile when no .pb.gz of it is there
//	                              (a go_test's), else data (the raw one)
//	cpu.prof, heap.prof           data (gperftools' raw format)
//	cpu.*.txt, heap.*.txt         view (pprof's tables), but
//	output.txt, *.output.txt      output (what a run printed)
//	*.svg                         graph
//	trace.out                     trace
//	anything else                 data (xtime.json, bench.txt, an image)
func classify(name string, have map[string]bool) result.File {
	base := path.Base(name)
	profile, rest, _ := strings.Cut(base, ".")
	if !slices.Contains(profileNames, profile) {
		profile = ""
	}
	f := result.File{Name: name, Role: result.RoleData}
	switch {
	case base == "output.txt" || strings.HasSuffix(base, ".output.txt"):
		f.Role = result.RoleOutput
		return f
	case base == "trace.out":
		f.Role = result.RoleTrace
		return f
	case profile == "":
		return f
	case rest == "pb.gz":
		f.Role = result.RoleProfile
	case rest == "pprof" && !have[path.Join(path.Dir(name), profile+".pb.gz")]:
		f.Role = result.RoleProfile
	case strings.HasSuffix(rest, ".txt"):
		f.Role = result.RoleView
	case strings.HasSuffix(rest, "svg"):
		f.Role = result.RoleGraph
	default:
		return f
	}
	f.Profile = profile
	return f
}
