package check

import (
	"path"
	"slices"
	"strings"

	"havlak-lab/internal/bazelquery"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labrepo"
	"havlak-lab/tools/perf/perfspec"
)

// A Reach is which benchmarks a change can affect at all, answered before
// anything is built, from the changed files and the target graph of the
// workspace's packages (bazelquery): a benchmark none of whose quick
// test's dependencies changed cannot have changed. It only sorts out; the
// identities of the benchmarks it lets through decide what is measured.
type Reach struct {
	// Everything says why every benchmark must be built: a changed file
	// is an input of Bazel itself (BazelInput), whose effect no query of
	// targets shows. Empty when the query answers.
	Everything string
	// Reached are the quick tests of the benchmarks the change can reach,
	// by benchmark; nil with Everything.
	Reached map[string]string
	// NotReached are the benchmarks it cannot.
	NotReached []string
	// GateEdits are the changed files of the gate's own code (GateEdits).
	GateEdits []string
	// NotMeasured are the benchmarks that have no quick test, which no
	// change can get measured, each with why (perfspec.DeclaredNotMeasured).
	NotMeasured []perfspec.NotMeasured
}

// GateTargets are the gate's own code: the perf check (which benchmarks
// are measured, the comparison, its policy, the comment) and the runner
// (how a benchmark is run and counted, how Cachegrind is read). Both come
// from the base, never from the change they judge.
var GateTargets = []string{labrepo.Label("//tools/perfcheck:perfcheck"), labrepo.Label("//tools/perf/runner:runner")}

// gateFile says whether a file is the gate's though no target depends on
// it: the Starlark that declares a benchmark's runs and count actions, and
// the CI step that runs the check.
func gateFile(file string) bool {
	return strings.HasPrefix(file, "tools/perf/") && strings.HasSuffix(file, ".bzl") ||
		file == "tools/ci/perfcheck.sh"
}

// GateEdits are the changed files of the gate's own code: those GateTargets
// depend on in the change's graph (pkgs, g: FindReach's), and gateFile's.
// A change that edits them is judged by the base's copies all the same;
// the check names them so that a reader knows the change's own copies
// decided nothing.
func GateEdits(changes []gitwork.Change, pkgs []string, g *bazelquery.Graph) []string {
	gate := g.DependedOn(GateTargets)
	var edits []string
	for _, c := range changes {
		label, _, owned := bazelquery.Owner(pkgs, c.Path)
		if gateFile(c.Path) || owned && gate[label] {
			edits = append(edits, c.Path)
		}
	}
	return edits
}

// BazelInput says why a workspace file is an input of Bazel itself, or of
// the repositories the WORKSPACE takes, rather than a target's: a change
// to it can change any build. "" when it is not.
func BazelInput(file string) string {
	base := path.Base(file)
	switch {
	case base == "BUILD" || base == "BUILD.bazel":
		return "a BUILD file: which targets there are and what they depend on"
	case strings.HasSuffix(base, ".bzl"):
		return "Starlark: the rules and macros the BUILD files load"
	case slices.Contains([]string{"WORKSPACE", "WORKSPACE.bazel", ".bazelrc", ".bazelversion", ".bazelignore"}, file):
		return "Bazel's configuration"
	case file == "tools/bazel" || file == "tools/workspace_status.sh":
		return "how Bazel is started and what it stamps"
	case file == "go.mod" || file == "go.sum":
		return "the Go modules the WORKSPACE's repositories come from"
	case strings.HasPrefix(file, "tools/repositories/"):
		return "the WORKSPACE's repositories and their patches"
	}
	return ""
}

// Everything says why the changes reach every benchmark: the first of
// them that is an input of Bazel itself (BazelInput); "" when none is. It
// needs no query, so the check asks it before querying.
func Everything(changes []gitwork.Change) string {
	for _, c := range changes {
		if why := BazelInput(c.Path); why != "" {
			return c.Path + " changed: " + why
		}
	}
	return ""
}

// FindReach sorts the benchmarks (their quick tests, by benchmark) into
// those the changes reach and those they do not, over the graph of the
// change's packages (pkgs, bazelquery.Packages). A changed file that is a
// source file of the graph reaches what depends on it; one that is not,
// nothing (Bazel lets no target read an undeclared file); a deleted file
// that the graph no longer has, every rule of the package that held it (a
// glob there may have matched it at the base). A changed Bazel input
// reaches everything.
func FindReach(changes []gitwork.Change, pkgs []string, g *bazelquery.Graph, quick map[string]string) Reach {
	if why := Everything(changes); why != "" {
		return Reach{Everything: why, GateEdits: GateEdits(changes, pkgs, g)}
	}
	var seeds []string
	for _, c := range changes {
		label, pkg, ok := bazelquery.Owner(pkgs, c.Path)
		switch {
		case !ok:
		case g.Sources[label]:
			seeds = append(seeds, label)
		case c.Deleted:
			seeds = append(seeds, g.RulesOf(pkg)...)
		}
	}
	reached := g.Reaching(seeds)
	r := Reach{Reached: map[string]string{}, GateEdits: GateEdits(changes, pkgs, g)}
	for name, test := range quick {
		if reached[test] {
			r.Reached[name] = test
		} else {
			r.NotReached = append(r.NotReached, name)
		}
	}
	slices.Sort(r.NotReached)
	return r
}
