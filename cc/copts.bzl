"""Compiler options shared by every C++ target of havlak-lab."""

# HAVLAK_COPTS go on every C++ target, after Bazel's own flags, so they win.
#
# -O3: the stages are the benchmark, and Bazel's default compilation mode
#   (fastbuild) optimises nothing; with this a plain `bazel build` gives the
#   binaries that get timed, and `-c opt` changes nothing that matters.
# -fno-exceptions: Google C++ style; errors travel as lab::Status values.
# -g: line tables for pprof -list in the benchmarks' profiles; they change
#   no generated code.
HAVLAK_COPTS = [
    "-O3",
    "-fno-exceptions",
    "-g",
]
