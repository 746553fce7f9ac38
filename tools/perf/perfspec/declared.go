package perfspec

import (
	"fmt"
	"strings"

	"havlak-lab/internal/bazelquery"
)

// DeclaredTargets lists the targets of one build config (result.ConfigQuick)
// of the benchmarks a manifest rule lists, by benchmark name, as the rules
// of tools/perf declare them, read from a query of the package
// (bazelquery) rather than from the built manifest: the tools that must
// know the benchmarks before building anything (the perf check) ask it.
// The attributes it reads are those of tools/perf/private's rules: the
// manifest's specs, each perf_spec's config, target and info, each
// declaration's benchmark.
func DeclaredTargets(g *bazelquery.Graph, manifest, config string) (map[string]string, error) {
	specs, err := manifestSpecs(g, manifest)
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, spec := range specs {
		label := spec.Label
		if spec.Strings["config"] != config {
			continue
		}
		info := g.Rules[spec.Strings["info"]]
		pkg, _, ok := strings.Cut(label, ":")
		if info == nil || !ok || spec.Strings["target"] == "" || info.Strings["benchmark"] == "" {
			return nil, fmt.Errorf("%s: no target or no declaration with a benchmark's name: not a perf_spec", label)
		}
		name := info.Strings["benchmark"]
		if prev, dup := targets[name]; dup {
			return nil, fmt.Errorf("%s: two %s targets of %s: %s and %s", manifest, config, name, prev, pkg+":"+spec.Strings["target"])
		}
		targets[name] = pkg + ":" + spec.Strings["target"]
	}
	return targets, nil
}

// manifestSpecs are the perf_spec rules the manifest rule lists, as a
// query's graph g holds them, in the manifest's order: a manifest g lacks,
// a rule that lists no specs, or a spec g lacks is an error.
func manifestSpecs(g *bazelquery.Graph, manifest string) ([]*bazelquery.Rule, error) {
	m := g.Rules[manifest]
	if m == nil {
		return nil, fmt.Errorf("the query has no manifest %s", manifest)
	}
	labels, ok := m.Lists["specs"]
	if !ok {
		return nil, fmt.Errorf("%s (%s): no specs: not a benchmark_manifest", manifest, m.Class)
	}
	specs := make([]*bazelquery.Rule, 0, len(labels))
	for _, label := range labels {
		spec := g.Rules[label]
		if spec == nil {
			return nil, fmt.Errorf("%s lists %s, which the query does not have", manifest, label)
		}
		specs = append(specs, spec)
	}
	return specs, nil
}
