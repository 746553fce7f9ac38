package perfspec

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"havlak-lab/internal/bazelquery"
)

// Which manifest a tool reads is the workspace's to say, never the tool's:
// the one benchmark_manifest rule the workspace builds, wherever it
// stands, or the one a flag names (ManifestFlag) when it declares several.
// The labels of the benchmarks' targets then come from that manifest. A
// manifest tagged "manual", which `bazel build //...` leaves out (a
// test's fixture: tools/perf/private's analysis tests declare three), is
// not the workspace's unless a flag names it.

// ManifestRuleClass is the class a query gives a benchmark_manifest rule
// (tools/perf/private/manifest.bzl's rule behind the macro).
const ManifestRuleClass = "_benchmark_manifest"

// ManifestFlag is the flag of every tool that finds the manifest by query,
// naming one by its label.
const ManifestFlag = "--manifest-target"

// ManifestQuery is the query (bazel query --output=xml) of the workspace's
// manifest rules, with what DeclaredTargets reads of each: its specs and
// their declarations.
const ManifestQuery = `let m = kind("^` + ManifestRuleClass + ` rule$", //...) in $m + labels(specs, $m) + labels(info, labels(specs, $m))`

// FindManifest is the label of the workspace's manifest in g, a query's
// graph that holds every manifest rule of the workspace (ManifestQuery's,
// or one of every package): given when a flag gave one (it must be one of
// them), else the only one there is but those tagged "manual". None, or
// several and no flag, is an error that names them and the flag.
func FindManifest(g *bazelquery.Graph, given string) (string, error) {
	var found, manual []string
	for label, r := range g.Rules {
		switch {
		case r.Class != ManifestRuleClass:
		case slices.Contains(r.Lists["tags"], "manual"):
			manual = append(manual, label)
		default:
			found = append(found, label)
		}
	}
	slices.Sort(found)
	switch {
	case given != "" && (slices.Contains(found, given) || slices.Contains(manual, given)):
		return given, nil
	case given != "" && len(found) == 0:
		return "", fmt.Errorf("%s %s: the workspace declares no benchmark_manifest", ManifestFlag, given)
	case given != "":
		return "", fmt.Errorf("%s %s: not a benchmark_manifest of the workspace, whose are %s", ManifestFlag, given, strings.Join(found, ", "))
	case len(found) == 0:
		return "", fmt.Errorf("the workspace declares no benchmark_manifest (tools/perf:defs.bzl), which lists the benchmarks: declare one, last in the BUILD file of the benchmarks")
	case len(found) > 1:
		return "", fmt.Errorf("the workspace declares %d benchmark manifests, %s: name the one to use with %s LABEL", len(found), strings.Join(found, ", "), ManifestFlag)
	}
	return found[0], nil
}

// QueryManifest asks Bazel for the workspace's manifest (FindManifest, of
// ManifestQuery's graph): bazel runs a Bazel command in the workspace with
// the arguments given, its standard output written to stdout. The graph
// holds the manifests, their specs and declarations: DeclaredTargets reads
// the benchmarks' targets from it, before anything is built.
func QueryManifest(bazel func(stdout io.Writer, args ...string) error, given string) (string, *bazelquery.Graph, error) {
	var out bytes.Buffer
	if err := bazel(&out, "query", "--output=xml", "--order_output=no", ManifestQuery); err != nil {
		return "", nil, fmt.Errorf("asking Bazel for the benchmarks' manifest (%s): %w", ManifestQuery, err)
	}
	g := &bazelquery.Graph{Rules: map[string]*bazelquery.Rule{}}
	// A workspace of no manifest answers no target at all, which ReadXML
	// refuses as a query's output that cannot be.
	if bytes.Contains(out.Bytes(), []byte("<rule")) {
		var err error
		if g, err = bazelquery.ReadXML(&out); err != nil {
			return "", nil, err
		}
	}
	label, err := FindManifest(g, given)
	return label, g, err
}

// LabelPath is the path of a workspace target's outputs under bazel-bin
// and bazel-testlogs: its package's directory joined with its name
// ("//benchmarks:havlak6_quick_test": "benchmarks/havlak6_quick_test").
// A label of another repository, or no label, is an error.
func LabelPath(label string) (string, error) {
	pkg, name, ok := strings.Cut(strings.TrimPrefix(label, "//"), ":")
	rel := name
	if pkg != "" {
		rel = pkg + "/" + name
	}
	if !strings.HasPrefix(label, "//") || !ok || name == "" || checkPath("label", rel) != nil {
		return "", fmt.Errorf("%q: not the label of a target of the workspace (//package:name)", label)
	}
	return rel, nil
}

// ManifestFile is where the manifest rule of that label writes the
// manifest, relative to bazel-bin, as the paths in it are
// ("//benchmarks:manifest": "benchmarks/manifest.json").
func ManifestFile(label string) (string, error) {
	p, err := LabelPath(label)
	if err != nil {
		return "", err
	}
	return p + ".json", nil
}

// TestPackages are the packages of a manifest rule's tests (of the build
// configs given: result.ConfigPerf, ConfigQuick), in g (QueryManifest's),
// sorted: where bazel-testlogs holds what its benchmarks' tests left.
func TestPackages(g *bazelquery.Graph, manifest string, configs ...string) ([]string, error) {
	var pkgs []string
	for _, config := range configs {
		targets, err := DeclaredTargets(g, manifest, config)
		if err != nil {
			return nil, err
		}
		for _, label := range targets {
			p, err := LabelPath(label)
			if err != nil {
				return nil, err
			}
			if pkg := path.Dir(p); !slices.Contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
		}
	}
	slices.Sort(pkgs)
	return pkgs, nil
}
