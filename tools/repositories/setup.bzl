"""havlak_lab_setup: the second of the two WORKSPACE phases of havlak-lab.

After havlak_lab_dependencies() (dependencies.bzl) has declared rules_go,
gazelle, skylib and the Go SDK, this loads from them: it declares the Go
modules of the lab's tools (deps.bzl, under maybe()), rules_go's and
gazelle's own dependencies, the Go SDK as @go_sdk, and registers the
toolchains (Go's, skylib's unittest's).
"""

load("@bazel_gazelle//:deps.bzl", "gazelle_dependencies")
load("@bazel_skylib//:workspace.bzl", "bazel_skylib_workspace")
load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load("@io_bazel_rules_go//go:deps.bzl", "go_register_toolchains", "go_rules_dependencies", "go_wrap_sdk")
load("//:deps.bzl", "go_dependencies")

def havlak_lab_setup(go_repository_config = Label("//:WORKSPACE")):
    """Declares the lab's Go modules and registers its toolchains.

    Call it in a WORKSPACE after havlak_lab_dependencies(). A go_repository
    declared before it, of a name the lab also uses, is kept (maybe()).

    Args:
      go_repository_config: the WORKSPACE whose `# gazelle:repository_macro`
        directives tell every go_repository the names and naming conventions
        of the others (gazelle's go_repository_default_config). By default
        the lab's, which lists the lab's modules (the Go modules a consumer
        declares itself are then known by gazelle's default names only); a
        workspace that needs its own known passes its own ("@//:WORKSPACE",
        which takes a BUILD file beside it).
    """

    # skylib's unittest toolchains, which its analysistest runs on
    # (//tools/perf/private:spec_test).
    bazel_skylib_workspace()

    # The modules of go.mod, and two that go_rules_dependencies() would
    # fetch from GitHub (deps.bzl says why).
    go_dependencies()

    go_rules_dependencies()

    maybe(
        go_wrap_sdk,
        name = "go_sdk",
        root_file = "@go_toolchain//:ROOT",
    )

    go_register_toolchains()

    gazelle_dependencies(
        go_repository_default_config = go_repository_config,
        go_sdk = "go_sdk",
    )
