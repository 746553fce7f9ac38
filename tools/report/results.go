package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// A Result is what one benchmark's test left behind: its timed runs,
// profiles and rendered call graphs.
type Result struct {
	Name     string // the benchmark, e.g. "havlak6"
	Kind     string // "go" or "cc"
	Language string // for people: "Go", "C++", ...
	Quick    bool   // from a quick test, on the reduced workload
	Source   string // the zip or directory it was read from

	Command string
	Args    []string
	Host    Host
	Runs    []Run

	CPU  *profile.Profile // nil when missing or unreadable
	Heap *profile.Profile
	// Graphs holds pprof's rendered call graphs by file name (cpu.svg,
	// heap.svg), to be copied next to the report.
	Graphs map[string][]byte

	// Problems lists what could not be read; the report shows what it can.
	Problems []string
}

// Host is the machine facts xtime records.
type Host struct {
	Hostname   string `json:"hostname"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Kernel     string `json:"kernel"`
	CPUModel   string `json:"cpu_model"`
	Cores      int    `json:"cores"`
	GoVersion  string `json:"go_version"`
	GCCVersion string `json:"gcc_version"`
}

// Run is one timed run, as xtime records it.
type Run struct {
	Start       string  `json:"start"`
	ExitStatus  int     `json:"exit_status"`
	UserSeconds float64 `json:"user_seconds"`
	SysSeconds  float64 `json:"sys_seconds"`
	RealSeconds float64 `json:"real_seconds"`
	MaxRSSKiB   int64   `json:"max_rss_kib"`
}

// The files of a benchmark's outputs the report reads.
const (
	benchmarkFile = "benchmark.json"
	xtimeFile     = "xtime.json"
	cpuProfile    = "cpu.pb.gz"
	heapProfile   = "heap.pb.gz"
)

var graphFiles = []string{"cpu.svg", "heap.svg"}

// files is a benchmark's outputs, whether zipped or in a directory.
type files interface {
	read(name string) ([]byte, error)
	// path names a file for people: dir/name, or outputs.zip:name.
	path(name string) string
}

type dirFiles string

func (d dirFiles) read(name string) ([]byte, error) {
	return os.ReadFile(d.path(name))
}

func (d dirFiles) path(name string) string { return filepath.Join(string(d), name) }

type zipFiles struct {
	*zip.Reader
	zipPath string
}

func (z zipFiles) read(name string) ([]byte, error) {
	f, err := z.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (z zipFiles) path(name string) string { return z.zipPath + ":" + name }

// readProblem describes why name could not be read.
func readProblem(f files, name string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return f.path(name) + ": missing"
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	return fmt.Sprintf("%s: %v", f.path(name), err)
}

// FindResults collects the results under the roots: every outputs.zip (as
// Bazel leaves them in its testlogs, or as CI uploads them) and every
// directory holding an xtime.json (an unpacked one). When there are results
// of full-size tests, quick ones are left out: their timings do not
// compare. Of several results for one benchmark (testlogs of several
// configurations, say), the newest is kept. Unreadable results are returned
// with their Problems.
func FindResults(roots ...string) ([]*Result, error) {
	var results []*Result
	for _, root := range roots {
		found, err := findResults(root)
		if err != nil {
			return nil, err
		}
		results = append(results, found...)
	}
	full := false
	for _, r := range results {
		full = full || !r.Quick && len(r.Runs) > 0
	}
	newest := map[string]*Result{}
	var kept []*Result
	for _, r := range results {
		if full && r.Quick {
			continue
		}
		if other, ok := newest[r.Name]; ok {
			if r.Started() > other.Started() {
				*other = *r // in place: kept holds other
			}
			continue
		}
		newest[r.Name] = r
		kept = append(kept, r)
	}
	sort.SliceStable(kept, func(i, j int) bool { return stageLess(kept[i], kept[j]) })
	return kept, nil
}

// Started is when the result's first run started, "" without runs.
func (r *Result) Started() string {
	if len(r.Runs) == 0 {
		return ""
	}
	return r.Runs[0].Start
}

func findResults(root string) ([]*Result, error) {
	var results []*Result
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && path != root && d.Type()&fs.ModeSymlink == 0:
			if _, err := os.Stat(filepath.Join(path, xtimeFile)); err == nil {
				if r := readResult(path, nameFromPath(filepath.Join(path, xtimeFile)), dirFiles(path)); r != nil {
					results = append(results, r)
				}
				return fs.SkipDir
			}
		case d.Name() == "outputs.zip":
			if r := readZip(path); r != nil {
				results = append(results, r)
			}
		}
		return nil
	})
	return results, err
}

func readZip(path string) *Result {
	data, err := os.ReadFile(path)
	if err == nil {
		var z *zip.Reader
		if z, err = zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
			return readResult(path, nameFromPath(path), zipFiles{z, path})
		}
	}
	return &Result{
		Name:     nameFromPath(path),
		Source:   path,
		Quick:    strings.Contains(path, "_quick_test"),
		Problems: []string{fmt.Sprintf("%s: %v", path, err)},
	}
}

// nameFromPath guesses a benchmark's name from where its outputs are, for
// when benchmark.json cannot tell: .../havlak6_test/test.outputs/outputs.zip,
// or artifacts/havlak6_test/xtime.json.
func nameFromPath(path string) string {
	for dir := filepath.Dir(path); dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		if base := filepath.Base(dir); base != "test.outputs" {
			return strings.TrimSuffix(strings.TrimSuffix(base, "_test"), "_quick")
		}
	}
	return path
}

// readResult reads the outputs of one benchmark, or returns nil for those
// of a go_benchmark (Benchmark functions, for benchgate, not programs).
func readResult(source, name string, f files) *Result {
	r := &Result{Name: name, Source: source, Graphs: map[string][]byte{}}
	r.Quick = strings.Contains(source, "_quick_test") // unless benchmark.json says
	var meta struct {
		Name     string  `json:"name"`
		Kind     string  `json:"kind"`
		Language string  `json:"language"`
		Workload string  `json:"workload"`
		Profiles *string `json:"profiles"` // those taken; both when absent
	}
	if data, err := f.read(benchmarkFile); err != nil {
		r.Problems = append(r.Problems, readProblem(f, benchmarkFile, err))
	} else if err := json.Unmarshal(data, &meta); err != nil {
		r.Problems = append(r.Problems, readProblem(f, benchmarkFile, err))
	} else {
		if meta.Kind == "gobench" {
			return nil
		}
		r.Name = meta.Name
		r.Kind = meta.Kind
		r.Language = meta.Language
		r.Quick = meta.Workload == "quick"
	}
	if r.Kind == "" {
		r.Kind = "go"
		if strings.HasSuffix(r.Name, "cc") {
			r.Kind = "cc"
		}
	}
	if r.Language == "" {
		r.Language = map[string]string{"go": "Go", "cc": "C++"}[r.Kind]
	}

	var timings struct {
		Command string `json:"command"`
		Args    []string
		Host    Host
		Runs    []Run
	}
	if data, err := f.read(xtimeFile); err != nil {
		r.Problems = append(r.Problems, readProblem(f, xtimeFile, err))
	} else if err := json.Unmarshal(data, &timings); err != nil {
		r.Problems = append(r.Problems, readProblem(f, xtimeFile, err))
	} else {
		r.Command, r.Args, r.Host = timings.Command, timings.Args, timings.Host
		for _, run := range timings.Runs {
			if run.ExitStatus == 0 {
				r.Runs = append(r.Runs, run)
			}
		}
		if len(r.Runs) == 0 {
			r.Problems = append(r.Problems, f.path(xtimeFile)+": no successful run")
		}
	}

	taken := func(profile string) bool {
		return meta.Profiles == nil || strings.Contains(","+*meta.Profiles+",", ","+profile+",")
	}
	if taken("cpu") {
		r.CPU = r.readProfile(f, cpuProfile)
	}
	if taken("heap") {
		r.Heap = r.readProfile(f, heapProfile)
	}
	for _, name := range graphFiles {
		if data, err := f.read(name); err == nil {
			r.Graphs[name] = data
		}
	}
	return r
}

func (r *Result) readProfile(f files, name string) *profile.Profile {
	data, err := f.read(name)
	if err == nil {
		var p *profile.Profile
		if p, err = profile.ParseData(data); err == nil {
			return p
		}
	}
	r.Problems = append(r.Problems, readProblem(f, name, err))
	return nil
}

// The studies a benchmark can belong to, in the report's order, each with
// the benchmark the others are compared with, listed first (the Havlak
// stages compare with stage 1 of their language; see Rows).
var studies = []struct{ prefix, title, first string }{
	{"havlak", "Havlak loop finding", "havlak1"},
	{"wordcount", "Word count", "wordcount1"},
	{"wc_", "Word count", "wordcount1"},
	{"mandelbrot", "Mandelbrot", "mandelbrot_seq"},
}

// firstOf names the benchmark a study's others are compared with.
func firstOf(title string) string {
	for _, s := range studies {
		if s.title == title {
			return s.first
		}
	}
	return ""
}

// Study names the case study a benchmark belongs to, after its name.
func (r *Result) Study() string {
	for _, s := range studies {
		if strings.HasPrefix(r.Name, s.prefix) {
			return s.title
		}
	}
	return "Other"
}

func studyRank(title string) int {
	for i, s := range studies {
		if s.title == title {
			return i
		}
	}
	return len(studies)
}

// stageLess orders the benchmarks by study, then the Go stages before the
// C++ ones, each by stage number (havlak2 before havlak10), then by name.
func stageLess(a, b *Result) bool {
	if sa, sb := studyRank(a.Study()), studyRank(b.Study()); sa != sb {
		return sa < sb
	}
	if first := firstOf(a.Study()); a.Name == first || b.Name == first {
		return a.Name == first && b.Name != first
	}
	if a.Kind != b.Kind {
		return a.Kind == "go"
	}
	if na, nb := stageNumber(a.Name), stageNumber(b.Name); na != nb {
		return na < nb
	}
	return a.Name < b.Name
}

// stageNumber is the number in a name like "havlak6_noreuse" or
// "havlak6cc", or a large number for names without one.
func stageNumber(name string) int {
	start := strings.IndexAny(name, "0123456789")
	if start < 0 {
		return 1 << 30
	}
	end := start
	for end < len(name) && name[end] >= '0' && name[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(name[start:end])
	return n
}
