"""A repository rule that fetches a pinned npm package with the host npm command.

npm brings its own registry configuration (npmrc, its environment), so nothing
in this workspace names a download host. The package tarball is pinned by its
sha256, which is stable for a published version: the registry never replaces
a version's tarball.
"""

def _npm_package_repository_impl(ctx):
    npm = ctx.which("npm")
    if not npm:
        fail("no npm command on PATH: it is needed to download the npm package " +
             "{} (tools/bazel installs Debian's npm when it is missing)".format(ctx.attr.package))
    spec = "{}@{}".format(ctx.attr.package, ctx.attr.version)
    scratch = ctx.path(".npm-pack")
    ctx.file(".npm-pack/.keep", "")
    ctx.report_progress("npm pack " + spec)

    # --ignore-scripts: packing a registry package must never run its code.
    result = ctx.execute(
        [npm, "pack", spec, "--json", "--ignore-scripts", "--silent"],
        working_directory = str(scratch),
        timeout = 600,
    )
    packed = json.decode(result.stdout) if result.return_code == 0 and result.stdout.strip().startswith("[") else []
    if len(packed) != 1 or not packed[0].get("filename"):
        fail("npm pack {} failed ({}):\n{}{}".format(spec, result.return_code, result.stdout, result.stderr))
    tarball = scratch.get_child(packed[0]["filename"])

    digest = ctx.execute(["sha256sum", str(tarball)])
    if digest.return_code != 0:
        fail("sha256sum {} failed: {}".format(tarball, digest.stderr))
    actual = digest.stdout.split(" ")[0]
    if not ctx.attr.sha256:
        fail("npm package {}: pin its tarball with sha256 = \"{}\"".format(spec, actual))
    if actual != ctx.attr.sha256:
        fail("npm package {}: tarball {} has sha256 {}, but {} is pinned".format(
            spec,
            packed[0]["filename"],
            actual,
            ctx.attr.sha256,
        ))

    # npm tarballs keep everything under package/.
    ctx.extract(tarball, stripPrefix = "package")
    ctx.delete(scratch)
    for path in ctx.attr.exports:
        if not ctx.path(path).exists:
            fail("npm package {} has no file {} (exports of @{})".format(spec, path, ctx.attr.name))
    ctx.file("BUILD.bazel", "exports_files(\n    {},\n    visibility = [\"//visibility:public\"],\n)\n".format(
        repr(ctx.attr.exports),
    ))

npm_package_repository = repository_rule(
    implementation = _npm_package_repository_impl,
    doc = """Extracts a pinned npm package as an external repository.

Its `exports` are the files other packages may use, e.g.
`@uplot//:dist/uPlot.iife.min.js`.
""",
    attrs = {
        "package": attr.string(
            mandatory = True,
            doc = "The npm package name, e.g. `uplot`.",
        ),
        "version": attr.string(
            mandatory = True,
            doc = "The exact version, e.g. `1.6.32`.",
        ),
        "sha256": attr.string(
            doc = "sha256 of the package tarball (`npm pack`'s .tgz). When " +
                  "empty, the fetch fails and prints the value to pin.",
        ),
        "exports": attr.string_list(
            mandatory = True,
            doc = "Paths inside the package (without `package/`) that the " +
                  "repository exports; the fetch fails when one is missing.",
        ),
    },
)
