"""Analysis tests of perf_spec's refusal of a C or C++ program built
unoptimised: refused in the default compilation mode, saying how to fix it;
accepted once its targets have an -O flag, or in --compilation_mode=opt."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load(":info.bzl", "benchmark_info", "declare_benchmark")
load(":spec.bzl", "PerfSpecInfo", "perf_spec")

def _refused_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

_FASTBUILD = {"//command_line_option:compilation_mode": "fastbuild"}

_refused_test = analysistest.make(
    _refused_test_impl,
    expect_failure = True,
    attrs = {"message": attr.string(doc = "What the refusal must say.")},
    # Bazel's default mode, whatever the command line says.
    config_settings = _FASTBUILD,
)

def _accepted_test_impl(ctx):
    env = analysistest.begin(ctx)
    info = analysistest.target_under_test(env)[PerfSpecInfo]
    asserts.equals(env, "program", info.kind)
    return analysistest.end(env)

_accepted_test = analysistest.make(_accepted_test_impl, config_settings = _FASTBUILD)

_accepted_opt_test = analysistest.make(
    _accepted_test_impl,
    config_settings = {"//command_line_option:compilation_mode": "opt"},
)

def perf_optimised_test_suite(name, unoptimised, optimised):
    """The analysis tests of C and C++ programs' optimisation, in a test_suite.

    Args:
      name: the test_suite's name; the targets' names start with it.
      unoptimised: a C++ program one of whose targets has no -O flag.
      optimised: the same program, each target with one.
    """
    common = dict(
        info = declare_benchmark(benchmark_info(study = "A test study"), name, "C++", testonly = True),
        config = "quick",
        kind = "program",
        profiler = "cc",
        profiles = ["cpu"],
        repetitions = 1,
        # The specs are analysed, never run: no test runs them.
        target = name,
        testonly = True,
        # Only the tests below analyse them: the refused one fails.
        tags = ["manual"],
    )
    perf_spec(name = name + "_unoptimised", binary = unoptimised, **common)
    perf_spec(name = name + "_optimised", binary = optimised, **common)

    _refused_test(
        name = name + "_unoptimised_test",
        message = ("the C or C++ program {} would be measured unoptimised, at -O0: {} compile with no -O flag " +
                   "in their copts, and this build is --compilation_mode=fastbuild with none in --copt. " +
                   "Give them copts with one").format(
            Label(unoptimised),
            Label(unoptimised).relative(":sum"),
        ),
        target_under_test = ":" + name + "_unoptimised",
    )
    _accepted_test(
        name = name + "_optimised_test",
        target_under_test = ":" + name + "_optimised",
    )
    _accepted_opt_test(
        name = name + "_opt_test",
        target_under_test = ":" + name + "_unoptimised",
    )

    native.test_suite(
        name = name,
        tests = [
            name + "_opt_test",
            name + "_optimised_test",
            name + "_unoptimised_test",
        ],
    )
