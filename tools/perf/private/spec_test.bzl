"""Analysis tests of perf_spec: a spec of one kind is refused when it sets
another kind's attributes, and a good spec writes the section of its kind
alone."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load(":info.bzl", "benchmark_info", "declare_benchmark")
load(":spec.bzl", "PerfSpecInfo", "perf_spec")

def _mixed_kinds_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

_mixed_kinds_test = analysistest.make(
    _mixed_kinds_test_impl,
    expect_failure = True,
    attrs = {"message": attr.string(doc = "What the refusal must say.")},
)

def _one_section_test_impl(ctx):
    env = analysistest.begin(ctx)
    writes = [a for a in analysistest.target_actions(env) if a.mnemonic == "FileWrite"]
    asserts.equals(env, 1, len(writes), "the spec's file writes")
    spec = json.decode(writes[0].content)
    asserts.equals(env, 2, spec["schema_version"])
    asserts.equals(env, "program", spec["benchmark"]["kind"])
    asserts.equals(env, "A test study", spec["benchmark"]["study"])
    asserts.true(env, "program" in spec, "a program section")
    for other in ["go_test", "server"]:
        asserts.false(env, other in spec, "a {} section in a program's spec".format(other))

    # What the manifest lists of it.
    info = analysistest.target_under_test(env)[PerfSpecInfo]
    asserts.equals(env, "quick", info.config)
    asserts.equals(env, "A test study", info.benchmark.study)
    asserts.equals(env, ctx.attr.target_under_test.label.relative(":spec_test"), info.target)
    return analysistest.end(env)

_one_section_test = analysistest.make(_one_section_test_impl)

def perf_spec_test_suite(name, binary, targets):
    """The analysis tests of perf_spec, in a test_suite.

    Args:
      name: the test_suite's name; the targets' names start with it.
      binary: a program for the specs (analysed, never run).
      targets: a file for a server's load_targets.
    """
    common = dict(
        info = declare_benchmark(benchmark_info(study = "A test study"), name, "Go", testonly = True),
        binary = binary,
        config = "quick",
        repetitions = 1,
        # The specs are analysed, never run: no test runs them.
        target = name,
        testonly = True,
    )

    # The specs under test: the refused ones only analysed by their tests.
    perf_spec(
        name = name + "_program_with_load",
        kind = "program",
        load_connections = 8,
        load_targets = targets,
        profiler = "go",
        # Its analysis fails, on purpose: only its test analyses it.
        tags = ["manual"],
        **common
    )
    _mixed_kinds_test(
        name = name + "_program_with_load_test",
        message = "perf_spec //{}:{}: a spec of kind \"program\" takes none of the attributes of kind \"server\", but sets load_connections, load_targets".format(
            native.package_name(),
            name + "_program_with_load",
        ),
        target_under_test = ":" + name + "_program_with_load",
    )

    perf_spec(
        name = name + "_go_test_with_profiles",
        bench = ".",
        count = 1,
        kind = "go_test",
        profiles = ["cpu"],
        # As above: only its test analyses it.
        tags = ["manual"],
        **common
    )
    _mixed_kinds_test(
        name = name + "_go_test_with_profiles_test",
        message = "a spec of kind \"go_test\" takes none of the attributes of kind \"program\", but sets profiles",
        target_under_test = ":" + name + "_go_test_with_profiles",
    )

    perf_spec(
        name = name + "_program",
        kind = "program",
        pin_cpu = "last",
        profiler = "go",
        profiles = ["cpu"],
        **common
    )
    _one_section_test(
        name = name + "_program_test",
        target_under_test = ":" + name + "_program",
    )

    native.test_suite(
        name = name,
        tests = [
            name + "_go_test_with_profiles_test",
            name + "_program_test",
            name + "_program_with_load_test",
        ],
    )
