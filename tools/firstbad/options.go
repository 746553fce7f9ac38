package firstbad

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/internal/bazelcmd"
	"havlak-lab/internal/bazelquery"
	"havlak-lab/internal/cli"
	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// Options say what to bisect and how (//tools/bisect's flags).
type Options struct {
	// Good and Bad are the commits (any revision git names).
	Good, Bad string
	// Benchmark is the benchmark's name, as its manifest lists it;
	// Figure the count to bisect on ("": the one the gate judges).
	Benchmark, Figure string
	// Repetitions are the runs under Cachegrind per commit (0: the spec's
	// counted repetitions, at least 3).
	Repetitions int
	// Builder is how each commit is built: "bazel" (tools/bazel in the
	// worktree: Target, the benchmark's quick test by default) or "go"
	// (the go command: GoPackage, with the spec SpecFile, by default its
	// quick test's; GoCommand, by default gosdk.Command()).
	Builder, Target                string
	SpecFile, GoPackage, GoCommand string
	// Manifest is the benchmarks' manifest file, which names the quick
	// test and its spec; by default the one ManifestTarget labels, under
	// bazel-bin in Repo.
	Manifest string
	// ManifestTarget is the manifest's label, by default the one
	// benchmark_manifest the workspace declares (perfspec.QueryManifest).
	ManifestTarget string
	// Repo is the git repository; Cache where its worktree goes (default:
	// bisect in the lab's cache directory).
	Repo, Cache string
}

// complete fills in what o leaves to its defaults; Bazel's standard error,
// when it is asked for the manifest, goes to log.
func (o *Options) complete(log io.Writer) error {
	if err := o.fromManifest(log); err != nil {
		return err
	}
	if o.Cache == "" {
		var err error
		if o.Cache, err = labcache.Dir("bisect"); err != nil {
			return err
		}
	}
	return nil
}

// fromManifest takes what o leaves out from the benchmarks' manifest: the
// label of the benchmark's quick test (bazel), its spec (go). Without
// --manifest, Bazel says which manifest the workspace declares and, when
// it was never built, the quick test's label as the manifest rule declares
// it.
func (o *Options) fromManifest(log io.Writer) error {
	if o.Builder == "bazel" && o.Target != "" || o.Builder == "go" && o.SpecFile != "" {
		return nil
	}
	var label string
	var g *bazelquery.Graph
	if o.Manifest == "" {
		top, err := gitwork.Repo(o.Repo).Output("rev-parse", "--show-toplevel")
		if err != nil {
			return cli.Usagef("%s: not a git repository: %v", o.Repo, err)
		}
		if label, g, err = perfspec.QueryManifest(bazelIn(top, log), o.ManifestTarget); err != nil {
			return cli.Usagef("the benchmarks' manifest: %v (or --manifest FILE, --target LABEL, --spec FILE)", err)
		}
		file, err := perfspec.ManifestFile(label)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		o.Manifest = perfspec.Built(top, file)
	}
	m, err := perfspec.ReadManifest(o.Manifest)
	if errors.Is(err, fs.ErrNotExist) && o.Builder == "bazel" && g != nil {
		// A checkout that never built it: the quick test as the manifest
		// rule declares it.
		quick, err := perfspec.DeclaredTargets(g, label, result.ConfigQuick)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		if o.Target = quick[o.Benchmark]; o.Target == "" {
			return cli.Usagef("%s declares no quick test of a benchmark %q; it declares %s", label, o.Benchmark, strings.Join(slices.Sorted(maps.Keys(quick)), ", "))
		}
		return nil
	}
	if err != nil {
		hint := "--manifest FILE, --spec FILE"
		if label != "" {
			hint = "tools/bazel build " + label + " writes it; or " + hint
		}
		return cli.Usagef("the benchmarks' manifest: %v (%s)", err, hint)
	}
	b, err := m.Benchmark(o.Benchmark)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	quick, err := b.Target(result.ConfigQuick)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	if o.Builder == "bazel" {
		o.Target = quick.Label
		return nil
	}
	root, err := m.Root()
	if err != nil {
		return cli.UsageError{Err: err}
	}
	o.SpecFile = filepath.Join(root, filepath.FromSlash(quick.Spec))
	return nil
}

// bazelIn runs the checkout's Bazel (bazelcmd) in its top directory, for
// perfspec.QueryManifest: the command's standard output to stdout, its
// standard error to log.
func bazelIn(top string, log io.Writer) func(io.Writer, ...string) error {
	return func(stdout io.Writer, args ...string) error {
		cmd := bazelcmd.Command(top, args...)
		cmd.Env = childEnv()
		cmd.Stdout, cmd.Stderr = stdout, log
		if err := cmd.Run(); err != nil {
			// QueryManifest's error names the query.
			return fmt.Errorf("%s %s: %w", cmd.Path, args[0], err)
		}
		return nil
	}
}
