package perfrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/perf/perfspec"
)

// profiledRun runs the program once in dir with extra arguments and
// environment, its output in the outputs' file output, or in stdout when
// it is not nil.
func (p *program) profiledRun(dir string, extra, env, args []string, output string, stdout io.Writer) error {
	cmd := exec.Command(p.binary, append(extra, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdout != nil {
		return execute(cmd, nil, stdout)
	}
	return p.runTo(cmd, output)
}

// profileCPU runs the program once with the CPU profiler; it writes
// cpu.pb.gz among the outputs.
func (p *program) profileCPU(dir string, stdout io.Writer) error {
	var raw string
	var err error
	switch p.Profiler {
	case "go":
		raw = p.outPath("cpu.pprof")
		err = p.profiledRun(dir, []string{"-cpuprofile", raw}, nil, p.args, "cpu.output.txt", stdout)
	case "cc":
		raw = p.outPath("cpu.prof")
		var lib string
		if lib, err = gperftoolsLib("libprofiler.so.0"); err != nil {
			return err
		}
		err = p.profiledRun(dir, nil, []string{"LD_PRELOAD=" + lib, "CPUPROFILE=" + raw}, p.args, "cpu.output.txt", stdout)
	}
	if err != nil {
		return err
	}
	return p.toProto(raw, p.outPath("cpu.pb.gz"))
}

// profileHeap runs the program once with the heap profiler, with the
// spec's heap arguments added; it writes heap.pb.gz among the outputs.
func (p *program) profileHeap(dir string, stdout io.Writer) error {
	args := append(append([]string{}, p.args...), p.HeapArgs...)
	var raw string
	var err error
	switch p.Heap {
	case perfspec.HeapFlag:
		// Havlak stages with -memprofile write it after one pass and stop.
		raw = p.outPath("heap.pprof")
		err = p.profiledRun(dir, []string{"-memprofile", raw}, nil, args, "heap.output.txt", stdout)
	case perfspec.HeapEnv:
		raw = p.outPath("heap.pprof")
		err = p.profiledRun(dir, nil, []string{p.HeapEnv + "=" + raw}, args, "heap.output.txt", stdout)
	case perfspec.HeapGperftools:
		var lib string
		if lib, err = gperftoolsLib("libtcmalloc.so.4"); err != nil {
			return err
		}
		prefix := p.outPath("heap")
		if err = p.profiledRun(dir, nil, []string{"HEAPPROFILE=" + prefix, "LD_PRELOAD=" + lib}, args, "heap.output.txt", stdout); err != nil {
			return err
		}
		// tcmalloc dumps heap.0001.heap, heap.0002.heap, ...; the last one,
		// written at exit, covers the whole run.
		dumps, _ := filepath.Glob(prefix + ".*.heap")
		if len(dumps) == 0 {
			return errors.New("tcmalloc wrote no heap profile")
		}
		sort.Strings(dumps)
		raw = p.outPath("heap.prof")
		if err = os.Rename(dumps[len(dumps)-1], raw); err != nil {
			return err
		}
		for _, dump := range dumps[:len(dumps)-1] {
			os.Remove(dump)
		}
	}
	if err != nil {
		return err
	}
	return p.toProto(raw, p.outPath("heap.pb.gz"))
}

// gperftoolsLib returns the path of a gperftools shared library (Debian
// package libgoogle-perftools-dev, which tools/bazel installs).
func gperftoolsLib(name string) (string, error) {
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name), nil
		}
	}
	return "", fmt.Errorf("%s not found: install Debian's libgoogle-perftools-dev (tools/bazel does)", name)
}

// toProto converts a raw profile to pprof's proto format, symbolised now,
// while the binary is at hand, so that it opens anywhere.
func (p *program) toProto(raw, out string) error {
	args := []string{"-proto", "-output", out}
	// Go profiles carry their symbols; gperftools profiles need the binary.
	if p.Profiler == "cc" {
		args = append(args, p.binary)
	}
	cmd := exec.Command(p.pprof, append(args, raw)...)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pprof cannot read the profile %s", raw)
	}
	return nil
}

// pprofTo runs pprof with args, its output in the outputs' file name and
// its standard error on ours.
func (b *bench) pprofTo(name string, args ...string) error {
	f, err := os.Create(b.outPath(name))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(b.pprof, args...)
	cmd.Stdout, cmd.Stderr = f, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pprof %s: %w", strings.Join(args, " "), err)
	}
	return f.Close()
}

// view writes pprof's -top table of the outputs' profile to the outputs'
// file name, with pprof's messages dropped; flags go before the profile.
func (b *bench) view(name, profile string, flags ...string) error {
	f, err := os.Create(b.outPath(name))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(b.pprof, append(append([]string{"-top"}, flags...), b.outPath(profile))...)
	cmd.Stdout = f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pprof -top %s: %w", profile, err)
	}
	return f.Close()
}

// quietly runs pprof with args, showing its standard error only if it
// fails: pprof announces every file it writes.
func (b *bench) quietly(args ...string) error {
	out, err := exec.Command(b.pprof, args...).CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		return fmt.Errorf("pprof %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// render writes the views of the profiles that show where the time and
// memory go: text tables and call graphs (SVG, by dot from Debian's
// graphviz).
func (p *program) render() error {
	// dot's fontconfig wants a writable cache.
	cache := os.Getenv("TEST_TMPDIR")
	if cache == "" {
		cache = os.TempDir()
	}
	os.Setenv("XDG_CACHE_HOME", filepath.Join(cache, "cache"))
	if p.Wants("cpu") {
		if err := p.renderCPU(); err != nil {
			return err
		}
	}
	if p.Wants("heap") {
		return p.renderHeap()
	}
	return nil
}

func (b *bench) renderCPU() error {
	cpu := b.outPath("cpu.pb.gz")
	if err := b.pprofTo("cpu.top.txt", "-top", cpu); err != nil {
		return err
	}
	if err := b.pprofTo("cpu.top-cum.txt", "-top", "-cum", cpu); err != nil {
		return err
	}
	if err := b.quietly("-svg", "-output", b.outPath("cpu.svg"), cpu); err != nil {
		return err
	}
	top, _ := exec.Command(b.pprof, "-top", "-nodecount=1", cpu).Output()
	if hottest := hottestFunction(string(top)); hottest != "" {
		// pprof -list of a function that has no source at hand says so in
		// the file; that is no failure.
		out, _ := exec.Command(b.pprof, "-list", "^"+regexp.QuoteMeta(hottest)+"$", "-source_path", b.runfiles, cpu).CombinedOutput()
		return os.WriteFile(b.outPath("cpu.list.txt"), out, 0o666)
	}
	return nil
}

// heapViews are the sample indexes of a heap profile's tables
// (heap.INDEX.txt), the last the one its call graph shows.
var heapViews = []string{"inuse_space", "inuse_objects", "alloc_space"}

func (b *bench) renderHeap() error {
	heap := b.outPath("heap.pb.gz")
	kept, err := sampleTypes(heap)
	if err != nil {
		return err
	}
	for _, index := range heapViews {
		if !hasIndex(kept, index) {
			note := fmt.Sprintf("The heap profile has no %s: its samples are %s. gperftools writes the allocations' "+
				"columns only when the program allocated something it kept.\n", index, strings.Join(kept, ", "))
			if err := os.WriteFile(b.outPath("heap."+index+".txt"), []byte(note), 0o666); err != nil {
				return err
			}
			continue
		}
		if err := b.pprofTo("heap."+index+".txt", "-top", "-sample_index="+index, heap); err != nil {
			return err
		}
	}
	graphed := heapViews[len(heapViews)-1]
	if !hasIndex(kept, graphed) {
		graphed = kept[len(kept)-1]
	}
	return b.quietly("-svg", "-sample_index="+graphed, "-output", b.outPath("heap.svg"), heap)
}

// hasIndex tells whether pprof's -sample_index=index finds one of a
// profile's sample types (kept): its name, or for inuse_X, X, as pprof
// reads an older heap profile's.
func hasIndex(kept []string, index string) bool {
	return slices.Contains(kept, index) || slices.Contains(kept, strings.TrimPrefix(index, "inuse_"))
}

// sampleTypes are the names of the sample types of the profile in path,
// in order; a profile of none is an error.
func sampleTypes(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var names []string
	for _, t := range p.SampleType {
		names = append(names, t.Type)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: a profile of no sample type", path)
	}
	return names, nil
}

// hottestFunction returns the function of the first row of pprof -top's
// table, the hottest by flat time, without pprof's " (inline)" mark, or "".
// The name (C++ names have spaces) follows the five number columns.
func hottestFunction(top string) string {
	rows := false
	for _, line := range strings.Split(top, "\n") {
		fields := strings.Fields(line)
		switch {
		case rows && len(fields) >= 6:
			return strings.TrimSuffix(strings.Join(fields[5:], " "), " (inline)")
		case strings.Contains(line, "flat%"):
			rows = true
		}
	}
	return ""
}
