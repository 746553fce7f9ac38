"""A copy of a local directory, patched: a local_repository that can be patched.

Debian installs Bazel rule sets as directories under /usr/share/bazel; this
rule turns one into a repository with patches applied, like the rule sets
fetched as Go modules (go_module.bzl).
"""

def _local_patched_repository_impl(ctx):
    source = ctx.path(ctx.attr.path)
    if not source.exists:
        fail("{} does not exist (tools/bazel installs the Debian package that has it)".format(ctx.attr.path))
    result = ctx.execute(["cp", "-R", str(source) + "/.", "."])
    if result.return_code != 0:
        fail("copying {} failed: {}".format(ctx.attr.path, result.stderr))
    for patch in ctx.attr.patches:
        ctx.patch(patch, strip = 1)

local_patched_repository = repository_rule(
    implementation = _local_patched_repository_impl,
    doc = "A copy of the local directory `path` with `patches` applied.",
    attrs = {
        "path": attr.string(
            mandatory = True,
            doc = "Absolute path of the repository's directory, e.g. `/usr/share/bazel/rules/cc`.",
        ),
        "patches": attr.label_list(
            doc = "Patch files applied with strip 1 after copying.",
        ),
    },
)
