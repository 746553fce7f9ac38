"""benchmark_info: what a benchmark is, declared once and handed whole to
perf_benchmark, go_benchmark and server_benchmark, which pass it on to
every spec they make (benchmark_json); load it from //tools/perf:defs.bzl."""

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
      the declaration, a struct with these fields ("" for None).
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

def benchmark_json(info, name, language, config, repetitions):
    """The benchmark of one spec, as perf_spec's `benchmark` takes it.

    Args:
      info: the benchmark's benchmark_info.
      name: the benchmark's name.
      language: the language when info has none.
      config: the spec's config: "quick" for the quick workload, "perf" or
        "run" for the standard one.
      repetitions: the timed runs, rounds or counts of the spec's target.

    Returns:
      the result.Benchmark object but its kind, as JSON.
    """
    if type(info) != "struct" or not hasattr(info, "quick_workload"):
        fail("benchmark {}: info must be a benchmark_info(...), not {}".format(name, repr(info)))
    quick = config == "quick"
    return json.encode(struct(
        name = name,
        study = info.study,
        stage = info.stage,
        language = info.language or language,
        counterpart = info.counterpart,
        reference = info.reference,
        workload = struct(
            name = "quick" if quick else "standard",
            description = info.quick_workload if quick else info.workload,
        ),
        repetitions = repetitions,
    ))
