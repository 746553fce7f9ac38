#!/usr/bin/env bash
# Runs explodepath's benchmarks, then the regression gate on them: the
# FieldsFunc version against the Naive one must pass, the Naive version
# against FieldsFunc must fail for its allocations.
#
# Usage: explodepath_gate_test.sh EXPLODEPATH_TEST BENCHGATE
set -euo pipefail

explodepath_test="$PWD/$1"
benchgate="$PWD/$2"
results="$TEST_TMPDIR/bench.txt"

"$explodepath_test" -test.run='^$' -test.bench=. -test.benchmem -test.count=6 \
  -test.benchtime=2000x >"$results"

echo "--- Naive -> FieldsFunc, allocations gated"
"$benchgate" -units=B/op,allocs/op -old-bench=Naive -new-bench=FieldsFunc "$results" "$results"

echo "--- FieldsFunc -> Naive, allocations gated: must regress"
status=0
"$benchgate" -units=B/op,allocs/op -old-bench=FieldsFunc -new-bench=Naive "$results" "$results" ||
  status=$?
if ((status != 1)); then
  echo "FAIL: the gate let Naive's extra allocations through (exit status $status)" >&2
  exit 1
fi
echo "PASS"
