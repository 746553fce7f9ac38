// Package labcache owns where havlak-lab's tools keep what they install,
// build and remember between runs: the lab's cache directory. Every Go tool
// asks Dir; the shell scripts source labcache.sh, the same rule in bash,
// because they run before anything is built (tools/bazel installs Bazel
// itself; tools/ci/tools.sh runs by hand, in CI steps before any build, and
// inside tests, where a nested Bazel to build a Go helper would be wrong).
// labcache_test checks that the two agree.
//
// The rule, first match wins:
//
//	$HAVLAK_LAB_CACHE                 when set and not empty
//	$XDG_CACHE_HOME/havlak-lab        when set and not empty
//	$HOME/.cache/havlak-lab           when set and not empty
//
// The value taken must be an absolute path: a relative one would name a
// different directory in every working directory (`bazel run` starts
// programs in their runfiles), so it is refused, naming the variable, as
// is an environment with none of the three. Each tool keeps its state in
// one subdirectory of its own (bisect, cluster, netty-tcnative,
// nightly-baseline, ...; tools.sh: one per tool and version).
package labcache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// variables are the environment variables of the rule, in its order, with
// what each contributes below its value.
var variables = []struct{ name, below string }{
	{"HAVLAK_LAB_CACHE", ""},
	{"XDG_CACHE_HOME", "havlak-lab"},
	{"HOME", filepath.Join(".cache", "havlak-lab")},
}

// Dir is the lab's cache directory, or its subdirectory sub ("" for the
// directory itself), by the rule of the package doc. sub is one plain name
// (no separators, not "." or ".."); the directory is not created.
func Dir(sub string) (string, error) {
	if sub != "" && (sub == "." || sub == ".." || strings.ContainsAny(sub, `/\`)) {
		return "", fmt.Errorf("the lab's cache directory: subdirectory %q: want one plain name", sub)
	}
	for _, v := range variables {
		value := os.Getenv(v.name)
		if value == "" {
			continue
		}
		if !filepath.IsAbs(value) {
			return "", fmt.Errorf("the lab's cache directory: %s=%q is not an absolute path", v.name, value)
		}
		return filepath.Join(value, v.below, sub), nil
	}
	return "", fmt.Errorf("the lab's cache directory: none of HAVLAK_LAB_CACHE, XDG_CACHE_HOME and HOME is set")
}
