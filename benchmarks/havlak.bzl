"""havlak_benchmark: perf_benchmark for a stage of the Havlak benchmark."""

load("//tools/perf:defs.bzl", "layout_variants", "perf_benchmark", "sweep_point", "workload_sweep")
load(
    ":stages.bzl",
    "HAVLAK_HEAP_PROFILE_ENV",
    "HAVLAK_QUICK_ARGS",
    "HAVLAK_QUICK_SWEEP_TREES",
    "HAVLAK_SWEEP_ARGS",
    "HAVLAK_SWEEP_LOOPS_PER_TREE",
    "HAVLAK_SWEEP_TREES",
)

def _loop_count(loops):
    return "^# of loops: {} \\(plus 1 artificial root node\\)$".format(loops)

def _sweep(trees, stage):
    """The stage's sweep over numbers of trees: N is the loops found."""
    return workload_sweep(
        n = "loops found",
        points = [
            sweep_point(
                n = t * HAVLAK_SWEEP_LOOPS_PER_TREE,
                args = HAVLAK_SWEEP_ARGS + ["-trees={}".format(t)] + stage.args,
                expect = _loop_count(t * HAVLAK_SWEEP_LOOPS_PER_TREE),
            )
            for t in trees
        ],
    )

def havlak_benchmark(stage, **kwargs):
    """Benchmarks a stage on the standard workload, plus a quick test.

    Args:
      stage: the stage, an element of HAVLAK_STAGES (stages.bzl). A C++
        stage's heap is profiled over the warm-up and the first pass only
        (-iterations=0), as -memprofile does for the Go stages from havlak3
        on: tcmalloc's heap profiler would take tens of minutes over
        havlak1cc's whole run.
      **kwargs: passed to perf_benchmark.
    """
    perf_benchmark(
        name = stage.name,
        binary = stage.package,
        # What the stage is, as stages.bzl declares it.
        info = stage.info,
        args = stage.args,
        kind = "cc" if stage.info.language == "C++" else "go",
        memprofile_flag = stage.heap == "flag",
        heap_profile_env = HAVLAK_HEAP_PROFILE_ENV if stage.heap == "env" else None,
        heap_args = ["-iterations=0"] if stage.heap == "gperftools" else [],
        expect = _loop_count(76000),
        quick_args = HAVLAK_QUICK_ARGS + stage.args,
        quick_expect = _loop_count(11400),
        # Every stage is counted and gated: without quick_args its analysis
        # would fail.
        gated = True,
        exact_allocations = stage.exact_allocations,
        # Every Go stage's own D1 misses move by 0.2% at most
        # (docs/noise.md).
        steady_cache_misses = stage.info.language == "Go",
        srcs = [stage.package + ":srcs"],
        sweep = _sweep(HAVLAK_SWEEP_TREES, stage),
        quick_sweep = _sweep(HAVLAK_QUICK_SWEEP_TREES, stage),
        layout_variants = layout_variants(stage.package) if stage.layout else [],
        **kwargs
    )
