#!/usr/bin/env bash
# `bazel run` of a C++ stage prints, next to xtime's line, its
# instructions on the quick workload counted by Cachegrind: the low-noise
# figure a Go stage's run shows as its allocations.
#
# Usage: cc_run_counts_test.sh RUNNER RUN_SPEC (runfiles paths): what
# `bazel run` of the stage runs.
set -euo pipefail

status=0
"$1" run "$2" 2>"$TEST_TMPDIR/stderr" >/dev/null || status=$?
cat "$TEST_TMPDIR/stderr"
[[ $status == 0 ]] || { echo "FAIL: the run exited $status" >&2; exit 1; }
grep -qE '^[0-9.]+u [0-9.]+s [0-9.]+r [0-9]+kB ' "$TEST_TMPDIR/stderr" ||
  { echo "FAIL: no xtime line" >&2; exit 1; }
grep -qE '^[1-9][0-9]* instructions on the counted workload \(-dummy=1000 -trees=3 ' "$TEST_TMPDIR/stderr" ||
  { echo "FAIL: no counted instructions next to xtime's line" >&2; exit 1; }
echo "PASS: the run printed its counted instructions"
