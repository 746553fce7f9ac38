"""Implementation of perf_benchmark; load it from //tools/perf:defs.bzl."""

load("@bazel_skylib//lib:shell.bzl", "shell")
load(":tags.bzl", "PERF_TAGS", "QUICK_TAGS")

_RUNNER = Label("//tools/perf/private:perf_run.sh")
_XTIME = Label("//tools/xtime")
_PPROF = Label("//tools:pprof")

# How each kind of program writes a heap profile (see perf_run.sh).
_HEAP_MODES = {
    ("go", True): "flag",  # -memprofile FILE: written after one pass
    ("go", False): "env",  # $HAVLAK_HEAPPROFILE: written when the run ends
    ("cc", False): "gperftools",  # tcmalloc's $HEAPPROFILE, by LD_PRELOAD
}

def _runner_args(b, workload, repetitions, expect, args):
    # args are shell-tokenized, then "Make"-expanded: the program's
    # arguments may use $(rootpath ...), the regular expression's $ is
    # literal.
    return [
        "--workload=" + workload,
        "--language=" + shell.quote(b.language),
        "--name=" + b.name,
        "--kind=" + b.kind,
        "--heap=" + b.heap,
        "--binary=$(rootpath {})".format(b.binary),
        "--xtime=$(rootpath {})".format(_XTIME),
        "--pprof=$(rootpath {})".format(_PPROF),
        "--repetitions={}".format(repetitions),
        "--profiles=" + ",".join(b.profiles),
        "--expect=" + shell.quote(expect or "").replace("$", "$$"),
    ] + (["--trace"] if b.trace else []) + [
        "--heap-arg=" + shell.quote(arg)
        for arg in b.heap_args
    ] + ["--"] + [shell.quote(arg) for arg in args]

def perf_benchmark(
        name,
        binary,
        expect = None,
        args = [],
        kind = "go",
        language = None,
        profiles = ["cpu", "heap"],
        memprofile_flag = False,
        heap_args = [],
        trace = False,
        repetitions = 5,
        quick_args = None,
        quick_expect = None,
        data = [],
        srcs = [],
        tags = [],
        visibility = None,
        **kwargs):
    """A benchmark of one program: a runnable target and its tests.

    Creates
    * `name`: `bazel run` builds the program and runs it under xtime, which
      prints the classic `%Uu %Ss %er %MkB %C` line after the program's
      output. `bazel run NAME -- --profile DIR` also writes a CPU and a heap
      profile to DIR; other arguments after `--` go to the program.
    * `name + "_test"`: the full-size benchmark, tagged `perf` (selected by
      `--config=perf`): `repetitions` timed runs under xtime, then a
      CPU-profiled and a heap-profiled run; every run's output must match
      `expect`. Profiles, rendered pprof views and SVG call graphs, xtime's
      JSON and the Go-benchmark-format lines (for benchstat) land in the
      test's outputs.zip.
    * `name + "_quick_test"`, when `quick_args` is given: the same with
      those arguments, in the default test set so that every CI run
      exercises the harness.

    Args:
      name: the benchmark's name, also its name in Go benchmark format.
      binary: the program to measure.
      expect: an extended regular expression for the lines of a correct
        run's output; every run must print the same number of them as the
        CPU-profiled run, at least one. None checks nothing.
      args: arguments of every run, in which $(rootpath ...) works and
        {outputs} stands for the directory of the outputs.
      kind: "go" (profiles through runtime/pprof's -cpuprofile) or "cc"
        (gperftools' profiler and tcmalloc, preloaded).
      language: the program's language in reports; "Go" or "C++" after
        kind when None.
      profiles: the profiles to take, "cpu" and "heap", each in a run of
        its own.
      memprofile_flag: whether the Go program has -memprofile FILE (a Havlak
        stage writes it after one pass and stops); otherwise its heap is
        profiled through lab.HeapProfileEnv over the whole run.
      heap_args: arguments added to the heap-profiled run only: gperftools'
        heap profiler records every allocation's stack, which over a whole
        run of an allocation-heavy program takes many times its run time.
      trace: whether to add a run with -trace FILE (a Go runtime/trace).
      repetitions: timed runs of each test; 5 or more let benchstat's
        Mann-Whitney U test tell a change from noise.
      quick_args: arguments of the quick test; None for no quick test.
      quick_expect: `expect` for the quick test; `expect` when None.
      data: files the arguments name.
      srcs: the program's sources, for `pprof -list`.
      tags: added to the tags of every target.
      visibility: visibility of every target.
      **kwargs: passed to the sh_test targets.
    """
    heap = _HEAP_MODES.get((kind, memprofile_flag))
    if not heap:
        fail("perf_benchmark {}: kind must be \"go\" or \"cc\", and memprofile_flag is for Go".format(name))
    b = struct(
        name = name,
        kind = kind,
        language = language or {"go": "Go", "cc": "C++"}[kind],
        heap = heap,
        binary = binary,
        profiles = profiles,
        heap_args = heap_args,
        trace = trace,
    )
    data = [binary, _XTIME, _PPROF] + data + srcs

    native.sh_binary(
        name = name,
        srcs = [_RUNNER],
        args = ["run"] + _runner_args(b, "standard", 1, expect, args),
        data = data,
        tags = tags,
        visibility = visibility,
    )

    # The profilers and the timings assume an x86-64 Linux host.
    compatible = [
        "@platforms//cpu:x86_64",
        "@platforms//os:linux",
    ]
    native.sh_test(
        name = name + "_test",
        srcs = [_RUNNER],
        args = ["test"] + _runner_args(b, "standard", repetitions, expect, args),
        data = data,
        tags = tags + PERF_TAGS,
        target_compatible_with = compatible,
        timeout = kwargs.pop("timeout", "long"),
        visibility = visibility,
        **kwargs
    )

    if quick_args != None:
        native.sh_test(
            name = name + "_quick_test",
            srcs = [_RUNNER],
            args = ["test"] + _runner_args(b, "quick", repetitions, quick_expect or expect, quick_args),
            data = data,
            tags = tags + QUICK_TAGS,
            target_compatible_with = compatible,
            visibility = visibility,
            **kwargs
        )
