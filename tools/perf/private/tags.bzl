"""The tags of the tests the perf rules create, shared by both rules."""

# PERF_TAGS mark a full-size measuring test.
PERF_TAGS = [
    # Selected by --config=perf; left out of the default test set.
    "perf",
    # Nothing else runs while it measures.
    "exclusive",
    # Measurements are never served from a cache.
    "external",
    # Timings are of this machine, never of a remote executor.
    "no-remote-exec",
]

# QUICK_TAGS mark the quick variant: part of the default test set, so that
# every CI run exercises the harness on a small workload.
QUICK_TAGS = [
    "quick",
    # The profilers (gperftools' LD_PRELOAD, pprof) run on this host.
    "no-remote-exec",
]
