"""benchmark_info: what a benchmark is, declared once; BenchmarkInfo, the
provider that carries it.

perf_benchmark, go_benchmark and server_benchmark turn the benchmark_info
they are handed into one target, `name + "_info"` (benchmark_declaration),
whose BenchmarkInfo every spec of the benchmark reads (perf_spec's `info`)
and benchmark_manifest collects. Load them from //tools/perf:defs.bzl."""

BenchmarkInfo = provider(
    doc = "What a benchmark is, for results, reports and the tools that " +
          "find benchmarks (the manifest); never guessed from its name.",
    fields = {
        "counterpart": "The name of the same stage in another language, or \"\".",
        "language": "The program's language in reports (\"Go\", \"C++\").",
        "name": "The benchmark's name, also its name in Go benchmark format.",
        "not_measured": "Why no gate can count and judge it (it has no quick workload), " +
                        "in words; \"\" when it has a quick workload and is measured.",
        "quick_workload": "The quick test's workload, described for people.",
        "reference": "The benchmark the study's speed-ups are measured against, or \"\".",
        "stage": "Its place in its study, 1, 2, ...; 0 for none.",
        "study": "The title of the case study it belongs to.",
        "workload": "The full-size workload, described for people.",
    },
)

def benchmark_info(
        study,
        stage = 0,
        language = None,
        counterpart = None,
        reference = None,
        workload = "",
        quick_workload = ""):
    """What a benchmark is, for results and reports; never guessed from its name.

    Args:
      study: the title of the case study the benchmark belongs to
        ("Havlak loop finding"); the report makes a section of each.
      stage: the benchmark's place in its study, 1, 2, ...; the report
        orders by it. 0 for none.
      language: the program's language in reports; None for the rule's
        default (perf_benchmark: "Go" or "C++" after its kind; the others:
        "Go").
      counterpart: the name of the same stage in another language, which
        the report pairs it with; None for none.
      reference: the name of the benchmark the study's speed-ups are
        measured against; None for none.
      workload: the full-size workload, described for people.
      quick_workload: the quick test's workload, described.

    Returns:
      the declaration, a struct with these fields ("" for None), which the
      benchmark's rule makes a BenchmarkInfo of (declare_benchmark).
    """
    if type(study) != "string" or not study:
        fail("benchmark_info: study must be a title, not {}".format(repr(study)))
    if type(stage) != "int" or stage < 0:
        fail("benchmark_info: stage must be 0 or more, not {}".format(repr(stage)))
    return struct(
        study = study,
        stage = stage,
        language = language or "",
        counterpart = counterpart or "",
        reference = reference or "",
        workload = workload,
        quick_workload = quick_workload,
    )

def _benchmark_declaration_impl(ctx):
    a = ctx.attr
    if a.gated and a.not_measured:
        # At analysis: `bazel test` (and build) of the benchmark's targets,
        # its manifest's, fails here, and says what to add.
        fail(("{}: the benchmark {} is marked gated = True, but no gate can count and judge it: {}. " +
              "Give it a quick workload (perf_benchmark's quick_args: the arguments of a run small " +
              "enough for every CI run, which its quick test, its count and the gate take), " +
              "or drop gated = True.").format(ctx.label, a.benchmark, a.not_measured))
    return [BenchmarkInfo(
        name = a.benchmark,
        not_measured = a.not_measured,
        study = a.study,
        stage = a.stage,
        language = a.language,
        counterpart = a.counterpart,
        reference = a.reference,
        workload = a.workload,
        quick_workload = a.quick_workload,
    )]

benchmark_declaration = rule(
    implementation = _benchmark_declaration_impl,
    doc = "A benchmark's declaration as a BenchmarkInfo: what its specs " +
          "record and the manifest lists. declare_benchmark makes one of a " +
          "benchmark_info.",
    attrs = {
        "benchmark": attr.string(mandatory = True, doc = "The benchmark's name."),
        "counterpart": attr.string(doc = "The same stage in another language, or \"\"."),
        "gated": attr.bool(doc = "The benchmark must be counted and gated: its analysis fails when not_measured says it cannot be."),
        "language": attr.string(mandatory = True, doc = "The program's language in reports."),
        "not_measured": attr.string(doc = "Why no gate can count and judge the benchmark, or \"\" when one can."),
        "quick_workload": attr.string(doc = "The quick test's workload, described."),
        "reference": attr.string(doc = "The benchmark the speed-ups are measured against, or \"\"."),
        "stage": attr.int(doc = "Its place in its study; 0 for none."),
        "study": attr.string(mandatory = True, doc = "The case study's title."),
        "workload": attr.string(doc = "The full-size workload, described."),
    },
)

def declare_benchmark(info, name, language, not_measured = "", gated = False, **kwargs):
    """The benchmark's declaration target, `name + "_info"`, of its benchmark_info.

    Args:
      info: the benchmark's benchmark_info.
      name: the benchmark's name.
      language: the language when info has none.
      not_measured: why no gate can count and judge the benchmark (the
        rule that declares it knows: a perf_benchmark without quick_args
        has no quick workload), in words; "" when it has a quick workload.
        The manifest lists it (benchmark_manifest), and the perf check and
        the night name the benchmark as "not measured: " and it.
      gated: the benchmark must be counted and gated: with a not_measured,
        the declaration's analysis fails, saying what to add.
      **kwargs: passed to the target (tags, testonly, visibility).

    Returns:
      the target's label, for perf_spec's `info`.
    """
    if type(info) != "struct" or not hasattr(info, "quick_workload"):
        fail("benchmark {}: info must be a benchmark_info(...), not {}".format(name, repr(info)))
    benchmark_declaration(
        name = name + "_info",
        benchmark = name,
        study = info.study,
        stage = info.stage,
        language = info.language or language,
        counterpart = info.counterpart,
        reference = info.reference,
        workload = info.workload,
        quick_workload = info.quick_workload,
        not_measured = not_measured,
        gated = gated,
        **kwargs
    )
    return ":" + name + "_info"
