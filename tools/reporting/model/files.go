package model

import (
	"fmt"
	"io"
	"sort"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/reporting/profiles"
	"havlak-lab/tools/result"
)

// TopFunctions is how many functions the top-functions tables show.
const TopFunctions = 5

// Files are a result's profiles and call graphs as the report keeps them:
// what it shows of its CPU profile, summarised when it is read, and the
// names of its files, read again from the result's outputs when they are
// drawn or copied (a flame graph, a regression's diff, pprof's graphs),
// one result at a time. A result's files are never held: a night's
// memory does not grow with its results' sizes.
type Files struct {
	// CPUTop is the top functions of its CPU profile; nil when it has
	// none or it is unreadable.
	CPUTop *profiles.Top
	// Graphs are the file names of pprof's call graphs it lists (cpu.svg,
	// heap.svg), sorted, to be copied next to the report.
	Graphs []string

	out      result.Outputs
	profiles map[string]string // the file of each profile that could be read, by kind
}

// readFiles reads the profiles of kinds that f lists, each parsed once to
// check it (and the CPU profile's top functions taken), and notes its call
// graphs that can be opened; what cannot be read is returned as problems.
// contended, when not nil, is given each profile read, to summarise.
func readFiles(f result.Found, kinds []string, contended func(kind string, p *profile.Profile)) (Files, []string) {
	files := Files{out: f.Outputs, profiles: map[string]string{}}
	var problems []string
	wanted := map[string]bool{}
	for _, k := range kinds {
		wanted[k] = true
	}
	for _, p := range f.Result.FilesWith(result.RoleProfile) {
		if !wanted[p.Profile] {
			continue
		}
		prof, err := parse(f.Outputs, p.Name)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		files.profiles[p.Profile] = p.Name
		if p.Profile == "cpu" {
			top := profiles.TopOf(prof, TopFunctions)
			files.CPUTop = &top
		}
		if contended != nil {
			contended(p.Profile, prof)
		}
	}
	for _, g := range f.Result.FilesWith(result.RoleGraph) {
		rc, err := f.Outputs.OpenFile(g.Name)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		rc.Close()
		files.Graphs = append(files.Graphs, g.Name)
	}
	sort.Strings(files.Graphs)
	return files, problems
}

// parse reads and parses the profile name of out.
func parse(out result.Outputs, name string) (*profile.Profile, error) {
	rc, err := out.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	p, err := profile.Parse(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out.Path(name), err)
	}
	return p, nil
}

// Profile reads the profile of kind ("cpu", "heap") again and parses it;
// nil without an error when the result has no readable one.
func (f *Files) Profile(kind string) (*profile.Profile, error) {
	name, ok := f.profiles[kind]
	if !ok {
		return nil, nil
	}
	return parse(f.out, name)
}

// OpenGraph opens the call graph name (one of Graphs).
func (f *Files) OpenGraph(name string) (io.ReadCloser, error) { return f.out.OpenFile(name) }

// Close closes the result's outputs: no file of it can be read afterwards.
func (f *Files) Close() error {
	if f.out == nil {
		return nil
	}
	return f.out.Close()
}
