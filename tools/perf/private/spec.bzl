"""perf_spec: what the runner (//tools/perf/runner) needs to know about one
benchmark target, written at analysis time as JSON; build_status: Bazel's
stable workspace status as a file tests can read.

The spec is one JSON object (the runner's type Spec):

    benchmark   the result.Benchmark object result.json records: name,
                kind ("program" or "go_test"), study, stage, language,
                counterpart, reference, workload {name, description},
                repetitions
    build       {compilation_mode, config}: "perf", "quick" or "run"
    status      runfiles path of Bazel's stable-status.txt (build_status)
    binary      runfiles path of the program, or of the go_test binary
    xtime, pprof  runfiles paths of the tools
    args        the program's arguments, $(rootpath ...) expanded;
                {outputs} is left for the runner
    expect      the regular expression of a correct run's lines, or ""
    profiler    "go" or "cc"
    profiles    ["cpu", "heap"], either or none
    heap        "flag", "env" or "gperftools"; heap_env the variable of
                "env"; heap_args the heap-profiled run's extra arguments
    trace       whether to add a traced run (-trace FILE)
    go_test     {bench, count, benchtime} of a go_test binary's run
    counted     {args, expect, repetitions} of the runs under Cachegrind
                that count instructions, or null
    pin_cpu     the CPU the timed runs are pinned to (taskset -c): a
                number, "last" (the last CPU the runner may use) or "none"
    disable_aslr  whether the timed runs go under setarch -R
    server      a server's load (kind "server"): connections, rate,
                warmup, duration, profile, trace (durations), targets
                (runfiles path of the requests file), ready (the path
                that must answer first), block_profile_rate,
                mutex_profile_fraction
"""

def _runfiles_path(f):
    # A file's path from the runfiles root of this workspace, as
    # $(rootpath) gives it ("../repo/..." for other repositories).
    return f.short_path

def _perf_spec_impl(ctx):
    targets = ctx.attr.data + [ctx.attr.binary]
    spec = struct(
        benchmark = struct(
            name = ctx.attr.benchmark,
            kind = ctx.attr.kind,
            study = ctx.attr.study,
            stage = ctx.attr.stage,
            language = ctx.attr.language,
            counterpart = ctx.attr.counterpart,
            reference = ctx.attr.reference,
            workload = struct(
                name = ctx.attr.workload,
                description = ctx.attr.workload_description,
            ),
            repetitions = ctx.attr.repetitions,
        ),
        build = struct(
            compilation_mode = ctx.var["COMPILATION_MODE"],
            config = ctx.attr.config,
        ),
        status = _runfiles_path(ctx.file._status),
        binary = _runfiles_path(ctx.executable.binary),
        xtime = _runfiles_path(ctx.executable._xtime),
        pprof = _runfiles_path(ctx.executable._pprof),
        args = [ctx.expand_location(arg, targets) for arg in ctx.attr.program_args],
        expect = ctx.attr.expect,
        profiler = ctx.attr.profiler,
        profiles = ctx.attr.profiles,
        heap = ctx.attr.heap,
        heap_env = ctx.attr.heap_env,
        heap_args = ctx.attr.heap_args,
        trace = ctx.attr.trace,
        go_test = struct(
            bench = ctx.attr.bench,
            count = ctx.attr.count,
            benchtime = ctx.attr.benchtime,
        ),
        counted = struct(
            args = [ctx.expand_location(arg, targets) for arg in ctx.attr.counted_args],
            expect = ctx.attr.counted_expect,
            repetitions = ctx.attr.counted_repetitions,
        ) if ctx.attr.counted_repetitions > 0 else None,
        pin_cpu = ctx.attr.pin_cpu,
        disable_aslr = ctx.attr.disable_aslr,
        server = struct(
            connections = ctx.attr.load_connections,
            rate = ctx.attr.load_rate,
            warmup = ctx.attr.load_warmup,
            duration = ctx.attr.load_duration,
            profile = ctx.attr.load_profile,
            trace = ctx.attr.load_trace,
            targets = _runfiles_path(ctx.file.load_targets) if ctx.file.load_targets else "",
            ready = ctx.attr.load_ready,
            block_profile_rate = ctx.attr.block_profile_rate,
            mutex_profile_fraction = ctx.attr.mutex_profile_fraction,
        ),
    )
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    ctx.actions.write(out, json.encode_indent(spec) + "\n")
    runfiles = ctx.runfiles(files = [out, ctx.file._status] + ctx.files.data + ctx.files.load_targets)
    for t in [ctx.attr.binary, ctx.attr._xtime, ctx.attr._pprof] + ctx.attr.data:
        runfiles = runfiles.merge(t[DefaultInfo].default_runfiles)
    return [DefaultInfo(
        files = depset([out]),
        runfiles = runfiles,
    )]

perf_spec = rule(
    implementation = _perf_spec_impl,
    doc = "The runner's spec of one benchmark target, with everything the " +
          "runner runs in its runfiles. perf_benchmark and go_benchmark make them.",
    attrs = {
        "bench": attr.string(doc = "go_test: the -test.bench regular expression."),
        "block_profile_rate": attr.int(doc = "server: the server's -blockprofilerate, ns."),
        "benchmark": attr.string(mandatory = True, doc = "The benchmark's name in results."),
        "benchtime": attr.string(doc = "go_test: -test.benchtime, or \"\" for Go's default."),
        "binary": attr.label(mandatory = True, executable = True, cfg = "target", doc = "The program, or the go_test."),
        "config": attr.string(mandatory = True, values = ["perf", "quick", "run"], doc = "Which target the spec is of."),
        "count": attr.int(default = 1, doc = "go_test: -test.count."),
        "counted_args": attr.string_list(doc = "The program's arguments in the runs under Cachegrind; $(rootpath) works."),
        "counted_expect": attr.string(doc = "`expect` of the runs under Cachegrind."),
        "counted_repetitions": attr.int(doc = "Runs under Cachegrind; 0 for none."),
        "counterpart": attr.string(doc = "The same stage in another language."),
        "data": attr.label_list(allow_files = True, doc = "Files the arguments name, the sources for pprof -list."),
        "disable_aslr": attr.bool(doc = "Run the timed runs under setarch -R (off by default: see the runner's pin.go)."),
        "expect": attr.string(doc = "The regular expression of a correct run's lines; \"\" checks nothing."),
        "heap": attr.string(values = ["", "flag", "env", "gperftools"], doc = "How the program writes a heap profile."),
        "heap_args": attr.string_list(doc = "Extra arguments of the heap-profiled run."),
        "heap_env": attr.string(doc = "The variable naming the heap profile's file, for heap \"env\"."),
        "kind": attr.string(mandatory = True, values = ["program", "go_test", "server"], doc = "The result's kind."),
        "language": attr.string(mandatory = True, doc = "The benchmark's language in reports."),
        "pin_cpu": attr.string(default = "last", doc = "The CPU the timed runs are pinned to: a number, \"last\" or \"none\"."),
        "load_connections": attr.int(doc = "server: requests in flight at a time."),
        "load_duration": attr.string(doc = "server: each measured round's length (\"5s\")."),
        "load_profile": attr.string(doc = "server: the CPU, block, mutex and allocs profiles' window."),
        "load_rate": attr.int(doc = "server: requests per second; 0 for a closed loop."),
        "load_ready": attr.string(doc = "server: the path that must answer 200 before the load."),
        "load_targets": attr.label(allow_single_file = True, doc = "server: the requests, \"METHOD /path\" a line."),
        "load_trace": attr.string(doc = "server: the execution trace's length."),
        "load_warmup": attr.string(doc = "server: the warm-up's length."),
        "mutex_profile_fraction": attr.int(doc = "server: the server's -mutexprofilefraction."),
        "profiler": attr.string(values = ["", "go", "cc"], doc = "go: runtime/pprof flags; cc: gperftools."),
        "profiles": attr.string_list(doc = "\"cpu\", \"heap\": the profiles to take."),
        "program_args": attr.string_list(doc = "The program's arguments; $(rootpath) works for `binary` and `data`."),
        "reference": attr.string(doc = "The benchmark speed-ups are measured against."),
        "repetitions": attr.int(default = 1, doc = "Timed runs (a go_test's count)."),
        "stage": attr.int(doc = "The benchmark's place in its study, from 1."),
        "study": attr.string(mandatory = True, doc = "The case study's title; the report makes a section of each."),
        "trace": attr.bool(doc = "Whether to add a traced run."),
        "workload": attr.string(mandatory = True, values = ["standard", "quick"], doc = "The workload's name."),
        "workload_description": attr.string(doc = "The workload, for people."),
        "_pprof": attr.label(default = Label("//tools:pprof"), executable = True, cfg = "target"),
        "_status": attr.label(default = Label("//tools/perf/private:build_status"), allow_single_file = True),
        "_xtime": attr.label(default = Label("//tools/xtime"), executable = True, cfg = "target"),
    },
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
