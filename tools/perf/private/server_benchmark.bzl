"""Implementation of server_benchmark; load it from //tools/perf:defs.bzl."""

load(":info.bzl", "declare_benchmark")
load(":spec.bzl", "perf_spec")
load(":tags.bzl", "PERF_TAGS", "QUICK_TAGS")

_RUNNER = Label("//tools/perf/runner")

def server_benchmark(
        name,
        binary,
        info,
        targets,
        expect = None,
        args = [],
        connections = 8,
        rate = 0,
        warmup = "2s",
        duration = "5s",
        profile = "5s",
        trace = "1s",
        repetitions = 5,
        quick_warmup = "500ms",
        quick_duration = "2s",
        quick_profile = "1s",
        quick_trace = "500ms",
        quick_repetitions = 1,
        ready = "/healthz",
        block_profile_rate = 10000,
        # Every contention recorded: the runner counts the program's own
        # per request from the mutex profile (servercontention.go), a
        # few events a round that sampling 1 in 10 would leave to chance.
        mutex_profile_fraction = 1,
        srcs = [],
        tags = [],
        visibility = None,
        **kwargs):
    """A benchmark of an HTTP server under load: a runnable target and its tests.

    The runner (//tools/perf/runner, server.go) starts `binary` on free
    127.0.0.1 ports (its contract: -addr, -pprof, -addrfile,
    -blockprofilerate, -mutexprofilefraction, a clean exit 0 on SIGTERM),
    waits until `ready` answers 200, warms it up, and drives a bounded load
    with the vegeta library: `connections` requests in flight, the
    requests of `targets` round-robin, for a fixed time; it never loads
    anything but a loopback address.

    Creates
    * `name`: `bazel run` shows a live run: the pprof commands to type,
      a line a second, the latency summary and histogram, and the clean
      exit. `-- --duration 60s` loads longer, `-- --serve` keeps the server
      up afterwards until Ctrl-C; other arguments go to the server.
    * `name + "_test"`, tagged `perf` (`--config=perf`): a warm-up,
      `repetitions` measured rounds of `duration` with no profile being
      taken (throughput, latency p50/p90/p99/max, errors), then a profiled
      round during which the CPU, block, mutex and allocs profiles over
      `profile`, heap and goroutine snapshots and a `trace` execution
      trace are fetched over HTTP; then SIGTERM, and a clean exit is
      required, as is every answer being a 2xx matching `expect`. The
      profiles, pprof's views, the latency histogram, vegeta's reports,
      the rounds in Go benchmark format (bench.txt) and result.json
      (//tools/result, kind "server") land in its outputs.zip.
    * `name + "_quick_test"`: the same with the quick_ durations and
      `quick_repetitions`, in the default test set.
    * the runner's specs of the three (`name + "_spec"`, ...) and the
      benchmark's BenchmarkInfo (`name + "_info"`).

    Args:
      name: the benchmark's name.
      binary: the server program.
      info: what the benchmark is: its benchmark_info (study, stage,
        language, "Go" if None, reference, workloads: the loads, described).
      targets: a file of the requests, "METHOD /path" a line.
      expect: a regular expression every answer's body must match; None
        checks the status only.
      args: more arguments of the server; {outputs} works.
      connections: requests in flight at a time.
      rate: requests per second; 0 sends each connection's next request as
        soon as its last is answered (a closed loop).
      warmup: the warm-up's length, as Go's time.ParseDuration reads it.
      duration: each measured round's length.
      profile: the window of the CPU, block, mutex and allocs profiles.
      trace: the execution trace's length.
      repetitions: measured rounds of the full test.
      quick_warmup: warmup of the quick test.
      quick_duration: duration of the quick test.
      quick_profile: profile of the quick test.
      quick_trace: trace of the quick test.
      quick_repetitions: measured rounds of the quick test.
      ready: the path that must answer 200 before the load.
      block_profile_rate: the server's -blockprofilerate (ns).
      mutex_profile_fraction: the server's -mutexprofilefraction; its
        own lock contentions per request are counted at it (1: all).
      srcs: the server's sources, for `pprof -list`.
      tags: added to the tags of every target.
      visibility: visibility of every target.
      **kwargs: passed to the sh_test targets.
    """
    compatible = [
        "@platforms//cpu:x86_64",
        "@platforms//os:linux",
    ]
    info_target = declare_benchmark(info, name, "Go", tags = tags)
    for suffix, config, times, reps in [
        ("", "run", (warmup, duration, profile, trace), 1),
        ("_test", "perf", (warmup, duration, profile, trace), repetitions),
        ("_quick_test", "quick", (quick_warmup, quick_duration, quick_profile, quick_trace), quick_repetitions),
    ]:
        spec = name + suffix + "_spec"
        perf_spec(
            name = spec,
            info = info_target,
            target = name + suffix,
            repetitions = reps,
            kind = "server",
            config = config,
            binary = binary,
            program_args = args,
            data = srcs,
            expect = expect or "",
            load_connections = connections,
            load_rate = rate,
            load_warmup = times[0],
            load_duration = times[1],
            load_profile = times[2],
            load_trace = times[3],
            load_targets = targets,
            load_ready = ready,
            block_profile_rate = block_profile_rate,
            mutex_profile_fraction = mutex_profile_fraction,
            tags = tags,
            visibility = ["//visibility:private"],
        )
        spec_args = ["$(rootpath :{})".format(spec)]
        if suffix == "":
            native.sh_binary(
                name = name,
                srcs = [_RUNNER],
                args = ["run"] + spec_args,
                data = [":" + spec],
                tags = tags,
                visibility = visibility,
            )
            continue
        native.sh_test(
            name = name + suffix,
            srcs = [_RUNNER],
            args = ["test"] + spec_args,
            data = [":" + spec],
            tags = tags + (PERF_TAGS if config == "perf" else QUICK_TAGS),
            target_compatible_with = compatible,
            visibility = visibility,
            **kwargs
        )
