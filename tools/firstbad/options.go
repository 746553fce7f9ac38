package firstbad

import (
	"errors"
	"io/fs"
	"path/filepath"

	"havlak-lab/internal/cli"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
)

// Options say what to bisect and how (//tools/bisect's flags).
type Options struct {
	// Good and Bad are the commits (any revision git names).
	Good, Bad string
	// Benchmark is the benchmark's name, as declared in benchmarks/;
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
	// Manifest is the benchmarks' manifest (default:
	// bazel-bin/benchmarks/manifest.json in Repo), which names the quick
	// test and its spec.
	Manifest string
	// Repo is the git repository; Cache where its worktree goes (default:
	// bisect in the lab's cache directory).
	Repo, Cache string
}

// DefaultManifest is the benchmarks' manifest (//benchmarks:manifest)
// under bazel-bin.
const DefaultManifest = perfspec.DefaultManifest

// complete fills in what o leaves to its defaults.
func (o *Options) complete() error {
	if o.Manifest == "" {
		o.Manifest = perfspec.Built(o.Repo, DefaultManifest)
	}
	if err := o.fromManifest(); err != nil {
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
// label of the benchmark's quick test (bazel), its spec (go).
func (o *Options) fromManifest() error {
	if o.Builder == "bazel" && o.Target != "" || o.Builder == "go" && o.SpecFile != "" {
		return nil
	}
	m, err := perfspec.ReadManifest(o.Manifest)
	if errors.Is(err, fs.ErrNotExist) && o.Builder == "bazel" {
		// A checkout that never built it: the quick test as
		// perf_benchmark names it.
		o.Target = "//benchmarks:" + o.Benchmark + "_quick_test"
		return nil
	}
	if err != nil {
		return cli.Usagef("the benchmarks' manifest: %v (tools/bazel build //benchmarks:manifest writes it; or --manifest FILE, --spec FILE)", err)
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
