#!/usr/bin/env bash
# Runs a Go package's benchmarks from its go_test binary, for go_benchmark
# (tools/perf/defs.bzl): the results in Go benchmark format (bench.txt, for
# benchstat and benchgate), CPU and heap profiles of the benchmarks and
# pprof's views of them, all in $TEST_UNDECLARED_OUTPUTS_DIR.
#
# Usage: go_bench.sh TEST_BINARY PPROF BENCH COUNT [BENCHTIME]
# (paths relative to the runfiles root)
set -euo pipefail

test_binary="$PWD/$1"
pprof="$PWD/$2"
bench="$3"
count="$4"
benchtime="${5:-}"
out="${TEST_UNDECLARED_OUTPUTS_DIR:?not run by bazel test}"

args=(
  -test.run='^$'
  -test.bench="$bench"
  -test.benchmem
  -test.count="$count"
  -test.cpuprofile="$out/cpu.pprof"
  -test.memprofile="$out/heap.pprof"
)
[[ -n "$benchtime" ]] && args+=(-test.benchtime="$benchtime")
printf '{"name": "%s", "kind": "gobench", "count": %d}\n' "$(basename "$test_binary")" "$count" \
  >"$out/benchmark.json"
"$test_binary" "${args[@]}" | tee "$out/bench.txt"
grep -q '^Benchmark' "$out/bench.txt" || {
  echo "go_bench: no benchmark matched -test.bench=$bench" >&2
  exit 1
}

"$pprof" -top "$out/cpu.pprof" >"$out/cpu.top.txt" 2>/dev/null
"$pprof" -top -cum "$out/cpu.pprof" >"$out/cpu.top-cum.txt" 2>/dev/null
"$pprof" -top -sample_index=alloc_space "$out/heap.pprof" >"$out/heap.alloc_space.txt" 2>/dev/null
"$pprof" -top -sample_index=alloc_objects "$out/heap.pprof" >"$out/heap.alloc_objects.txt" 2>/dev/null
