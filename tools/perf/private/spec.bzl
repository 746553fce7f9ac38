"""perf_spec: what the runner (//tools/perf/runner) needs to know about one
benchmark target, written at analysis time as JSON, and PerfSpecInfo, its
provider; build_status: Bazel's stable workspace status as a file tests can
read.

The spec is one JSON object (package //tools/perf/perfspec, type Spec): a
common part and the section of the benchmark's kind, only that one.

    schema_version  2 (perfspec.SchemaVersion)
    benchmark   the result.Benchmark object result.json records: name,
                kind ("program", "go_test" or "server"), study, stage,
                language, counterpart, reference, workload {name,
                description}, repetitions; all but kind, workload's
                name and repetitions come from the benchmark's
                BenchmarkInfo (info.bzl), the target `info`
    build       {compilation_mode, config}: "perf", "quick" or "run"
    status      runfiles path of Bazel's stable-status.txt (build_status)
    binary      runfiles path of the program, the server or the go_test
    pprof       runfiles path of pprof
    args        the program's arguments, $(rootpath ...) expanded;
                {outputs} is left for the runner
    expect      the regular expression of a correct run's lines (a
                server's answers), or ""
    program     kind "program": xtime (runfiles path); profiler "go" or
                "cc"; profiles ["cpu", "heap"], either or none; heap
                "flag", "env" or "gperftools", heap_env the variable of
                "env", heap_args the heap-profiled run's extra arguments;
                trace, whether to add a traced run (-trace FILE);
                counted {args, expect, repetitions} of the runs under
                Cachegrind that count instructions, or null; pin_cpu, the
                CPU the timed runs are pinned to (taskset -c): a number,
                "last" (the last CPU the runner may use) or "none";
                disable_aslr, whether they go under setarch -R;
                sweep {n, points [{n, args, expect}]}, the sizes at
                which the test counts the program to fit how its cost
                grows (sweep.bzl), or absent
                exact_allocations, whether a Go program's allocation
                counts are exact, and gated; steady_cache_misses, whether
                its own D1 misses are steady, and gated
    go_test     kind "go_test": {bench, count, benchtime} of the go_test
                binary's run
    server      kind "server": its load: connections, rate, warmup,
                duration, profile, trace (durations), targets (runfiles
                path of the requests file), ready (the path that must
                answer first), block_profile_rate, mutex_profile_fraction

perf_spec's attributes are grouped the same way; an attribute of another
kind than the spec's is refused at analysis time. The spec of a C or C++
program (kind "program", profiler "cc") has it built optimised, whatever
the build's compilation mode: its `binary` is built --compilation_mode=opt
(_optimised_transition), and build.compilation_mode records the program's
mode. optimised_cc_program builds another program so, for a test that
measures it beside a benchmark's.
"""

load(":info.bzl", "BenchmarkInfo")

PerfSpecInfo = provider(
    doc = "One spec of a benchmark, for benchmark_manifest: which target " +
          "it is of and where its file is.",
    fields = {
        "benchmark": "The benchmark's BenchmarkInfo.",
        "config": "\"perf\", \"quick\" or \"run\": which of the benchmark's targets.",
        "kind": "\"program\", \"go_test\" or \"server\".",
        "spec": "The spec's File.",
        "target": "The Label of the test or binary that runs the spec.",
    },
)

_COMPILATION_MODE = "//command_line_option:compilation_mode"

def _measures_cc(attr):
    """Whether a spec with these attributes measures a C or C++ program."""
    return attr.kind == "program" and attr.profiler == "cc"

def _optimised_transition_impl(settings, attr):
    if _measures_cc(attr):
        return {_COMPILATION_MODE: "opt"}
    return {_COMPILATION_MODE: settings[_COMPILATION_MODE]}

# The configuration a spec's program is built in: a C or C++ program's is
# --compilation_mode=opt, whatever the build's, so that it is timed and
# counted optimised (Bazel's default mode, fastbuild, optimises nothing: a
# program without an -O flag of its own would run at -O0); every other
# program's is the build's own, unchanged (the same output paths). A build
# that is -c opt already (--config=perf) changes nothing.
_optimised_transition = transition(
    implementation = _optimised_transition_impl,
    inputs = [_COMPILATION_MODE],
    outputs = [_COMPILATION_MODE],
)

def _opt_transition_impl(settings, attr):
    return {_COMPILATION_MODE: "opt"}

# _optimised_transition's of a C or C++ program: optimised_cc_program's.
_opt_transition = transition(
    implementation = _opt_transition_impl,
    inputs = [],
    outputs = [_COMPILATION_MODE],
)

_BuildInfo = provider(
    doc = "The compilation mode of the configuration a spec's program is built in.",
    fields = {"compilation_mode": "\"opt\", \"fastbuild\" or \"dbg\"."},
)

def _build_aspect_impl(target, ctx):
    return [_BuildInfo(compilation_mode = ctx.var["COMPILATION_MODE"])]

# The compilation mode a spec's program is built in, which the spec
# records (build.compilation_mode): the program's, not the spec's own.
_build_aspect = aspect(implementation = _build_aspect_impl)

_ALLOWLIST = "@bazel_tools//tools/allowlists/function_transition_allowlist"

def _binary(ctx):
    """The Target of `binary`, which its transition makes a list of one."""
    b = ctx.attr.binary
    return b[0] if type(b) == "list" else b

def _runfiles_path(f):
    # A file's path from the runfiles root of this workspace, as
    # $(rootpath) gives it ("../repo/..." for other repositories).
    return f.short_path

# The attributes of each kind's section. Each is empty (0, "", [], None,
# False) unless set: an attribute of another kind that is set is an error.
_PROGRAM_ATTRS = {
    "counted_args": attr.string_list(doc = "program: the arguments of the runs under Cachegrind; $(rootpath) works."),
    "counted_expect": attr.string(doc = "program: `expect` of the runs under Cachegrind."),
    "counted_repetitions": attr.int(doc = "program: runs under Cachegrind; 0 for none."),
    "disable_aslr": attr.bool(doc = "program: run the timed runs under setarch -R (off by default: see the runner's pin.go)."),
    "steady_cache_misses": attr.bool(doc = "program: a Go program whose own D1 misses are steady run to run: they are gated."),
    "exact_allocations": attr.bool(doc = "program: a Go program whose counted runs allocate the same in every run: their allocations are gated."),
    "heap": attr.string(values = ["", "flag", "env", "gperftools"], doc = "program: how it writes a heap profile."),
    "heap_args": attr.string_list(doc = "program: extra arguments of the heap-profiled run."),
    "heap_env": attr.string(doc = "program: the variable naming the heap profile's file, for heap \"env\"."),
    "pin_cpu": attr.string(doc = "program: the CPU the timed runs are pinned to: a number, \"last\" (or \"\") or \"none\"."),
    "profiler": attr.string(values = ["", "go", "cc"], doc = "program: go: runtime/pprof flags; cc: gperftools."),
    "profiles": attr.string_list(doc = "program: \"cpu\", \"heap\": the profiles to take."),
    "sweep": attr.string(doc = "program: the workload sweep (sweep.bzl's sweep_json), or \"\" for none."),
    "trace": attr.bool(doc = "program: whether to add a traced run."),
}

_GO_TEST_ATTRS = {
    "bench": attr.string(doc = "go_test: the -test.bench regular expression."),
    "benchtime": attr.string(doc = "go_test: -test.benchtime, or \"\" for Go's default."),
    "count": attr.int(doc = "go_test: -test.count."),
    "go_counted_repetitions": attr.int(doc = "go_test: values of each benchmark's own instructions per operation its count action gives; 0 for no count."),
}

_SERVER_ATTRS = {
    "block_profile_rate": attr.int(doc = "server: the server's -blockprofilerate, ns."),
    "load_connections": attr.int(doc = "server: requests in flight at a time."),
    "load_duration": attr.string(doc = "server: each measured round's length (\"5s\")."),
    "load_profile": attr.string(doc = "server: the CPU, block, mutex and allocs profiles' window."),
    "load_rate": attr.int(doc = "server: requests per second; 0 for a closed loop."),
    "load_ready": attr.string(doc = "server: the path that must answer 200 before the load."),
    "load_targets": attr.label(allow_single_file = True, doc = "server: the requests, \"METHOD /path\" a line."),
    "load_trace": attr.string(doc = "server: the execution trace's length."),
    "load_warmup": attr.string(doc = "server: the warm-up's length."),
    "mutex_profile_fraction": attr.int(doc = "server: the server's -mutexprofilefraction."),
}

_KIND_ATTRS = {
    "go_test": _GO_TEST_ATTRS,
    "program": _PROGRAM_ATTRS,
    "server": _SERVER_ATTRS,
}

def _check_kind(ctx):
    """Fails unless only the attributes of the spec's kind are set."""
    kind = ctx.attr.kind
    for other, attrs in _KIND_ATTRS.items():
        if other == kind:
            continue
        offending = sorted([name for name in attrs if getattr(ctx.attr, name)])
        if offending:
            fail("perf_spec {}: a spec of kind \"{}\" takes none of the attributes of kind \"{}\", but sets {}".format(
                ctx.label,
                kind,
                other,
                ", ".join(offending),
            ))

def _expand(ctx, args):
    """args with $(rootpath ...) of `binary` and `data` expanded."""
    return [ctx.expand_location(arg, ctx.attr.data + [_binary(ctx)]) for arg in args]

def _program(ctx):
    a = ctx.attr
    if not a.profiler:
        fail("perf_spec {}: a program needs a profiler, \"go\" or \"cc\"".format(ctx.label))
    return struct(
        xtime = _runfiles_path(ctx.executable._xtime),
        profiler = a.profiler,
        profiles = a.profiles,
        heap = a.heap,
        heap_env = a.heap_env,
        heap_args = a.heap_args,
        trace = a.trace,
        counted = struct(
            args = _expand(ctx, a.counted_args),
            expect = a.counted_expect,
            repetitions = a.counted_repetitions,
        ) if a.counted_repetitions > 0 else None,
        pin_cpu = a.pin_cpu,
        disable_aslr = a.disable_aslr,
        exact_allocations = a.exact_allocations,
        steady_cache_misses = a.steady_cache_misses,
        sweep = _sweep(ctx, a.sweep) if a.sweep else None,
    )

def _sweep(ctx, sweep):
    """The spec's sweep: its points' arguments expanded."""
    s = json.decode(sweep)
    return struct(
        n = s["n"],
        points = [
            struct(n = p["n"], args = _expand(ctx, p["args"]), expect = p["expect"])
            for p in s["points"]
        ],
    )

def _go_test(ctx):
    a = ctx.attr
    if not a.bench or a.count < 1:
        fail("perf_spec {}: a go_test needs bench and a count of 1 or more".format(ctx.label))
    return struct(
        bench = a.bench,
        count = a.count,
        benchtime = a.benchtime,
        counted_repetitions = a.go_counted_repetitions,
    )

def _server(ctx):
    a = ctx.attr
    if not ctx.file.load_targets or a.load_connections < 1:
        fail("perf_spec {}: a server needs load_targets and load_connections".format(ctx.label))
    return struct(
        connections = a.load_connections,
        rate = a.load_rate,
        warmup = a.load_warmup,
        duration = a.load_duration,
        profile = a.load_profile,
        trace = a.load_trace,
        targets = _runfiles_path(ctx.file.load_targets),
        ready = a.load_ready,
        block_profile_rate = a.block_profile_rate,
        mutex_profile_fraction = a.mutex_profile_fraction,
    )

def _benchmark(ctx):
    """The result.Benchmark object of the spec, from its BenchmarkInfo."""
    info = ctx.attr.info[BenchmarkInfo]
    quick = ctx.attr.config == "quick"
    return struct(
        name = info.name,
        kind = ctx.attr.kind,
        study = info.study,
        stage = info.stage,
        language = info.language,
        counterpart = info.counterpart,
        reference = info.reference,
        workload = struct(
            name = "quick" if quick else "standard",
            description = info.quick_workload if quick else info.workload,
        ),
        repetitions = ctx.attr.repetitions,
    )

def _perf_spec_impl(ctx):
    _check_kind(ctx)
    kind = ctx.attr.kind
    sections = {
        "go_test": _go_test,
        "program": _program,
        "server": _server,
    }
    spec = struct(
        schema_version = 2,
        benchmark = _benchmark(ctx),
        build = struct(
            compilation_mode = _binary(ctx)[_BuildInfo].compilation_mode,
            config = ctx.attr.config,
        ),
        status = _runfiles_path(ctx.file._status),
        binary = _runfiles_path(ctx.executable.binary),
        pprof = _runfiles_path(ctx.executable._pprof),
        args = _expand(ctx, ctx.attr.program_args),
        expect = ctx.attr.expect,
        **{kind: sections[kind](ctx)}
    )
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    ctx.actions.write(out, json.encode_indent(spec) + "\n")
    runfiles = ctx.runfiles(files = [out, ctx.file._status] + ctx.files.data + ctx.files.load_targets)
    tools = [ctx.attr._xtime] if kind == "program" else []
    for t in [_binary(ctx), ctx.attr._pprof] + tools + ctx.attr.data:
        runfiles = runfiles.merge(t[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(
            files = depset([out]),
            runfiles = runfiles,
        ),
        PerfSpecInfo(
            benchmark = ctx.attr.info[BenchmarkInfo],
            config = ctx.attr.config,
            kind = kind,
            spec = out,
            target = ctx.label.relative(":" + ctx.attr.target),
        ),
    ]

_COMMON_ATTRS = {
    "binary": attr.label(
        mandatory = True,
        executable = True,
        cfg = _optimised_transition,
        aspects = [_build_aspect],
        doc = "The program, the server or the go_test; a C or C++ program (kind \"program\", profiler \"cc\") " +
              "is built --compilation_mode=opt (_optimised_transition).",
    ),
    "config": attr.string(mandatory = True, values = ["perf", "quick", "run"], doc = "Which target the spec is of."),
    "data": attr.label_list(allow_files = True, doc = "Files the arguments name, the sources for pprof -list."),
    "expect": attr.string(doc = "The regular expression of a correct run's lines, or of a server's answers; \"\" checks nothing."),
    "info": attr.label(
        mandatory = True,
        providers = [BenchmarkInfo],
        doc = "The benchmark's declaration (info.bzl's declare_benchmark): what the spec's benchmark records.",
    ),
    "kind": attr.string(mandatory = True, values = ["program", "go_test", "server"], doc = "The benchmark's kind: the section the spec has."),
    "layout_variant": attr.int(doc = "The layout variant of the benchmark's program it runs (layout.bzl), from 1; 0 for the program itself. A variant's spec is counted only (perf_counts), never listed as the benchmark's."),
    "program_args": attr.string_list(doc = "The program's or server's arguments; $(rootpath) works for `binary` and `data`."),
    "repetitions": attr.int(mandatory = True, doc = "The timed runs, rounds or counts of the spec's target."),
    "target": attr.string(mandatory = True, doc = "The name, in this package, of the test or binary that runs the spec."),
    "_allowlist_function_transition": attr.label(default = _ALLOWLIST),
    "_pprof": attr.label(default = Label("//tools:pprof"), executable = True, cfg = "target"),
    "_status": attr.label(default = Label("//tools/perf/private:build_status"), allow_single_file = True),
    "_xtime": attr.label(default = Label("//tools/xtime"), executable = True, cfg = "target"),
}

def _attrs(*groups):
    attrs = {}
    for group in groups:
        attrs.update(group)
    return attrs

perf_spec = rule(
    implementation = _perf_spec_impl,
    doc = "The runner's spec of one benchmark target, with everything the " +
          "runner runs in its runfiles: the common part and the section of " +
          "its kind. perf_benchmark, go_benchmark and server_benchmark make them.",
    attrs = _attrs(_COMMON_ATTRS, _PROGRAM_ATTRS, _GO_TEST_ATTRS, _SERVER_ATTRS),
)

def _optimised_cc_program_impl(ctx):
    program = ctx.attr.binary[0]
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = ctx.executable.binary, is_executable = True)
    runfiles = ctx.runfiles(files = [out]).merge(program[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

optimised_cc_program = rule(
    implementation = _optimised_cc_program_impl,
    doc = "A C or C++ program as a perf_benchmark of kind \"cc\" builds it: " +
          "--compilation_mode=opt, as _optimised_transition does; `name` is a link to it. " +
          "For a test that measures it beside a benchmark's program " +
          "(//benchmarks:regression_suite_test's patched stage): both are built alike.",
    attrs = {
        "binary": attr.label(mandatory = True, executable = True, cfg = _opt_transition, doc = "The program."),
        "_allowlist_function_transition": attr.label(default = _ALLOWLIST),
    },
    executable = True,
)

def _build_status_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.run_shell(
        inputs = [ctx.info_file],
        outputs = [out],
        command = "cp \"$1\" \"$2\"",
        arguments = [ctx.info_file.path, out.path],
        mnemonic = "BuildStatus",
        progress_message = "Copying the build's stable status",
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

build_status = rule(
    implementation = _build_status_impl,
    doc = "Bazel's stable workspace status (tools/workspace_status.sh: the " +
          "git commit, whether the tree is dirty, the Bazel version) as a " +
          "file; it is rebuilt whenever that status changes.",
)
