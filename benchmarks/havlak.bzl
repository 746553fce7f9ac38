"""havlak_benchmark: perf_benchmark for a stage of the Havlak benchmark."""

load("//tools/perf:defs.bzl", "perf_benchmark")

# The standard workload finds 76000 loops. The quick one, 3 trees of 50
# loops of 25 base loops, finds 3 * 50 * (3 * 25 + 1) = 11400, in well
# under a second even in havlak1, yet long enough for a CPU profile.
_QUICK_ARGS = [
    "-dummy=1000",
    "-trees=3",
    "-loops=50",
    "-baseloops=25",
    "-iterations=10",
]

def _loop_count(loops):
    return "^# of loops: {} \\(plus 1 artificial root node\\)$".format(loops)

def havlak_benchmark(name, stage, args = [], kind = "go", **kwargs):
    """Benchmarks a stage on the standard workload, plus a quick test.

    Args:
      name: the benchmark's name.
      stage: the stage's package, e.g. "//go/havlak6"; its binary has the
        package's name and its sources are its ":srcs".
      args: arguments added to every run.
      kind: "go" or "cc". A C++ stage's heap is profiled over the warm-up
        and the first pass only (-iterations=0), as -memprofile does for
        the Go stages from havlak3 on: tcmalloc's heap profiler would take
        tens of minutes over havlak1cc's whole run.
      **kwargs: passed to perf_benchmark.
    """
    perf_benchmark(
        name = name,
        binary = stage,
        args = args,
        kind = kind,
        heap_args = ["-iterations=0"] if kind == "cc" else [],
        expect = _loop_count(76000),
        quick_args = _QUICK_ARGS + args,
        quick_expect = _loop_count(11400),
        srcs = [stage + ":srcs"],
        **kwargs
    )
