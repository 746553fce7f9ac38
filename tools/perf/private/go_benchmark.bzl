"""Implementation of go_benchmark; load it from //tools/perf:defs.bzl."""

load(":counts.bzl", "perf_counts")
load(":info.bzl", "declare_benchmark")
load(":spec.bzl", "perf_spec")
load(":tags.bzl", "PERF_TAGS", "QUICK_TAGS")

_RUNNER = Label("//tools/perf/runner")

def go_benchmark(
        name,
        test,
        info,
        bench = ".",
        count = 6,
        benchtime = None,
        quick_benchtime = "100x",
        counted_repetitions = 0,
        tags = [],
        **kwargs):
    """A Go package's benchmarks, run by its go_test binary, with profiles.

    Creates `name + "_test"`, tagged `perf` (selected by `--config=perf`),
    which runs the benchmarks `count` times with -test.benchmem, CPU and
    heap profiles, and keeps the results in Go benchmark format (bench.txt),
    the profiles, pprof's views of them and result.json (//tools/result,
    kind "go_test") in its outputs.zip; compare two such files with
    `bazel run //tools:benchgate -- OLD NEW`. Creates `name + "_quick_test"`
    too, in the default test set, with -test.benchtime=quick_benchtime, the
    runner's specs of both (`name + "_test_spec"`,
    `name + "_quick_test_spec"`) and the benchmark's BenchmarkInfo
    (`name + "_info"`).

    With counted_repetitions, creates `name + "_counts"` too, the count
    action of every benchmark the pattern selects (perf_counts,
    counts.bzl): each one's own instructions per operation, from runs of
    100, 200 and 400 iterations under Cachegrind (the difference cancels the
    setup, the third run checks that the cost is linear), gated as a
    program's own instructions are (docs/measuring.md); tagged `manual`, as
    a program's count is. The go_test must keep its symbols (the lab's
    rules_go keeps them).

    Args:
      name: the benchmarks' name in results.
      test: the package's go_test target.
      info: what the benchmark is: its benchmark_info (study, stage,
        language, "Go" if None, reference, workloads).
      bench: the -test.bench regular expression.
      count: runs of each benchmark; benchstat's U test needs 6 or more of
        each side to tell a change from noise at p < 0.05.
      benchtime: -test.benchtime of the full-size test; Go's default if None.
      quick_benchtime: -test.benchtime of the quick test.
      counted_repetitions: values of each benchmark's own instructions per
        operation, three runs under Cachegrind each; 3 calibrate its
        threshold (docs/noise.md); 0, the default, for no count action.
      tags: added to the tags of both tests.
      **kwargs: passed to both sh_tests.
    """
    info_target = declare_benchmark(info, name, "Go", tags = tags)
    for suffix, config, time, test_tags in [
        ("_test", "perf", benchtime, PERF_TAGS),
        ("_quick_test", "quick", quick_benchtime, QUICK_TAGS),
    ]:
        spec = name + suffix + "_spec"
        perf_spec(
            name = spec,
            info = info_target,
            target = name + suffix,
            repetitions = count,
            kind = "go_test",
            config = config,
            binary = test,
            bench = bench,
            count = count,
            benchtime = time or "",
            go_counted_repetitions = counted_repetitions if suffix == "_quick_test" else 0,
            tags = tags,
            # It depends on the go_test binary.
            testonly = True,
            visibility = ["//visibility:private"],
        )
        native.sh_test(
            name = name + suffix,
            srcs = [_RUNNER],
            args = [
                "gotest",
                "$(rootpath :{})".format(spec),
            ],
            data = [":" + spec],
            tags = tags + test_tags,
            **kwargs
        )
    if counted_repetitions > 0:
        perf_counts(
            name = name + "_counts",
            spec = name + "_quick_test_spec",
            # Built by the perf check and by what depends on it, not by
            # `bazel test //...`: Cachegrind runs are slow.
            tags = tags + ["manual"],
            testonly = True,
            target_compatible_with = [
                "@platforms//cpu:x86_64",
                "@platforms//os:linux",
            ],
        )
