package perfrun

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"havlak-lab/tools/result"
)

// writeResult writes result.json last, listing every file of the outputs:
// r is what the mode measured (the environment, the timing of a
// program's runs, the Go benchmark lines of a go_test, a server's load),
// to which it adds the benchmark, its identity (perfspec: the sums of its
// binary and declared run, and the lab's version) and the files; it
// returns r.
func (b *bench) writeResult(r *result.Result) (*result.Result, error) {
	skip := []string{r.GoBench, r.LineCounts}
	for _, name := range r.FigureLineCounts {
		skip = append(skip, name)
	}
	files, err := b.files(skip...)
	if err != nil {
		return nil, err
	}
	identity, err := b.Identity(b.runfiles)
	if err != nil {
		return nil, err
	}
	// The lab's version: this runner, the one measuring, whoever built
	// the benchmark (the perf check's base runs its own on the change's
	// files), and the xtime it ran.
	runner, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the runner's own binary, for the lab's version: %w", err)
	}
	if identity.LabSHA256, err = b.LabSHA256(runner, b.runfiles); err != nil {
		return nil, err
	}
	r.SchemaVersion = result.SchemaVersion
	r.Identity = &identity
	r.Benchmark = b.Benchmark
	r.Files = files
	if err := result.Write(b.out, r); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "perf: %s: %s lists %d files\n", b.Benchmark.Name, result.FileName, len(files))
	return r, nil
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

// files lists every file in the outputs but result.json and skip (the
// files a field of the result names), with its role, in name order.
func (b *bench) files(skip ...string) ([]result.File, error) {
	var names []string
	err := filepath.WalkDir(b.out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, err := filepath.Rel(b.out, path)
		if err == nil && !slices.Contains(skip, name) && name != "result.json" {
			names = append(names, filepath.ToSlash(name))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	have := map[string]bool{}
	for _, name := range names {
		have[name] = true
	}
	files := make([]result.File, len(names))
	for i, name := range names {
		files[i] = classify(name, have)
	}
	return files, nil
}
