"""count_worker_repository: the machine's facts that an exact count depends on."""

def _first_line(ctx, command):
    # As tools/result's versionLine reads a version: the first line of the
    # standard output, "" when the command fails or is missing, which the
    # count action then refuses, naming the field.
    result = ctx.execute(command)
    if result.return_code != 0:
        return ""
    return result.stdout.split("\n")[0]

def _count_worker_repository_impl(ctx):
    worker = {
        "system": _first_line(ctx, ["uname", "-s"]),
        "kernel": _first_line(ctx, ["uname", "-r"]),
        "machine": _first_line(ctx, ["uname", "-m"]),
        "libc": _first_line(ctx, ["ldd", "--version"]),
        "valgrind": _first_line(ctx, ["valgrind", "--version"]),
    }
    ctx.file("WORKSPACE", 'workspace(name = "{}")\n'.format(ctx.name))
    ctx.file("worker.json", json.encode_indent(worker) + "\n")
    ctx.file("BUILD.bazel", 'exports_files(["worker.json"])\n')

count_worker_repository = repository_rule(
    implementation = _count_worker_repository_impl,
    # Read again whenever the Bazel server starts: an upgraded Valgrind or
    # C library must change the key of every count action.
    local = True,
    doc = """The machine's kernel, instruction set, C library and Valgrind as `worker.json`
(package //tools/result, type CountWorker).

Every count action (perf_counts) has the file among its inputs, so a count
cached for one worker is never reused for another; the action checks that
the machine it runs on is this one (a remote worker of another kind refuses
to count rather than cache its count under this key).
""",
)
