"""A local stand-in for a repository Bazel 4.2.3 would fetch from an unreachable host."""

_COVERAGE_UNSUPPORTED = """#!/bin/sh
echo "$0: coverage is not supported in havlak-lab (Bazel's coverage tools cannot be downloaded here)" >&2
exit 1
"""

def _coverage_tools_stub_repository_impl(ctx):
    ctx.file("WORKSPACE", 'workspace(name = "{}")\n'.format(ctx.name))
    ctx.file("unsupported.sh", _COVERAGE_UNSUPPORTED, executable = True)
    ctx.file("BUILD.bazel", """\
# Every test depends on these two targets, even when coverage is off.
[
    sh_binary(
        name = tool,
        srcs = ["unsupported.sh"],
        visibility = ["//visibility:public"],
    )
    for tool in [
        "coverage_report_generator",
        "lcov_merger",
    ]
]
""")

coverage_tools_stub_repository = repository_rule(
    implementation = _coverage_tools_stub_repository_impl,
    doc = """Stands in for `@remote_coverage_tools`, which every `*_test` depends on.

`bazel coverage` fails with a message saying it is unsupported.
""",
)
