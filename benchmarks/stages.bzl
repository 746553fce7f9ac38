"""The stages of the Havlak study, declared once.

benchmarks/BUILD.bazel makes a benchmark of each, go/crosscheck's
differential test runs each program, cc/BUILD.bazel makes a parity test of
each Go/C++ pair, and //benchmarks:stages_readme_test checks that the
README names each. Adding a stage is adding a line here (and its package). What each stage
is, for results and reports, is declared here once: its benchmark_info,
which havlak.bzl hands whole to perf_benchmark.
"""

load("//tools/perf:defs.bzl", "benchmark_info")

HAVLAK_STUDY = "Havlak loop finding"

# The standard workload finds 76000 loops. The quick one, 3 trees of 50
# loops of 25 base loops, finds 3 * 50 * (3 * 25 + 1) = 11400, in well
# under a second even in havlak1, yet long enough for a CPU profile.
HAVLAK_WORKLOAD = "252013 blocks and 76000 loops, 1 + 50 loop-finding passes"
HAVLAK_QUICK_WORKLOAD = "3 trees of 50 loops"
HAVLAK_QUICK_ARGS = [
    "-dummy=1000",
    "-trees=3",
    "-loops=50",
    "-baseloops=25",
    "-iterations=10",
]

# How cost grows (docs/regressions.md, "How cost grows"): each stage's tests
# also count it under Cachegrind, one run a size, at several numbers of
# trees of the quick workload's shape, with no warm-up passes and one pass
# after the first, and fit the order of growth. N is the loops the workload
# makes, HAVLAK_SWEEP_LOOPS_PER_TREE a tree, which each run prints and is
# checked for. The quick tests' sizes keep a sweep under 7 s (havlak1,
# the slowest; docs/regressions.md has the measurements); the full-size
# tests', up to twice the standard workload's 20 trees, take about a
# minute for havlak1.
_SWEEP_LOOPS = 50
_SWEEP_BASE_LOOPS = 25
HAVLAK_SWEEP_ARGS = [
    "-dummy=0",
    "-loops={}".format(_SWEEP_LOOPS),
    "-baseloops={}".format(_SWEEP_BASE_LOOPS),
    "-iterations=1",
]
HAVLAK_SWEEP_LOOPS_PER_TREE = _SWEEP_LOOPS * (3 * _SWEEP_BASE_LOOPS + 1)
HAVLAK_QUICK_SWEEP_TREES = [1, 2, 4, 8]
HAVLAK_SWEEP_TREES = [5, 10, 20, 40]

# The variable through which a Go stage without -memprofile writes a heap
# profile of its whole run: lab.HeapProfileEnv (go/internal/lab).
HAVLAK_HEAP_PROFILE_ENV = "HAVLAK_HEAPPROFILE"

# The speed-ups of Go stages are measured against havlak1, of C++ ones
# against havlak1cc, unless a stage declares its own reference.
_REFERENCE = {
    "Go": "havlak1",
    "C++": "havlak1cc",
}

def _stage(name, package, language, stage, heap, counterpart = None, reference = None, args = [], fast = False, exact_allocations = None, layout = True):
    """One stage.

    Args:
      name: the benchmark's name; the program's, unless args are given.
      package: the stage's package: its binary has the package's name, its
        sources are its ":srcs".
      language: "Go" or "C++".
      stage: its place in the study, as in the article: 1 to 7.
      heap: how its heap is profiled: "flag" (the Go stages from havlak3
        on: -memprofile, after one pass), "env" (havlak1 and havlak2: over
        the whole run, through HAVLAK_HEAP_PROFILE_ENV) or "gperftools"
        (the C++ stages: tcmalloc, over the warm-up and the first pass).
      counterpart: the same stage in the other language.
      reference: the benchmark its speed-up is over, if not its
        language's first stage.
      args: arguments of every run. A stage with arguments is a variant of
        its package's program: benchmarked, not cross-checked again.
      fast: whether the differential test gives it its largest CFGs.
      exact_allocations: whether its counted runs allocate the same run
        after run, within a tenth of the gate's threshold
        (perf_benchmark's exact_allocations); None for a Go stage's
        default, True. Each thread the Go runtime starts, as Valgrind's
        timing makes it, allocates about 6 objects and 5 KB: nothing to
        the 0.28 to 2.9 million objects of havlak1 to havlak6, 1.4% of
        havlak7's 435 (docs/noise.md).
      layout: whether its package builds the program's layout variants
        (//tools/perf:defs.bzl's cc and go_layout_variants), whose counts
        calibrate the figures layout moves.

    Returns:
      the stage's struct: name, package, info (its benchmark_info: study,
      stage, language, counterpart, reference, workloads), heap, args, fast,
      program (whether it is its package's program), exact_allocations and
      layout.
    """
    return struct(
        name = name,
        package = package,
        info = benchmark_info(
            study = HAVLAK_STUDY,
            stage = stage,
            language = language,
            counterpart = counterpart,
            reference = reference or _REFERENCE[language],
            workload = HAVLAK_WORKLOAD,
            quick_workload = HAVLAK_QUICK_WORKLOAD,
        ),
        heap = heap,
        args = args,
        fast = fast,
        program = not args,
        exact_allocations = language == "Go" if exact_allocations == None else exact_allocations,
        layout = layout,
    )

HAVLAK_STAGES = [
    _stage("havlak1", "//go/havlak1", "Go", 1, "env", counterpart = "havlak1cc"),
    _stage("havlak2", "//go/havlak2", "Go", 2, "env"),
    _stage("havlak3", "//go/havlak3", "Go", 3, "flag"),
    _stage("havlak4", "//go/havlak4", "Go", 4, "flag"),
    _stage("havlak5", "//go/havlak5", "Go", 5, "flag"),
    _stage("havlak6", "//go/havlak6", "Go", 6, "flag", counterpart = "havlak6cc", fast = True),
    _stage("havlak6_noreuse", "//go/havlak6", "Go", 6, "flag", args = ["-reuseloopgraph=false"]),
    # One chapter further: the fastest loop finder we could write
    # (docs/havlak7.md).
    _stage("havlak7", "//go/havlak7", "Go", 7, "flag", counterpart = "havlak7cc", fast = True, exact_allocations = False),
    # havlak7's code again, compiled with a profile of havlak7 (docs/pgo.md):
    # its speed-up over havlak7 is what the compiler made of the profile.
    _stage("havlak8", "//go/havlak8", "Go", 8, "flag", counterpart = "havlak8cc", reference = "havlak7", fast = True, exact_allocations = False),
    # The C++ stages: Hundt's original style, and havlak6 and havlak7
    # translated back to C++.
    _stage("havlak1cc", "//cc/havlak1cc", "C++", 1, "gperftools", counterpart = "havlak1"),
    _stage("havlak6cc", "//cc/havlak6cc", "C++", 6, "gperftools", counterpart = "havlak6", fast = True),
    _stage("havlak7cc", "//cc/havlak7cc", "C++", 7, "gperftools", counterpart = "havlak7", fast = True),
    # havlak7cc compiled with GCC's profile feedback from a training run,
    # which a padding object would move: no layout variants.
    _stage("havlak8cc", "//cc/havlak8cc", "C++", 8, "gperftools", counterpart = "havlak8", reference = "havlak7cc", fast = True, layout = False),
]

HAVLAK_STAGES_BY_NAME = {s.name: s for s in HAVLAK_STAGES}

# The stages' programs, one each, for the differential and parity tests.
HAVLAK_PROGRAMS = [s for s in HAVLAK_STAGES if s.program]

def havlak_crosscheck_args():
    """go/crosscheck's -stages and -fast flags: every program, by name.

    Returns:
      the arguments, with $(rootpath) of each program.
    """
    return [
        "-stages=" + ",".join(["{}=$(rootpath {})".format(s.name, s.package) for s in HAVLAK_PROGRAMS]),
        "-fast=" + ",".join([s.name for s in HAVLAK_PROGRAMS if s.fast]),
    ]

def havlak_programs():
    """The labels of every stage's program, for a test's data.

    Returns:
      the labels, sorted.
    """
    return sorted([s.package for s in HAVLAK_PROGRAMS])
