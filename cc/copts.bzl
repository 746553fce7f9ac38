"""Compiler options shared by every C++ target of havlak-lab."""

# HAVLAK_COPTS go on every C++ target, after Bazel's own flags, so they win.
#
# -O3: the stages are the benchmark. Their perf_benchmark builds them
#   -c opt (-O2) whatever the build's mode; this raises that to -O3, and a
#   plain `bazel build` (fastbuild, which optimises nothing) gives the same
#   optimisation.
# -fno-exceptions: Google C++ style; errors travel as lab::Status values.
# -g: line tables for pprof -list in the benchmarks' profiles and the
#   counts' attribution to lines (it overrides -c opt's -g0); they change
#   no generated code.
HAVLAK_COPTS = [
    "-O3",
    "-fno-exceptions",
    "-g",
]
