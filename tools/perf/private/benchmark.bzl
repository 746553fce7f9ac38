"""Implementation of perf_benchmark; load it from //tools/perf:defs.bzl."""

load(":counts.bzl", "perf_counts")
load(":info.bzl", "declare_benchmark")
load(":spec.bzl", "perf_spec")
load(":sweep.bzl", "sweep_json")
load(":tags.bzl", "PERF_TAGS", "QUICK_TAGS")

_RUNNER = Label("//tools/perf/runner")

# Why a perf_benchmark without quick_args is not measured: what its
# declaration says, and the manifest, the perf check and the night after it.
NO_QUICK_WORKLOAD = "no quick workload: its perf_benchmark gives no quick_args, " + \
                    "so it has no quick test, no count and no Cachegrind run for a gate to judge"

def _heap_mode(name, kind, profiles, memprofile_flag, heap_profile_env):
    """How the program writes a heap profile (see the runner's Spec)."""
    if kind == "cc":
        if memprofile_flag or heap_profile_env:
            fail("perf_benchmark {}: memprofile_flag and heap_profile_env are for Go programs".format(name))
        return "gperftools"  # tcmalloc's $HEAPPROFILE, by LD_PRELOAD
    if kind != "go":
        fail("perf_benchmark {}: kind must be \"go\" or \"cc\"".format(name))
    if memprofile_flag:
        return "flag"  # -memprofile FILE
    if heap_profile_env:
        return "env"  # $heap_profile_env names the file
    if "heap" in profiles:
        fail("perf_benchmark {}: a Go heap profile needs memprofile_flag or heap_profile_env".format(name))
    return ""

def _spec(b, target, config, repetitions, expect, args, counted = True, sweep = None, layout_variant = 0, binary = None):
    """The perf_spec of b's target, in config; returns its label.

    A layout variant's spec runs the variant's binary, counted once.
    """
    perf_spec(
        name = target + "_spec",
        info = b.info,
        target = target,
        repetitions = repetitions,
        kind = "program",
        config = config,
        binary = binary or b.binary,
        layout_variant = layout_variant,
        program_args = args,
        data = b.data,
        expect = expect or "",
        profiler = b.kind,
        profiles = b.profiles,
        heap = b.heap,
        heap_env = b.heap_env,
        heap_args = b.heap_args,
        trace = b.trace,
        counted_args = b.counted_args if counted else [],
        counted_expect = b.counted_expect or "",
        counted_repetitions = (1 if layout_variant else b.counted_repetitions) if counted and b.counted_args else 0,
        pin_cpu = b.pin_cpu,
        disable_aslr = b.disable_aslr,
        sweep = sweep_json(sweep, b.name),
        exact_allocations = b.exact_allocations,
        steady_cache_misses = b.steady_cache_misses,
        tags = b.tags,
    )
    return ":" + target + "_spec"

def perf_benchmark(
        name,
        binary,
        info,
        expect = None,
        args = [],
        kind = "go",
        profiles = ["cpu", "heap"],
        memprofile_flag = False,
        heap_profile_env = None,
        heap_args = [],
        trace = False,
        repetitions = 5,
        quick_args = None,
        quick_expect = None,
        counted_repetitions = 3,
        pin_cpu = "last",
        disable_aslr = False,
        sweep = None,
        quick_sweep = None,
        exact_allocations = False,
        steady_cache_misses = False,
        layout_variants = [],
        gated = False,
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
      JSON, the Go-benchmark-format lines (for benchstat) and result.json
      (package //tools/result: the benchmark's info, the environment, the
      timings and the list of files) land in the test's outputs.zip.
    * `name + "_quick_test"`, when `quick_args` is given: the same with
      those arguments, in the default test set so that every CI run
      exercises the harness.
    * `name + "_counts"`, with the quick test: the quick workload's exact
      counts alone, as a build action (perf_counts, counts.bzl) that a
      remote worker may run and a cache keep; tagged `manual`: the perf
      check builds it, `bazel test //...` does not.
    * `name + "_spec"`, `name + "_test_spec"`, `name + "_quick_test_spec"`:
      what the runner (//tools/perf/runner) is told about each (perf_spec).
    * `name + "_info"`: the benchmark's BenchmarkInfo, which the specs
      record and benchmark_manifest lists.

    Args:
      name: the benchmark's name, also its name in Go benchmark format.
      binary: the program to measure.
      info: what the benchmark is: its benchmark_info (study, stage,
        language, counterpart, reference, workloads); a language of None is
        "Go" or "C++" after kind.
      expect: an extended regular expression for the lines of a correct
        run's output; every run must print the same number of them as the
        CPU-profiled run, at least one. None checks nothing.
      args: arguments of every run, in which $(rootpath ...) works and
        {outputs} stands for the directory of the outputs.
      kind: "go" (profiles through runtime/pprof's -cpuprofile) or "cc"
        (gperftools' profiler and tcmalloc, preloaded): a "cc" program, and
        its layout variants, are built --compilation_mode=opt whatever the
        build's mode (spec.bzl's transition); its copts follow the mode's
        flags, so it needs a -g of its own for line tables.
      profiles: the profiles to take, "cpu" and "heap", each in a run of
        its own.
      memprofile_flag: whether the Go program has -memprofile FILE (a Havlak
        stage writes it after one pass and stops).
      heap_profile_env: for a Go program without -memprofile, the name of
        the environment variable through which it writes a heap profile
        over its whole run (the file's path is its value).
      heap_args: arguments added to the heap-profiled run only: gperftools'
        heap profiler records every allocation's stack, which over a whole
        run of an allocation-heavy program takes many times its run time.
      trace: whether to add a run with -trace FILE (a Go runtime/trace).
      repetitions: timed runs of each test; 5 or more let benchstat's
        Mann-Whitney U test tell a change from noise.
      quick_args: arguments of the quick test, its quick workload's: they
        buy the quick test, the count action and the runs under
        Cachegrind, which the perf check and the night gate. None for no
        quick test: then nothing counts the benchmark, and its declaration,
        the manifest, the perf check's comment and the night name it "not
        measured" and say why (NO_QUICK_WORKLOAD).
      quick_expect: `expect` for the quick test; `expect` when None.
      counted_repetitions: runs under Cachegrind, on the quick workload, in
        both tests: they count the instructions the regression gate judges
        (docs/noise.md); 0 for none. Cachegrind runs a
        program about 50 times slower: the full workload would take
        minutes per run for the slower stages.
      pin_cpu: the CPU the timed runs are pinned to with taskset: a
        number, "last" (the last CPU the runner may use) or "none"; runs
        are not pinned where taskset is missing or there is one CPU.
      disable_aslr: whether the timed runs go under setarch -R (address
        space randomization off); off by default, see the runner's pin.go.
      sweep: a workload_sweep(): the full-size test also counts the program
        under Cachegrind at each of its sizes and fits how the gated count
        grows (result.json's sweeps, judged by the gate); None for none.
      quick_sweep: the same for the quick test, at sizes cheap enough for
        the default test set.
      exact_allocations: whether a Go program allocates the same objects
        in every run on the same input with the collector off (nothing it
        allocates depends on how its goroutines are scheduled): the bytes
        and objects its counted runs allocate (counted_alloc_bytes,
        counted_alloc_objects) are then gated like instructions
        (docs/noise.md measured which are); otherwise they are shown only.
      steady_cache_misses: whether a Go program's own first-level data
        cache misses (Cachegrind's simulation, outside the runtime) move by
        well under the gate's 1% from run to run: they are then gated (a C
        or C++ program's are exact, and always gated). A program that
        spends its time in system calls has them moved by the runtime's
        work around each call (docs/noise.md).
      layout_variants: the program's layout variants (layout.bzl's
        layout_variants(binary)): each quick workload counted as
        `name + "_layout_" + N + "_counts"`, once, beside the program's own
        count action; the spread over them calibrates what layout moves.
      gated: the benchmark must be counted and gated: without quick_args,
        the analysis of its targets (its declaration's, `name + "_info"`)
        fails, so `bazel test` and `bazel build` of them fail, saying to
        give it quick_args. It changes nothing else.
      data: files the arguments name.
      srcs: the program's sources, for `pprof -list`.
      tags: added to the tags of every target.
      visibility: visibility of every target.
      **kwargs: passed to the sh_test targets.
    """
    heap = _heap_mode(name, kind, profiles, memprofile_flag, heap_profile_env)
    if (exact_allocations or steady_cache_misses) and kind != "go":
        fail("perf_benchmark {}: exact_allocations and steady_cache_misses are for Go programs (a C or C++ program's counts are exact, and gated)".format(name))

    b = struct(
        name = name,
        binary = binary,
        info = declare_benchmark(
            info,
            name,
            {"go": "Go", "cc": "C++"}[kind],
            not_measured = NO_QUICK_WORKLOAD if quick_args == None else "",
            gated = gated,
            tags = tags,
        ),
        data = data + srcs,
        kind = kind,
        profiles = profiles,
        heap = heap,
        heap_env = heap_profile_env or "",
        heap_args = heap_args,
        trace = trace,
        counted_args = quick_args or [],
        counted_expect = quick_expect or expect,
        counted_repetitions = counted_repetitions,
        pin_cpu = pin_cpu,
        disable_aslr = disable_aslr,
        exact_allocations = exact_allocations,
        steady_cache_misses = steady_cache_misses,
        tags = tags,
    )

    # `bazel run` of a C or C++ program also counts one run of the quick
    # workload, the low-noise figure a Go program's run shows as its
    # allocations (the runner's runcount.go).
    run_spec = _spec(b, name, "run", 1, expect, args, counted = kind == "cc")
    native.sh_binary(
        name = name,
        srcs = [_RUNNER],
        args = [
            "run",
            "$(rootpath {})".format(run_spec),
        ],
        data = [run_spec],
        tags = tags,
        visibility = visibility,
    )

    # The profilers and the timings assume an x86-64 Linux host.
    compatible = [
        "@platforms//cpu:x86_64",
        "@platforms//os:linux",
    ]
    test_spec = _spec(b, name + "_test", "perf", repetitions, expect, args, sweep = sweep)
    native.sh_test(
        name = name + "_test",
        srcs = [_RUNNER],
        args = [
            "test",
            "$(rootpath {})".format(test_spec),
        ],
        data = [test_spec],
        tags = tags + PERF_TAGS,
        target_compatible_with = compatible,
        timeout = kwargs.pop("timeout", "long"),
        visibility = visibility,
        **kwargs
    )

    if quick_args != None:
        quick_spec = _spec(b, name + "_quick_test", "quick", repetitions, quick_expect or expect, quick_args, sweep = quick_sweep)
        native.sh_test(
            name = name + "_quick_test",
            srcs = [_RUNNER],
            args = [
                "test",
                "$(rootpath {})".format(quick_spec),
            ],
            data = [quick_spec],
            tags = tags + QUICK_TAGS,
            target_compatible_with = compatible,
            visibility = visibility,
            **kwargs
        )
        perf_counts(
            name = name + "_counts",
            spec = quick_spec,
            # The quick test counts the same in every CI run; this is the
            # perf check's, which builds it when the benchmark changed.
            tags = tags + ["manual"],
            target_compatible_with = compatible,
            visibility = visibility,
        )
        for v, variant in enumerate(layout_variants, 1):
            counts = "{}_layout_{}_counts".format(name, v)
            perf_counts(
                name = counts,
                spec = _spec(b, counts, "quick", 1, quick_expect or expect, quick_args, layout_variant = v, binary = variant),
                layout_variant = v,
                tags = tags + ["manual"],
                target_compatible_with = compatible,
                visibility = visibility,
            )
