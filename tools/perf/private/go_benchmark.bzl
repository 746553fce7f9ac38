"""Implementation of go_benchmark; load it from //tools/perf:defs.bzl."""

load(":tags.bzl", "PERF_TAGS", "QUICK_TAGS")

_RUNNER = Label("//tools/perf/private:go_bench.sh")
_PPROF = Label("//tools:pprof")

def go_benchmark(name, test, bench = ".", count = 6, benchtime = None, quick_benchtime = "100x", tags = [], **kwargs):
    """A Go package's benchmarks, run by its go_test binary, with profiles.

    Creates `name + "_test"`, tagged `perf` (selected by `--config=perf`),
    which runs the benchmarks `count` times with -test.benchmem, CPU and
    heap profiles, and keeps the results in Go benchmark format (bench.txt)
    and the profiles in its outputs.zip; compare two such files with
    `bazel run //tools:benchgate -- OLD NEW`. Creates `name + "_quick_test"`
    too, in the default test set, with -test.benchtime=quick_benchtime.

    Args:
      name: the benchmarks' name.
      test: the package's go_test target.
      bench: the -test.bench regular expression.
      count: runs of each benchmark; benchstat's U test needs 6 or more of
        each side to tell a change from noise at p < 0.05.
      benchtime: -test.benchtime of the full-size test; Go's default if None.
      quick_benchtime: -test.benchtime of the quick test.
      tags: added to the tags of both tests.
      **kwargs: passed to both sh_tests.
    """
    data = [test, _PPROF]
    args = ["$(rootpath {})".format(test), "$(rootpath {})".format(_PPROF), "'{}'".format(bench), str(count)]
    native.sh_test(
        name = name + "_test",
        srcs = [_RUNNER],
        args = args + ([benchtime] if benchtime else []),
        data = data,
        tags = tags + PERF_TAGS,
        **kwargs
    )
    native.sh_test(
        name = name + "_quick_test",
        srcs = [_RUNNER],
        args = args + [quick_benchtime],
        data = data,
        tags = tags + QUICK_TAGS,
        **kwargs
    )
