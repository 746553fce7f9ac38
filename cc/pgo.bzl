"""cc_pgo_binary: a C++ program compiled with GCC's profile feedback.

The program is compiled three times over in one rule: instrumented
(-fprofile-generate) and linked; run once on its training arguments, a
build action, which leaves each object's counts (.gcda); then compiled
again with -fprofile-use, those counts among the inputs of each compile,
and linked. A change to the sources, the options or the training arguments
retrains; the counts are build outputs, cached like any other.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

# With the counts, GCC also turns on the optimisations that feed on them
# (-fbranch-probabilities, -fvpt, -funroll-loops, -fpeel-loops, -ftracer,
# ...). A profile that does not match the code is an error
# (-Werror=coverage-mismatch is GCC's default); a missing .gcda file is only
# a warning ("profile count data file not found"), which cannot be made an
# error alone: -Werror=missing-profile also fails on the functions the
# instrumented build inlined away (a static helper such as havlak7cc's
# Csr). The rule puts each object's counts where GCC looks, and the
# training action fails unless it produced every one.
_PROFILE_USE_FLAGS = ["-fprofile-use"]

def _compile(ctx, name, cc_toolchain, feature_configuration, flags, additional_inputs = []):
    _, outputs = cc_common.compile(
        name = name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        srcs = ctx.files.srcs,
        private_hdrs = ctx.files.hdrs,
        compilation_contexts = [dep[CcInfo].compilation_context for dep in ctx.attr.deps],
        user_compile_flags = ctx.attr.copts + flags,
        additional_inputs = additional_inputs,
        # One kind of object, so that each has one .gcda file.
        disallow_nopic_outputs = True,
    )

    # Bazel links position-independent objects into a binary in some
    # compilation modes and the others in -c opt; these serve as both.
    return cc_common.create_compilation_outputs(
        objects = depset(outputs.pic_objects),
        pic_objects = depset(outputs.pic_objects),
    )

def _link(ctx, name, cc_toolchain, feature_configuration, compilation_outputs, flags = []):
    outputs = cc_common.link(
        name = name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = compilation_outputs,
        linking_contexts = [dep[CcInfo].linking_context for dep in ctx.attr.deps],
        user_link_flags = flags,
        output_type = "executable",
    )
    return outputs.executable

def _objects_dir(ctx, name):
    """Where cc_common.compile(name = name) puts its objects."""
    return "{}/{}/_objs/{}".format(ctx.bin_dir.path, ctx.label.package, name)

def _cc_pgo_binary_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    training_name = ctx.label.name + "_training"
    training_objects = _compile(ctx, training_name, cc_toolchain, feature_configuration, ["-fprofile-generate"])
    instrumented = _link(
        ctx,
        training_name,
        cc_toolchain,
        feature_configuration,
        training_objects,
        flags = ["-fprofile-generate"],
    )

    # The optimising compile of _objs/NAME/x.o reads _objs/NAME/x.gcda from
    # its working directory: the counts of the instrumented x.o.
    training_dir = _objects_dir(ctx, training_name)
    counts_dir = _objects_dir(ctx, ctx.label.name)
    counts = []
    for obj in training_objects.pic_objects:
        if not obj.path.startswith(training_dir + "/") or not obj.path.endswith(".o"):
            fail("{}: an object outside {} or without .o: {}".format(ctx.label, training_dir, obj.path))
        relative = obj.path[len(training_dir) + 1:-len(".o")]
        counts.append(ctx.actions.declare_file("_objs/{}/{}.gcda".format(ctx.label.name, relative)))
    if not counts:
        fail("{}: no objects to train".format(ctx.label))
    ctx.actions.run(
        executable = ctx.executable._train,
        arguments = [instrumented.path, counts_dir, training_dir] + ctx.attr.training_args,
        inputs = [instrumented],
        outputs = counts,
        mnemonic = "CcPgoTrain",
        progress_message = "Training {} (profile feedback)".format(ctx.label),
    )

    optimised = _compile(
        ctx,
        ctx.label.name,
        cc_toolchain,
        feature_configuration,
        _PROFILE_USE_FLAGS,
        additional_inputs = counts,
    )
    executable = _link(ctx, ctx.label.name, cc_toolchain, feature_configuration, optimised)
    return [
        DefaultInfo(
            executable = executable,
            files = depset([executable]),
            runfiles = ctx.runfiles(files = [executable]),
        ),
        OutputGroupInfo(profile_data = depset(counts)),
    ]

cc_pgo_binary = rule(
    implementation = _cc_pgo_binary_impl,
    doc = """A C++ program compiled with GCC's profile feedback from a training
run, which is a build action: see the module's docstring. Its output group
`profile_data` holds the counts (.gcda) the optimising compile read.""",
    attrs = {
        "srcs": attr.label_list(
            allow_files = [".cc"],
            mandatory = True,
            doc = "The program's own C++ sources: these are trained and optimised.",
        ),
        "hdrs": attr.label_list(
            allow_files = [".h"],
            doc = "Headers of the sources.",
        ),
        "deps": attr.label_list(
            providers = [CcInfo],
            doc = "Libraries, linked as they are (no profile feedback).",
        ),
        "copts": attr.string_list(
            doc = "Compiler options of both compiles, before the profile's own.",
        ),
        "training_args": attr.string_list(
            doc = "The arguments of the training run (its output is discarded; it must succeed).",
        ),
        "_cc_toolchain": attr.label(
            default = "@bazel_tools//tools/cpp:current_cc_toolchain",
        ),
        "_train": attr.label(
            default = Label("//cc:pgo_train"),
            executable = True,
            cfg = "host",
        ),
    },
    executable = True,
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)
