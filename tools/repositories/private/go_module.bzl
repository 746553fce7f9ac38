"""Repository rules that fetch Go modules with the host go command.

The go command brings its own proxy and checksum-database configuration (its
environment, `go env -w`, GOROOT/go.env), so nothing in this workspace names a
download host. Each module zip is pinned by the sha256 of the file the go
command downloaded, which is stable for a module version.
"""

def _go_command(ctx):
    go = ctx.which("go")
    if not go:
        fail("no go command on PATH: it is needed to download Go modules " +
             "(tools/bazel installs Debian's golang-go when it is missing)")
    return go

# Variables that make the host go command behave the same on every machine:
# it downloads and nothing else, whatever go.mod or GOFLAGS it might find.
_DOWNLOAD_ENV = {
    "GO111MODULE": "on",
    "GOFLAGS": "-mod=mod",
    "GOTOOLCHAIN": "local",
}

def download_go_module(ctx, module, version, sha256):
    """Downloads a module zip into the module cache and checks its sha256.

    Args:
      ctx: the repository_ctx.
      module: the module path, e.g. "github.com/bazelbuild/rules_go".
      version: the module version, e.g. "v0.34.0".
      sha256: the expected sha256 of the module zip, hex.

    Returns:
      The path of the verified zip, whose single top folder is `module@version/`.
    """
    mod_at_ver = module + "@" + version
    ctx.report_progress("go mod download " + mod_at_ver)
    result = ctx.execute(
        [_go_command(ctx), "mod", "download", "-json", mod_at_ver],
        environment = _DOWNLOAD_ENV,
        timeout = 1200,
    )
    info = json.decode(result.stdout) if result.stdout.strip() else {}
    if result.return_code != 0 or info.get("Error") or not info.get("Zip"):
        fail("go mod download {} failed: {}{}".format(
            mod_at_ver,
            info.get("Error", ""),
            result.stderr,
        ))

    zip_path = info["Zip"]
    digest = ctx.execute(["sha256sum", zip_path])
    if digest.return_code != 0:
        fail("sha256sum {} failed: {}".format(zip_path, digest.stderr))
    actual = digest.stdout.split(" ")[0]
    if not sha256:
        fail("{}: pin the module zip with sha256 = \"{}\"".format(mod_at_ver, actual))
    if actual != sha256:
        fail("{}: module zip has sha256 {}, but {} is pinned".format(mod_at_ver, actual, sha256))
    return ctx.path(zip_path)

def _run(ctx, args, environment = {}, timeout = 600, working_directory = ""):
    result = ctx.execute(
        args,
        environment = environment,
        timeout = timeout,
        working_directory = working_directory,
    )
    if result.return_code != 0:
        fail("{} failed ({}):\n{}{}".format(
            " ".join([str(a) for a in args]),
            result.return_code,
            result.stdout,
            result.stderr,
        ))
    return result

def _go_module_repository_impl(ctx):
    zip_path = download_go_module(ctx, ctx.attr.module, ctx.attr.version, ctx.attr.sha256)
    ctx.extract(zip_path, stripPrefix = ctx.attr.module + "@" + ctx.attr.version)
    for patch in ctx.attr.patches:
        ctx.patch(patch, strip = 1)
    if ctx.attr.vendor:
        # Module zips never contain vendor/, but some rule sets build their own
        # tools in GOPATH mode from it.
        ctx.report_progress("go mod vendor " + ctx.attr.module)
        _run(
            ctx,
            [_go_command(ctx), "mod", "vendor"],
            environment = _DOWNLOAD_ENV,
            timeout = 1200,
        )

go_module_repository = repository_rule(
    implementation = _go_module_repository_impl,
    doc = """Extracts a pinned Go module as an external repository.

Used for Bazel rule sets that are published as Go modules (rules_go, gazelle),
because GitHub release archives cannot be downloaded here.
""",
    attrs = {
        "module": attr.string(
            mandatory = True,
            doc = "Module path, e.g. `github.com/bazelbuild/rules_go`.",
        ),
        "version": attr.string(
            mandatory = True,
            doc = "Module version, e.g. `v0.34.0`.",
        ),
        "sha256": attr.string(
            doc = "sha256 of the module zip. When empty, the fetch fails and " +
                  "prints the value to pin.",
        ),
        "patches": attr.label_list(
            doc = "Patch files applied with strip 1 after extraction.",
        ),
        "vendor": attr.bool(
            default = False,
            doc = "Run `go mod vendor` in the extracted module.",
        ),
    },
)

def _host_platform(ctx):
    arch = ctx.execute(["uname", "-m"]).stdout.strip()
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(arch, arch)
    os = ctx.os.name.lower()
    if os.startswith("linux"):
        os = "linux"
    elif os.startswith("mac"):
        os = "darwin"
    return os + "-" + arch

def _go_toolchain_repository_impl(ctx):
    platform = _host_platform(ctx)
    if platform not in ctx.attr.sha256s:
        fail("Go {} is pinned only for {}, not for this host ({})".format(
            ctx.attr.go_version,
            ", ".join(sorted(ctx.attr.sha256s.keys())),
            platform,
        ))
    module = "golang.org/toolchain"
    version = "v0.0.1-go{}.{}".format(ctx.attr.go_version, platform)
    zip_path = download_go_module(ctx, module, version, ctx.attr.sha256s[platform])
    ctx.extract(zip_path, stripPrefix = module + "@" + version)

    # Module zips record no file modes.
    _run(ctx, ["sh", "-c", "chmod +x bin/* pkg/tool/*/*"])

    # rules_go v0.34 links against precompiled std archives in GOROOT/pkg, which
    # Go stopped shipping in 1.20, and runs `pack`, which Go 1.25 dropped.
    # A private cache keeps the user's GOCACHE and go env out of the result.
    scratch = str(ctx.path(".scratch"))
    env = {
        "GOCACHE": scratch + "/cache",
        "GOPATH": scratch + "/gopath",
        "GOENV": "off",
        "GOFLAGS": "",
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "1",
        "GODEBUG": "installgoroot=all",
    }
    go = str(ctx.path("bin/go"))
    if ctx.os.environ.get("GO_REPOSITORY_USE_HOST_CACHE", "") == "1":
        # With the setting that makes gazelle's go_repository use the host's
        # Go caches (.bazelrc), the standard library compiles once per
        # machine, not once per output base: Go's build cache is keyed by
        # content, safe to share.
        host = _run(ctx, [go, "env", "GOCACHE"], environment = {"GOENV": "off", "GOTOOLCHAIN": "local"}).stdout.strip()
        if host.startswith("/"):
            env["GOCACHE"] = host
    ctx.report_progress("compiling the Go {} standard library".format(ctx.attr.go_version))
    _run(ctx, [go, "install", "std"], environment = env, timeout = 3600)
    goos, _, goarch = platform.partition("-")
    pack = "pkg/tool/{}_{}/pack".format(goos, goarch)
    if not ctx.path(pack).exists:
        # -trimpath: without it the binary holds this output base's path,
        # and since every Go action has the SDK's tools among its inputs,
        # no Go action of one checkout hit the cache another had filled
        # (main's post-merge step's, for a pull request's check).
        _run(ctx, [go, "build", "-trimpath", "-o", pack, "cmd/pack"], environment = env)
    ctx.delete(scratch)

    # go_wrap_sdk finds the SDK through this file.
    ctx.file("ROOT", "")
    ctx.file("BUILD.bazel", 'exports_files(["ROOT"])\n')

go_toolchain_repository = repository_rule(
    implementation = _go_toolchain_repository_impl,
    doc = """A Go distribution from the `golang.org/toolchain` module, ready for rules_go.

Wrap it with `go_wrap_sdk(name = "go_sdk", root_file = "@<name>//:ROOT")`.
""",
    attrs = {
        "go_version": attr.string(
            mandatory = True,
            doc = "Go release without the `go` prefix, e.g. `1.27.4`.",
        ),
        "sha256s": attr.string_dict(
            mandatory = True,
            doc = "sha256 of the toolchain module zip, keyed by platform " +
                  "(`linux-amd64`, …).",
        ),
    },
)
