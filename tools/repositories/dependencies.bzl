"""havlak_lab_dependencies: the first of the two WORKSPACE phases of havlak-lab.

It declares the repositories the lab's rules, runner, count worker and
toolchains come from: Debian's rule sets, rules_go and gazelle (patched,
fetched as Go modules by the host go command), the Go SDK, the count worker's
facts of this machine and the report's charting library. The second phase,
havlak_lab_setup (setup.bzl), loads from some of them, so it comes after a
load of its own:

    load("@havlak_lab//tools/repositories:dependencies.bzl", "havlak_lab_dependencies")

    havlak_lab_dependencies()

    load("@havlak_lab//tools/repositories:setup.bzl", "havlak_lab_setup")

    havlak_lab_setup()

Every repository is declared under maybe(): one of the same name declared
before the call is kept. rules_go, gazelle and the Go SDK are the ones a
workspace can have only one of; a consumer takes the lab's (docs/adopting.md).
This repository's own WORKSPACE calls the same two macros.

Labels are Label()s, which resolve in the lab's repository whichever
workspace calls the macro (a plain "//..." string would resolve in the
caller's).
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load(":defs.bzl", "count_worker_repository", "coverage_tools_stub_repository", "go_module_repository", "go_toolchain_repository", "local_patched_repository", "npm_package_repository")

def _debian_rule_sets():
    # bazel-skylib, bazel-platforms and bazel-rules-java as Debian installs
    # them (tools/bazel installs the packages).
    maybe(native.local_repository, name = "bazel_skylib", path = "/usr/share/bazel/tools/skylib")
    maybe(native.local_repository, name = "platforms", path = "/usr/share/bazel/tools/platforms")
    maybe(native.local_repository, name = "rules_java", path = "/usr/share/bazel/rules/java")

    # rules_cc 0.0.4 from Debian's bazel-rules-cc; two of its rules call a
    # function Bazel 4.2.3's @bazel_tools lacks (the patch says which).
    maybe(
        local_patched_repository,
        name = "rules_cc",
        patches = [Label("//tools/repositories/patches:rules_cc-0.0.4-bazel-4.2.3.patch")],
        path = "/usr/share/bazel/rules/cc",
    )

    # Every test depends on it; its real archive is on an unreachable host.
    maybe(coverage_tools_stub_repository, name = "remote_coverage_tools")

def _go_rule_sets():
    # rules_go v0.34.0 is the newest release that supports Bazel 4.2.3.
    maybe(
        go_module_repository,
        name = "io_bazel_rules_go",
        module = "github.com/bazelbuild/rules_go",
        patches = [
            Label("//tools/repositories/patches:rules_go-v0.34.0-go1.21.patch"),
            # pgoprofile on go_binary (rules_go has it from v0.42, which needs
            # a newer Bazel): every Go compile of the binary reads the
            # profile, the standard library's included, the file an input of
            # each.
            Label("//tools/repositories/patches:rules_go-v0.34.0-pgoprofile.patch"),
            # A go_test keeps its symbols, as a go_binary does: a
            # go_benchmark's count tells its own instructions from the
            # runtime's by them.
            Label("//tools/repositories/patches:rules_go-v0.34.0-test-symbols.patch"),
        ],
        sha256 = "c485387052fd81576e104fe12687963f340cc06350936561b9ee4b2ef87ea4e0",
        version = "v0.34.0",
    )

    # gazelle v0.26.0 pairs with rules_go v0.34.0.
    maybe(
        go_module_repository,
        name = "bazel_gazelle",
        module = "github.com/bazelbuild/bazel-gazelle",
        patches = [
            Label("//tools/repositories/patches:gazelle-v0.26.0-skylib-1.0.3.patch"),
            Label("//tools/repositories/patches:gazelle-v0.26.0-tools-trimpath.patch"),
        ],
        sha256 = "7b03ade8beb8a05ee598c149f8c85621c64aecd8d90bfc1b955b8987a2a5c76e",
        vendor = True,
        version = "v0.26.0",
    )

    # The Go SDK; havlak_lab_setup wraps it as @go_sdk.
    maybe(
        go_toolchain_repository,
        name = "go_toolchain",
        go_version = "1.27.4",
        sha256s = {
            "linux-amd64": "7ecd542f86ccbbb5017de33ac529872bc48c71f4edb658d63a18d2206f482b9b",
        },
    )

def havlak_lab_dependencies():
    """Declares the repositories of havlak-lab that need no load of their own.

    Call it in a WORKSPACE, then havlak_lab_setup() from setup.bzl after
    loading it. Pinned and fetched without GitHub, mirror.bazel.build or
    dl.google.com; docs/toolchains.md says how to update each pin.
    """
    _debian_rule_sets()

    # What this machine brings to an exact count (its kernel, C library and
    # Valgrind): an input of every count action (tools/perf/private/counts.bzl).
    maybe(count_worker_repository, name = "count_worker")

    _go_rule_sets()

    # uPlot draws the report's trend charts; //internal/uplot inlines it into
    # the page.
    maybe(
        npm_package_repository,
        name = "uplot",
        package = "uplot",
        sha256 = "4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d",
        version = "1.6.32",
        exports = [
            "LICENSE",
            "dist/uPlot.iife.min.js",
            "dist/uPlot.min.css",
        ],
    )
