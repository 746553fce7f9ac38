"""benchmark_manifest: one JSON file listing a package's benchmarks, for the
tools that find them (//tools/perfcheck, //tools/bisect); load it from
//tools/perf:defs.bzl.

The manifest is one JSON object (package //tools/perf/perfspec, type
Manifest):

    schema_version  2 when a benchmark is not measured, else 1
                (perfspec.ManifestSchemaVersion, ManifestOldestVersion):
                a manifest that needs no not_measured stays readable by
                the tools from before it, which the perf check of a
                change runs (the base's)
    path        the manifest's own path, as its specs' paths are given
    benchmarks  one object per benchmark, by name: its BenchmarkInfo
                (name, study, stage, language, counterpart, reference,
                workload, quick_workload, and not_measured, only when it
                has no quick test: why no gate can count and judge it),
                its kind ("program", "go_test"
                or "server") and its targets: {"run", "perf", "quick",
                "counts"}, each present when the benchmark has it,
                {label, spec}: the label of the binary or test, and the
                path of its spec; a count action's (perf_counts) also
                {output}, the path of its outputs' zip, and the spec it
                counts, the quick test's;
                and, for a program with layout variants (layout.bzl),
                layout_variants: their count actions, {label, spec,
                output} each, by variant

Paths are relative to bazel-bin and, identically, to the workspace's
directory in a runfiles tree (File.short_path). Building the manifest
builds the specs it names; its runfiles hold them (and nothing they run).
"""

load(":counts.bzl", "PerfCountsInfo")
load(":spec.bzl", "PerfSpecInfo")

def _manifest_impl(ctx):
    benchmarks = {}
    for target in ctx.attr.specs:
        s = target[PerfSpecInfo]
        info = s.benchmark
        b = benchmarks.get(info.name)
        if b == None:
            b = struct(info = info, kind = s.kind, targets = {})
            benchmarks[info.name] = b
        elif b.info != info or b.kind != s.kind:
            fail("benchmark_manifest {}: two declarations of the benchmark {}: {} and {}".format(
                ctx.label,
                info.name,
                b.info,
                info,
            ))
        if s.config in b.targets:
            fail("benchmark_manifest {}: the benchmark {} has two {} specs: {} and {}".format(
                ctx.label,
                info.name,
                s.config,
                b.targets[s.config].label,
                s.target,
            ))
        b.targets[s.config] = struct(label = str(s.target), spec = s.spec.short_path)
    layouts = {}
    for target in ctx.attr.counts:
        c = target[PerfCountsInfo]
        b = benchmarks.get(c.benchmark.name)
        if b == None or b.info != c.benchmark:
            fail("benchmark_manifest {}: the count action {} is of no benchmark given a spec".format(ctx.label, c.target))
        target = struct(label = str(c.target), spec = c.spec.short_path, output = c.output.short_path)
        if c.layout_variant:
            layouts.setdefault(c.benchmark.name, {})[c.layout_variant] = target
        else:
            b.targets["counts"] = target
    for name, variants in layouts.items():
        if "counts" not in benchmarks[name].targets:
            fail("benchmark_manifest {}: the benchmark {} has layout variants' count actions and no count action of its own".format(ctx.label, name))
    if not benchmarks:
        fail("benchmark_manifest {}: no benchmark's spec given".format(ctx.label))
    _check_measured(ctx.label, benchmarks)

    out = ctx.actions.declare_file(ctx.label.name + ".json")
    entries = [_entry(name, benchmarks[name], layouts.get(name, {})) for name in sorted(benchmarks)]
    manifest = struct(
        # Version 2 added not_measured: written only when a benchmark needs it.
        schema_version = 2 if [e for e in entries if hasattr(e, "not_measured")] else 1,
        path = out.short_path,
        benchmarks = entries,
    )
    content = ctx.actions.declare_file(ctx.label.name + ".content.json")
    ctx.actions.write(content, json.encode_indent(manifest) + "\n")

    # The manifest is its content, once the specs it names are built: a
    # tool that reads it finds them in bazel-bin.
    specs = [t[PerfSpecInfo].spec for t in ctx.attr.specs]
    ctx.actions.run_shell(
        inputs = [content] + specs,
        outputs = [out],
        command = "cp \"$1\" \"$2\"",
        arguments = [content.path, out.path],
        mnemonic = "BenchmarkManifest",
        progress_message = "Writing the benchmarks' manifest %s" % out.short_path,
    )
    return [DefaultInfo(
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out] + specs),
    )]

def _check_measured(label, benchmarks):
    """Fails unless each benchmark has a quick test or says why it has none.

    A benchmark without a quick test is counted and gated by nothing: its
    declaration says why (BenchmarkInfo's not_measured), and the tools name
    it, never leave it out silently.
    """
    for name, b in benchmarks.items():
        quick = "quick" in b.targets
        if quick and b.info.not_measured:
            fail("benchmark_manifest {}: the benchmark {} has a quick test, yet its declaration says it is not measured: {}".format(label, name, b.info.not_measured))
        if not quick and not b.info.not_measured:
            fail("benchmark_manifest {}: the benchmark {} has no quick test listed, and its declaration says not why it is not measured".format(label, name))

def _entry(name, b, layouts):
    """The manifest's object of the benchmark b, named name."""
    fields = dict(
        name = name,
        kind = b.kind,
        study = b.info.study,
        stage = b.info.stage,
        language = b.info.language,
        counterpart = b.info.counterpart,
        reference = b.info.reference,
        workload = b.info.workload,
        quick_workload = b.info.quick_workload,
        targets = b.targets,
        layout_variants = [layouts[v] for v in sorted(layouts)],
    )
    if b.info.not_measured:
        fields["not_measured"] = b.info.not_measured
    return struct(**fields)

_benchmark_manifest = rule(
    implementation = _manifest_impl,
    doc = "The manifest of the benchmarks whose specs it is given.",
    attrs = {
        "specs": attr.label_list(
            mandatory = True,
            providers = [PerfSpecInfo],
            doc = "The specs (perf_spec targets) of the benchmarks, every target of each.",
        ),
        "counts": attr.label_list(
            providers = [PerfCountsInfo],
            doc = "The count actions (perf_counts targets) of the benchmarks that have one.",
        ),
    },
)

def benchmark_manifest(name, specs = None, **kwargs):
    """The manifest of a package's benchmarks, `name + ".json"`.

    Call it after the benchmarks it lists: by default, the last thing in the
    BUILD file.

    Args:
      name: the manifest's name.
      specs: the perf_spec targets of the benchmarks; None for every one
        declared in the package so far (perf_benchmark, go_benchmark and
        server_benchmark make them), so that a benchmark added to the
        package is listed with no change here; the count actions
        (perf_counts) declared so far are listed too.
      **kwargs: passed to the rule (visibility, tags). It is testonly: a
        go_benchmark's specs are (they depend on its go_test).
    """
    specs_given = specs
    if specs == None:
        specs = sorted([
            ":" + rule_name
            for rule_name, rule in native.existing_rules().items()
            if rule["kind"] == "perf_spec" and not rule.get("layout_variant")
        ])
    counts = sorted([
        ":" + rule_name
        for rule_name, rule in native.existing_rules().items()
        if rule["kind"] == "perf_counts"
    ]) if specs_given == None else []
    _benchmark_manifest(
        name = name,
        specs = specs,
        counts = counts,
        testonly = True,
        **kwargs
    )
