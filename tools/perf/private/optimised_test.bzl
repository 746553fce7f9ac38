"""Analysis tests of how perf_spec builds the program it measures: a C or C++
program built --compilation_mode=opt whatever the build's mode (the compile
command lines carry the mode's flags, and the program's own copts after
them), a Go program in the build's own configuration, and nothing moved in a
build that is -c opt already."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load(":info.bzl", "benchmark_info", "declare_benchmark")
load(":spec.bzl", "perf_spec")

def _spec_and_binary(env):
    """The spec the target under test writes, and its program's File."""
    writes = [a for a in analysistest.target_actions(env) if a.mnemonic == "FileWrite"]
    asserts.equals(env, 1, len(writes), "the spec's file writes")
    spec = json.decode(writes[0].content)
    runfiles = analysistest.target_under_test(env)[DefaultInfo].default_runfiles.files.to_list()
    binaries = [f for f in runfiles if f.short_path == spec["binary"]]
    asserts.equals(env, 1, len(binaries), "files of the spec's binary {} in its runfiles".format(spec["binary"]))
    return spec, binaries[0], writes[0].outputs.to_list()[0]

def _configuration_test_impl(ctx):
    env = analysistest.begin(ctx)
    spec, binary, out = _spec_and_binary(env)
    asserts.equals(env, ctx.attr.mode, spec["build"]["compilation_mode"], "the program's compilation mode the spec records")
    if ctx.attr.own_configuration:
        asserts.equals(env, out.root.path, binary.root.path, "the program's output root: the spec's own")
    else:
        asserts.true(env, binary.root.path != out.root.path, "the program built in the spec's own configuration, " + out.root.path)
        asserts.true(env, "-opt" in binary.root.path, "the program's output root {}: not an opt configuration's".format(binary.root.path))
    return analysistest.end(env)

_CONFIGURATION_ATTRS = {
    "mode": attr.string(doc = "The compilation mode the spec must record: its program's."),
    "own_configuration": attr.bool(doc = "Whether the program must be built in the spec's own configuration."),
}

# Bazel's default mode, whatever the command line says.
_FASTBUILD = {"//command_line_option:compilation_mode": "fastbuild"}

_configuration_test = analysistest.make(_configuration_test_impl, attrs = _CONFIGURATION_ATTRS, config_settings = _FASTBUILD)

_configuration_opt_test = analysistest.make(
    _configuration_test_impl,
    attrs = _CONFIGURATION_ATTRS,
    config_settings = {"//command_line_option:compilation_mode": "opt"},
)

_CompileFlagsInfo = provider(
    doc = "The command lines of the C and C++ compiles of a spec's program.",
    fields = {"argvs": "A depset of command lines, each its flags joined by newlines."},
)

def _compile_flags_aspect_impl(target, ctx):
    # Bazel 4.2.3 gives a C++ compile's Action no argv: the command line is
    # the toolchain's, in the program's configuration, with the target's copts.
    own = []
    if ctx.rule.kind in ["cc_binary", "cc_library"] and ctx.rule.files.srcs:
        toolchain = ctx.attr._cc_toolchain[cc_common.CcToolchainInfo]
        features = cc_common.configure_features(ctx = ctx, cc_toolchain = toolchain)
        variables = cc_common.create_compile_variables(
            feature_configuration = features,
            cc_toolchain = toolchain,
            user_compile_flags = ctx.rule.attr.copts,
        )
        own.append("\n".join(cc_common.get_memory_inefficient_command_line(
            feature_configuration = features,
            action_name = "c++-compile",
            variables = variables,
        )))
    deps = []
    for name in ["binary", "deps"]:
        value = getattr(ctx.rule.attr, name, [])
        for d in value if type(value) == "list" else [value]:
            if type(d) == "Target" and _CompileFlagsInfo in d:
                deps.append(d[_CompileFlagsInfo].argvs)
    return [_CompileFlagsInfo(argvs = depset(own, transitive = deps))]

_compile_flags_aspect = aspect(
    implementation = _compile_flags_aspect_impl,
    attr_aspects = ["binary", "deps"],
    attrs = {"_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain")},
    fragments = ["cpp"],
)

def _compile_flags_impl(ctx):
    return [ctx.attr.spec[_CompileFlagsInfo]]

# The compile command lines of a spec's program, for a test to read.
_compile_flags = rule(
    implementation = _compile_flags_impl,
    attrs = {"spec": attr.label(aspects = [_compile_flags_aspect])},
)

def _last(argv, prefix):
    """The last flag of argv that starts with prefix, or ""."""
    found = ""
    for a in argv:
        if a.startswith(prefix):
            found = a
    return found

def _compile_flags_test_impl(ctx):
    env = analysistest.begin(ctx)
    argvs = analysistest.target_under_test(env)[_CompileFlagsInfo].argvs.to_list()
    asserts.true(env, len(argvs) > 0, "no compile of the program")
    for argv in [line.split("\n") for line in argvs]:
        # --compilation_mode=opt's flags, which fastbuild has none of.
        for flag in ["-O2", "-DNDEBUG"]:
            asserts.true(env, flag in argv, "{} not among the compile's flags: {}".format(flag, argv))
        asserts.equals(env, ctx.attr.last_o, _last(argv, "-O"), "the compile's last -O flag")
        asserts.equals(env, ctx.attr.last_g, _last(argv, "-g"), "the compile's last -g flag")
    return analysistest.end(env)

_compile_flags_test = analysistest.make(
    _compile_flags_test_impl,
    attrs = {
        "last_g": attr.string(doc = "The last -g flag of every compile: -g keeps line tables, opt's -g0 drops them."),
        "last_o": attr.string(doc = "The last -O flag of every compile."),
    },
    config_settings = _FASTBUILD,
)

def perf_optimised_test_suite(name, plain, with_copts, go_program):
    """The analysis tests of how a spec's program is built, in a test_suite.

    Args:
      name: the test_suite's name; the targets' names start with it.
      plain: a C++ program none of whose targets has copts.
      with_copts: the same program with "-O3" and "-g" in its copts.
      go_program: a Go program.
    """
    common = dict(
        config = "quick",
        kind = "program",
        profiles = ["cpu"],
        repetitions = 1,
        # The specs are analysed, never run: no test runs them.
        target = name,
        testonly = True,
        tags = ["manual"],
    )
    cc_info = declare_benchmark(benchmark_info(study = "A test study"), name + "_cc", "C++", testonly = True)
    go_info = declare_benchmark(benchmark_info(study = "A test study"), name + "_go", "Go", testonly = True)
    perf_spec(name = name + "_plain", binary = plain, info = cc_info, profiler = "cc", **common)
    perf_spec(name = name + "_with_copts", binary = with_copts, info = cc_info, profiler = "cc", **common)
    perf_spec(name = name + "_go", binary = go_program, info = go_info, profiler = "go", **common)
    for spec in ["plain", "with_copts"]:
        _compile_flags(name = "{}_{}_flags".format(name, spec), spec = ":{}_{}".format(name, spec), testonly = True, tags = ["manual"])

    # A C or C++ program, in the default mode: built opt, elsewhere.
    _configuration_test(name = name + "_cc_test", mode = "opt", target_under_test = ":" + name + "_plain")

    # Already -c opt: the build's own configuration, the same outputs.
    _configuration_opt_test(name = name + "_cc_in_opt_test", mode = "opt", own_configuration = True, target_under_test = ":" + name + "_plain")

    # A Go program is left as the build has it.
    _configuration_test(name = name + "_go_test", mode = "fastbuild", own_configuration = True, target_under_test = ":" + name + "_go")

    # opt's flags, then the program's own: no -g of its own, no line tables.
    _compile_flags_test(name = name + "_plain_flags_test", last_o = "-O2", last_g = "-g0", target_under_test = ":" + name + "_plain_flags")

    # The lab's kind of copts win: -O3, and -g's line tables for pprof -list.
    _compile_flags_test(name = name + "_with_copts_flags_test", last_o = "-O3", last_g = "-g", target_under_test = ":" + name + "_with_copts_flags")

    native.test_suite(
        name = name,
        tests = [name + t for t in ["_cc_test", "_cc_in_opt_test", "_go_test", "_plain_flags_test", "_with_copts_flags_test"]],
    )
