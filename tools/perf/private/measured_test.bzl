"""Analysis tests of what a benchmark without a quick workload declares: the
manifest names it not measured, and says why; marked gated, its analysis
fails and says what to add."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load(":benchmark.bzl", "NO_QUICK_WORKLOAD", "perf_benchmark")
load(":info.bzl", "benchmark_info")
load(":manifest.bzl", "benchmark_manifest")

def _refused_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

_refused_test = analysistest.make(
    _refused_test_impl,
    expect_failure = True,
    attrs = {"message": attr.string(doc = "What the refusal must say.")},
)

def _manifest_content(env):
    """The manifest the target under test writes, decoded."""
    writes = [a for a in analysistest.target_actions(env) if a.mnemonic == "FileWrite"]
    asserts.equals(env, 1, len(writes), "the manifest's file writes")
    return json.decode(writes[0].content)

def _not_measured_test_impl(ctx):
    env = analysistest.begin(ctx)
    manifest = _manifest_content(env)
    by_name = {b["name"]: b for b in manifest["benchmarks"]}
    asserts.equals(env, 2, manifest["schema_version"], "a manifest with a benchmark not measured")
    unmeasured = by_name[ctx.attr.unmeasured]
    asserts.equals(env, NO_QUICK_WORKLOAD, unmeasured.get("not_measured"), "why it is not measured")
    asserts.false(env, "quick" in unmeasured["targets"], "a quick test of a benchmark without quick_args")
    measured = by_name[ctx.attr.measured]
    asserts.false(env, "not_measured" in measured, "not_measured of a benchmark with a quick test")
    asserts.true(env, "quick" in measured["targets"], "the quick test of a benchmark with quick_args")
    return analysistest.end(env)

_not_measured_test = analysistest.make(
    _not_measured_test_impl,
    attrs = {
        "measured": attr.string(doc = "The benchmark with a quick workload."),
        "unmeasured": attr.string(doc = "The benchmark without one."),
    },
)

def _all_measured_test_impl(ctx):
    env = analysistest.begin(ctx)
    manifest = _manifest_content(env)

    # Nothing needs version 2: the tools from before it still read it.
    asserts.equals(env, 1, manifest["schema_version"], "a manifest of measured benchmarks only")
    for b in manifest["benchmarks"]:
        asserts.false(env, "not_measured" in b, "not_measured of " + b["name"])
    return analysistest.end(env)

_all_measured_test = analysistest.make(_all_measured_test_impl)

def _specs(name):
    """The specs a perf_benchmark named name lists, those it has."""
    return [":" + name + suffix for suffix in ["_spec", "_test_spec"]]

def perf_measured_test_suite(name, binary):
    """The analysis tests of benchmarks not measured, in a test_suite.

    Args:
      name: the test_suite's name; the targets' names start with it.
      binary: a program for the benchmarks (analysed, never run).
    """
    common = dict(
        binary = binary,
        info = benchmark_info(study = "A test study"),
        profiles = ["cpu"],
        # Analysed by the tests below, never run or built by //...: the
        # gated one's analysis fails, on purpose.
        tags = ["manual"],
    )
    perf_benchmark(name = name + "_counted", quick_args = ["-n=10"], gated = True, **common)
    perf_benchmark(name = name + "_uncounted", **common)
    perf_benchmark(name = name + "_uncounted_gated", gated = True, **common)

    _refused_test(
        name = name + "_gated_test",
        message = ("//{}:{}: the benchmark {} is marked gated = True, but no gate can count and judge it: {}. " +
                   "Give it a quick workload (perf_benchmark's quick_args").format(
            native.package_name(),
            name + "_uncounted_gated_info",
            name + "_uncounted_gated",
            NO_QUICK_WORKLOAD,
        ),
        target_under_test = ":" + name + "_uncounted_gated_info",
    )

    benchmark_manifest(
        name = name + "_manifest",
        specs = _specs(name + "_counted") + [":" + name + "_counted_quick_test_spec"] + _specs(name + "_uncounted"),
        tags = ["manual"],
    )
    _not_measured_test(
        name = name + "_manifest_test",
        measured = name + "_counted",
        unmeasured = name + "_uncounted",
        target_under_test = ":" + name + "_manifest",
    )

    benchmark_manifest(
        name = name + "_measured_manifest",
        specs = _specs(name + "_counted") + [":" + name + "_counted_quick_test_spec"],
        tags = ["manual"],
    )
    _all_measured_test(
        name = name + "_measured_manifest_test",
        target_under_test = ":" + name + "_measured_manifest",
    )

    # A manifest that lists a benchmark without its quick test, whose
    # declaration says it is measured, would leave it out silently.
    benchmark_manifest(
        name = name + "_silent_manifest",
        specs = _specs(name + "_counted"),
        tags = ["manual"],
    )
    _refused_test(
        name = name + "_silent_manifest_test",
        message = "the benchmark {} has no quick test listed, and its declaration says not why it is not measured".format(name + "_counted"),
        target_under_test = ":" + name + "_silent_manifest",
    )

    native.test_suite(
        name = name,
        tests = [
            name + "_gated_test",
            name + "_manifest_test",
            name + "_measured_manifest_test",
            name + "_silent_manifest_test",
        ],
    )
