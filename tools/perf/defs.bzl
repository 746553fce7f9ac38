"""Benchmarks with timing and profiles: `perf_benchmark` for programs,
`go_benchmark` for a Go package's Benchmark functions, `server_benchmark`
for an HTTP server under load.

    load("//tools/perf:defs.bzl", "benchmark_info", "perf_benchmark")

    perf_benchmark(
        name = "havlak6",
        binary = "//go/havlak6",
        info = benchmark_info(
            study = "Havlak loop finding",
            stage = 6,
        ),
        expect = "^# of loops: 76000 ",
        memprofile_flag = True,
    )

gives `bazel run //benchmarks:havlak6` and `bazel test //benchmarks:havlak6_test
--config=perf`, whose outputs.zip holds the timings and profiles, described
by result.json (//tools/result). What a benchmark is (study, stage,
language, counterpart, reference, workloads) is declared once, by
`benchmark_info`, handed whole to the rule and never guessed from its name;
//tools/perf/runner runs it. `workload_sweep` and `sweep_point` declare the
sizes at which a test also counts the program, to see how its cost grows
(perf_benchmark's sweep and quick_sweep).

Each benchmark's declaration is one target, `name + "_info"`, carrying a
BenchmarkInfo; `benchmark_manifest`, last in a BUILD file, lists the
package's benchmarks in one JSON file (package //tools/perf/perfspec, type
Manifest): the tools that look for benchmarks read it.
"""

load("//tools/perf/private:benchmark.bzl", _perf_benchmark = "perf_benchmark")
load("//tools/perf/private:go_benchmark.bzl", _go_benchmark = "go_benchmark")
load("//tools/perf/private:info.bzl", _BenchmarkInfo = "BenchmarkInfo", _benchmark_info = "benchmark_info")
load("//tools/perf/private:layout.bzl", _LAYOUT_VARIANTS = "LAYOUT_VARIANTS", _go_layout_variants = "go_layout_variants", _layout_pads = "layout_pads", _layout_variant_name = "layout_variant_name", _layout_variants = "layout_variants")
load("//tools/perf/private:manifest.bzl", _benchmark_manifest = "benchmark_manifest")
load("//tools/perf/private:server_benchmark.bzl", _server_benchmark = "server_benchmark")
load("//tools/perf/private:spec.bzl", _optimised_cc_program = "optimised_cc_program")
load("//tools/perf/private:sweep.bzl", _sweep_point = "sweep_point", _workload_sweep = "workload_sweep")

BenchmarkInfo = _BenchmarkInfo
benchmark_info = _benchmark_info
benchmark_manifest = _benchmark_manifest
go_benchmark = _go_benchmark
optimised_cc_program = _optimised_cc_program
perf_benchmark = _perf_benchmark
server_benchmark = _server_benchmark
sweep_point = _sweep_point
workload_sweep = _workload_sweep
LAYOUT_VARIANTS = _LAYOUT_VARIANTS
go_layout_variants = _go_layout_variants
layout_pads = _layout_pads
layout_variant_name = _layout_variant_name
layout_variants = _layout_variants
