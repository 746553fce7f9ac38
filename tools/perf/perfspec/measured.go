package perfspec

import (
	"fmt"
	"slices"
	"strings"

	"havlak-lab/internal/bazelquery"
	"havlak-lab/tools/result"
)

// A NotMeasured is a benchmark that no gate counts or judges, and why, as
// its declaration says (ManifestBenchmark.NotMeasured): the perf check's
// comment and the night name each, never leave it out silently.
type NotMeasured struct {
	Benchmark string
	// Why is the declaration's reason: "no quick workload: ...".
	Why string
}

// String is how the tools name it: "bigsim: not measured: no quick
// workload: ...".
func (n NotMeasured) String() string {
	return n.Benchmark + ": not measured: " + n.Why
}

// unsaid is the reason of a benchmark without a quick test whose
// declaration says none: a manifest of version 1, or perf rules from
// before not_measured.
const unsaid = "no quick test, and its declaration, from perf rules before not_measured, says not why"

// NotMeasured are the manifest's benchmarks that have no quick test, in
// its order, each with why (a manifest of version 1, which never says,
// with unsaid).
func (m *Manifest) NotMeasured() []NotMeasured {
	var not []NotMeasured
	for _, b := range m.Benchmarks {
		if _, ok := b.Targets[result.ConfigQuick]; ok {
			continue
		}
		why := b.NotMeasured
		if why == "" {
			why = unsaid
		}
		not = append(not, NotMeasured{Benchmark: b.Name, Why: why})
	}
	return not
}

// checkMeasured tells what is wrong with whether the benchmark says it is
// measured, at where, in a manifest of version: since version 2, a
// benchmark without a quick test says why, and one with a quick test says
// nothing; a manifest of version 1 never says.
func (b ManifestBenchmark) checkMeasured(where string, version int) error {
	_, quick := b.Targets[result.ConfigQuick]
	switch {
	case version < 2 && b.NotMeasured != "":
		return fmt.Errorf("%s (%s).not_measured: in a manifest of schema_version %d: it came in version 2", where, b.Name, version)
	case version < 2:
	case quick && b.NotMeasured != "":
		return fmt.Errorf("%s (%s).not_measured %q: it has a quick test, which is measured", where, b.Name, b.NotMeasured)
	case !quick && b.NotMeasured == "":
		return fmt.Errorf("%s (%s): no quick test, and no not_measured to say why it is not measured", where, b.Name)
	}
	return nil
}

// DeclaredNotMeasured are the benchmarks a manifest rule lists that have
// no quick test, each with why, as the rules of tools/perf declare them
// (the declaration's not_measured), read from a query of the package as
// DeclaredTargets reads it: the perf check names them before it builds
// anything, whatever the change reaches. Sorted by benchmark.
func DeclaredNotMeasured(g *bazelquery.Graph, manifest string) ([]NotMeasured, error) {
	specs, err := manifestSpecs(g, manifest)
	if err != nil {
		return nil, err
	}
	why := map[string]string{}
	quick := map[string]bool{}
	for _, spec := range specs {
		info := g.Rules[spec.Strings["info"]]
		if info == nil || info.Strings["benchmark"] == "" {
			return nil, fmt.Errorf("%s: no declaration with a benchmark's name: not a perf_spec", spec.Label)
		}
		name := info.Strings["benchmark"]
		why[name] = info.Strings["not_measured"]
		quick[name] = quick[name] || spec.Strings["config"] == result.ConfigQuick
	}
	var not []NotMeasured
	for name, reason := range why {
		if quick[name] {
			continue
		}
		if reason == "" {
			reason = unsaid
		}
		not = append(not, NotMeasured{Benchmark: name, Why: reason})
	}
	slices.SortFunc(not, func(a, b NotMeasured) int { return strings.Compare(a.Benchmark, b.Benchmark) })
	return not, nil
}
