package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"havlak-lab/tools/result"
)

// A Set is the results of one workload found under some directories, the
// programs' and the servers', and what was found and left out.
type Set struct {
	// Workload is the workload of the results: result.WorkloadStandard
	// or result.WorkloadQuick.
	Workload string
	Results  []*Result    // programs (kind "program"), in the report's order
	Servers  []*ServerRow // servers (kind "server"), in the report's order
	// LeftOut lists the results found and not in the set.
	LeftOut []LeftOut
	// Problems lists what could not be read: results, then profiles and
	// graphs of the servers', then of the programs'.
	Problems []string
	// Unreadable lists the results that could not be read at all (also
	// in Problems): a comparison that cannot see them fails.
	Unreadable []string
}

// A LeftOut is a result that was found and not reported.
type LeftOut struct {
	Name, Source string
	Workload     string
	// Older: another result of the same benchmark and workload started
	// later, and is reported instead. Otherwise the result is of another
	// workload than the set's.
	Older bool
}

// Empty tells whether the set has no results.
func (s *Set) Empty() bool { return len(s.Results) == 0 && len(s.Servers) == 0 }

// Load collects the results of one workload under the roots (see
// result.Walk), read one at a time: workload, or when it is "", the
// standard workload when there are results of it (program results with
// successful runs, or server results), else the quick one. Timings of the two do not compare,
// so one report never mixes them. Of several results for one benchmark
// (testlogs of several configurations, say), the newest is kept. The
// others are listed as left out, and results that cannot be read as
// problems.
func Load(workload string, roots ...string) (*Set, error) {
	roots = slices.Clone(roots)
	sort.Strings(roots)
	return load(workload, func(fn func(result.Found) error) error {
		for _, root := range roots {
			if err := result.Walk(root, fn); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoadNight is Load of a night's results (result.Night), read one at a
// time.
func LoadNight(workload string, n *result.Night) (*Set, error) {
	return load(workload, n.Walk)
}

// Of is Load of results read already (a night's and its baseline's, which
// the nightly gate reads once). The outputs of the results it leaves out
// are closed; the others stay open for the report to read.
func Of(workload string, found []result.Found) (*Set, error) {
	return load(workload, func(fn func(result.Found) error) error {
		for _, f := range found {
			if err := fn(f); err != nil {
				return err
			}
		}
		return nil
	})
}

// load is Load of the results walk gives.
func load(workload string, walk func(func(result.Found) error) error) (*Set, error) {
	var results []*Result
	var servers []*ServerRow
	var problems []string
	standard := false
	err := walk(func(f result.Found) error {
		switch {
		case f.Err != nil:
			problems = append(problems, f.Err.Error())
		case f.Result.Benchmark.Kind == result.KindProgram:
			r := readResult(f)
			results = append(results, r)
			standard = standard || !r.Quick() && len(r.Runs) > 0
		case f.Result.Benchmark.Kind == result.KindServer:
			row := readServer(f)
			servers = append(servers, row)
			standard = standard || !row.Quick()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if workload == "" {
		workload = result.WorkloadQuick
		if standard {
			workload = result.WorkloadStandard
		}
	}
	set := &Set{Workload: workload, Problems: problems, Unreadable: slices.Clone(problems)}
	set.Results = newest(set, results, func(r *Result) (result.Benchmark, string, string) {
		return r.Benchmark, r.Source, r.Started()
	}, func(r *Result) { r.Close() })
	set.Servers = newest(set, servers, func(r *ServerRow) (result.Benchmark, string, string) {
		return r.Benchmark, r.Source, r.Median.Start
	}, func(r *ServerRow) { r.Close() })
	order(set.Results)
	orderServers(set.Servers)
	for _, row := range set.Servers {
		set.Problems = append(set.Problems, row.Problems...)
	}
	for _, r := range set.Results {
		set.Problems = append(set.Problems, r.Problems...)
	}
	return set, nil
}

// newest keeps, of the results of the set's workload, the one that started
// last of each benchmark, in the order first found, and lists the others
// in the set as left out, dropping each (drop closes its outputs).
func newest[R any](set *Set, results []*R, describe func(*R) (b result.Benchmark, source, started string), drop func(*R)) []*R {
	kept := map[string]*R{}
	var order []*R
	for _, r := range results {
		b, source, started := describe(r)
		if b.Workload.Name != set.Workload {
			set.LeftOut = append(set.LeftOut, LeftOut{Name: b.Name, Source: source, Workload: b.Workload.Name})
			drop(r)
			continue
		}
		other, ok := kept[b.Name]
		if !ok {
			kept[b.Name] = r
			order = append(order, r)
			continue
		}
		_, otherSource, otherStarted := describe(other)
		older := LeftOut{Name: b.Name, Source: source, Workload: b.Workload.Name, Older: true}
		if started > otherStarted {
			older.Source = otherSource
			drop(other)
			*other = *r // in place: order holds other
		} else {
			drop(r)
		}
		set.LeftOut = append(set.LeftOut, older)
	}
	return order
}

// LeftOutText says, a sentence per reason, which results the set left out
// and why, naming each benchmark once with its count of results when
// there are several; none when it left out nothing.
func (s *Set) LeftOutText() []string {
	otherWorkload := map[string][]string{} // by workload
	var older []string
	for _, l := range s.LeftOut {
		if l.Older {
			older = append(older, l.Name)
		} else {
			otherWorkload[l.Workload] = append(otherWorkload[l.Workload], l.Name)
		}
	}
	var texts []string
	workloads := make([]string, 0, len(otherWorkload))
	for w := range otherWorkload {
		workloads = append(workloads, w)
	}
	sort.Strings(workloads)
	for _, w := range workloads {
		names := otherWorkload[w]
		texts = append(texts, fmt.Sprintf("Left out: %s of the %s workload (%s), whose timings do not compare with the %s workload's; --workload %s reports them instead.",
			results(len(names)), w, counted(names), s.Workload, w))
	}
	if len(older) > 0 {
		texts = append(texts, fmt.Sprintf("Left out: %s of benchmarks that have a newer result, which is reported (%s).",
			results(len(older)), counted(older)))
	}
	return texts
}

// results is "1 result" or "N results".
func results(n int) string {
	if n == 1 {
		return "1 result"
	}
	return fmt.Sprintf("%d results", n)
}

// counted lists names once each, sorted, with how many times each came
// when more than once: "havlak1, havlak6 ×2".
func counted(names []string) string {
	sorted := slices.Clone(names)
	sort.Strings(sorted)
	var parts []string
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		part := sorted[i]
		if j-i > 1 {
			part += fmt.Sprintf(" ×%d", j-i)
		}
		parts = append(parts, part)
		i = j
	}
	return strings.Join(parts, ", ")
}
