"""perf_counts: a program's exact counts on its quick workload, as a Bazel
action that any worker of the same kind may run and any cache may keep.

The counts (Cachegrind's instructions and simulated cache misses, counted
allocations, system calls, the sweep's fit) are a function of the binary,
its declared run and the machine's kernel, C library and Valgrind, never of
its load or speed. So they are an ordinary action: its inputs are exactly
the spec and what its runfiles hold (the binary, the data files its
arguments name, xtime and pprof), the runner that counts, and the worker
the count is for (@count_worker//:worker.json); not the build's status,
whose commit moves with every change and no count depends on. With
--config=buildbarn it runs on the cluster's workers; a second build of the
same inputs, anywhere the cache is shared, counts nothing.
"""

load(":spec.bzl", "PerfSpecInfo")

PerfCountsInfo = provider(
    doc = "A benchmark's count action, for benchmark_manifest.",
    fields = {
        "benchmark": "The benchmark's BenchmarkInfo.",
        "layout_variant": "The layout variant of the program it counts (layout.bzl), from 1; 0 for the program itself.",
        "output": "The File of its outputs' zip.",
        "spec": "The File of the spec it counts (the quick test's).",
        "target": "The Label of the perf_counts target.",
    },
)

def _inputs_line(f):
    # perfrun.StageInputs's line: the runfiles path the spec names, then
    # where the action sees the file.
    return "{}\t{}".format(f.short_path, f.path)

def _perf_counts_impl(ctx):
    spec = ctx.attr.spec[PerfSpecInfo]
    if spec.kind not in ["program", "go_test"]:
        fail("perf_counts {}: {} is a spec of kind {}; only a program's and a go_test's counts are an action".format(ctx.label, ctx.attr.spec.label, spec.kind))
    status = ctx.file._status
    files = [f for f in ctx.attr.spec[DefaultInfo].default_runfiles.files.to_list() if f != status]
    lines = ctx.actions.args()
    lines.set_param_file_format("multiline")
    lines.add_all(files, map_each = _inputs_line)
    inputs = ctx.actions.declare_file(ctx.label.name + ".inputs")
    ctx.actions.write(inputs, lines)
    out = ctx.actions.declare_file(ctx.label.name + ".zip")
    ctx.actions.run(
        executable = ctx.executable._runner,
        arguments = ["count", spec.spec.short_path, ctx.file._worker.path, inputs.path, out.path],
        inputs = depset([inputs, ctx.file._worker] + files),
        outputs = [out],
        mnemonic = "PerfCount",
        progress_message = "Counting %s" % spec.benchmark.name,
        # PATH, as every action of the lab sees it (--incompatible_strict_action_env):
        # Valgrind, ldd and taskset come from the worker's system.
        use_default_shell_env = True,
    )
    return [
        DefaultInfo(files = depset([out])),
        PerfCountsInfo(benchmark = spec.benchmark, layout_variant = ctx.attr.layout_variant, output = out, spec = spec.spec, target = ctx.label),
    ]

perf_counts = rule(
    implementation = _perf_counts_impl,
    doc = "The count action of a program benchmark's quick workload, or of a go_benchmark's " +
          "benchmarks' own instructions per operation: `name + \".zip\"`, " +
          "an outputs.zip whose result.json has config \"counts\" (//tools/result).",
    attrs = {
        "spec": attr.label(mandatory = True, providers = [PerfSpecInfo], doc = "The quick test's perf_spec, or a layout variant's."),
        "layout_variant": attr.int(doc = "The layout variant the spec runs (layout.bzl), from 1; 0 for the program itself."),
        # The target configuration's runner, the one the quick test runs:
        # the lab's tools and benchmarks run on one kind of machine, and
        # this builds it once.
        "_runner": attr.label(default = Label("//tools/perf/runner"), executable = True, cfg = "target"),
        "_status": attr.label(default = Label("//tools/perf/private:build_status"), allow_single_file = True),
        "_worker": attr.label(default = Label("@count_worker//:worker.json"), allow_single_file = True),
    },
)
