"""havlak_cc_stage: the targets of one C++ stage of the benchmark."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//cc:copts.bzl", "HAVLAK_COPTS")
load("//tools/perf:defs.bzl", "layout_pads", "layout_variant_name")

# The parts every stage has, as the Go stages do: the CFG, the loop
# structure graph, Havlak's algorithm, and the Finder that binds them to the
# benchmark driver of //cc/lab.
_PARTS = ["cfg", "finder", "havlak", "lsg"]

def havlak_cc_stage(name):
    """The targets of the C++ stage in this package.

    Creates `name` (the stage's program, from main.cc), `name + "_test"`
    (havlak_test.cc, with GoogleTest), `srcs` (the sources, for pprof
    -list in //benchmarks) and `program_srcs` and `program_hdrs` (the
    program's own sources and headers, without the test), over a private library `name + "_lib"` of the
    stage's parts: cfg, finder, havlak and lsg, each a .cc and a .h.

    Args:
      name: the stage's name, e.g. "havlak6cc".
    """
    lib = name + "_lib"
    cc_library(
        name = lib,
        srcs = [part + ".cc" for part in _PARTS],
        hdrs = [part + ".h" for part in _PARTS],
        copts = HAVLAK_COPTS,
        visibility = ["//visibility:private"],
        deps = ["//cc/lab"],
    )

    cc_binary(
        name = name,
        srcs = ["main.cc"],
        copts = HAVLAK_COPTS,
        visibility = ["//visibility:public"],
        deps = [
            ":" + lib,
            "//cc/lab",
        ],
    )

    # The program's layout variants (//tools/perf/private/layout.bzl): its
    # objects linked after a padding object of each variant's own, which
    # comes first so that it moves them.
    for v, pad in enumerate(layout_pads(name, "c++"), 1):
        cc_library(
            name = pad[1:] + "_lib",
            srcs = [pad],
            alwayslink = True,
            visibility = ["//visibility:private"],
        )
        cc_binary(
            name = layout_variant_name(name, v),
            srcs = ["main.cc"],
            copts = HAVLAK_COPTS,
            tags = ["manual"],
            visibility = ["//visibility:public"],
            deps = [
                pad + "_lib",
                ":" + lib,
                "//cc/lab",
            ],
        )

    cc_test(
        name = name + "_test",
        size = "small",
        srcs = ["havlak_test.cc"],
        copts = HAVLAK_COPTS,
        data = ["//testdata/cfgs"],
        # GoogleTest comes from Debian's libgtest-dev, which tools/bazel
        # installs.
        linkopts = [
            "-lgtest",
            "-lgtest_main",
            "-pthread",
        ],
        deps = [
            ":" + lib,
            "//cc/lab",
            "//cc/lab/labtest",
        ],
    )

    # The program's own sources, for a build of them with profile feedback
    # (//cc/havlak8cc, and one of the regression suite's patches applied,
    # //cc/regressionsuite), and for the regression suite's check that its
    # patches still apply.
    native.filegroup(
        name = "program_srcs",
        srcs = ["main.cc"] + [part + ".cc" for part in _PARTS],
        visibility = [
            "//cc:__subpackages__",
            "//tools/regressionsuite/suite:__pkg__",
        ],
    )
    native.filegroup(
        name = "program_hdrs",
        srcs = [part + ".h" for part in _PARTS],
        visibility = [
            "//cc:__subpackages__",
            "//tools/regressionsuite/suite:__pkg__",
        ],
    )

    native.filegroup(
        name = "srcs",
        srcs = native.glob([
            "*.cc",
            "*.h",
        ]),
        visibility = [
            "//benchmarks:__pkg__",
            "//cc:__subpackages__",
        ],
    )
