// Package labrepo says where the lab's own targets are in the workspace
// that builds them: this repository, where the lab is the main
// repository, or another one that loads the lab as an external
// repository (docs/adopting.md). A tool that builds or runs another of
// the lab's tools (the perf check its runner and its own view, say) asks
// here for the label and the output path, so that it works in both.
//
// Bazel tells, when it builds this package, which repository the package
// is in (its BUILD file's x_defs: repository_name()); nothing is guessed
// from paths or names.
package labrepo

import (
	"path"
	"path/filepath"
	"strings"
)

// repository is the repository this package was built in, as Bazel's
// repository_name() gives it: "@" for the main repository, "@NAME" for an
// external one. Set at link time; "@" when built without Bazel.
var repository = "@"

// Name is the lab's repository's name where it is external ("havlak_lab"
// as docs/adopting.md loads it), "" where the lab is the main repository.
func Name() string { return strings.TrimPrefix(repository, "@") }

// Label is label, a label of the lab's own ("//tools/perf/runner"), as
// the workspace that builds the lab names it: unchanged in the lab,
// "@NAME//tools/perf/runner" where the lab is the external repository
// NAME. A label of another repository is returned as it is.
func Label(label string) string {
	if Name() == "" || !strings.HasPrefix(label, "//") {
		return label
	}
	return repository + label
}

// Dir is where the lab's packages are, relative to the workspace's
// bazel-bin, bazel-testlogs or execution root, slash-separated: "" in the
// lab, "external/NAME" where it is external.
func Dir() string {
	if Name() == "" {
		return ""
	}
	return path.Join("external", Name())
}

// BinPath is the output, in the workspace at dir, of the lab's file
// rel: rel as a path of the lab's packages ("tools/perf/runner/runner_/
// runner"), slash-separated, under the workspace's bazel-bin.
func BinPath(dir, rel string) string {
	return filepath.Join(dir, "bazel-bin", filepath.FromSlash(path.Join(Dir(), rel)))
}
