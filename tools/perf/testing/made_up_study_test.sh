#!/usr/bin/env bash
# A study the lab has never heard of, declared through perf_benchmark's
# attributes alone (tools/perf/testing/BUILD.bazel): the runner measures it
# into a directory of results, the report renders it as its own section.
#
# Usage: made_up_study_test.sh RUNNER SPEC REPORT (runfiles paths)
set -euo pipefail

runner="$PWD/$1"
spec="$2"
report="$PWD/$3"
results="$TEST_TMPDIR/results"
out="$TEST_TMPDIR/report"
study="A made-up study"

mkdir -p "$results/toy"
TEST_UNDECLARED_OUTPUTS_DIR="$results/toy" "$runner" test "$spec"
grep -q "\"study\": \"$study\"" "$results/toy/result.json" ||
  { echo "FAIL: result.json does not declare the study" >&2; exit 1; }

"$report" --from "$results" --out "$out"
grep -qF "**$study**" "$out/report.md" ||
  { echo "FAIL: report.md has no section \"$study\":" >&2; cat "$out/report.md" >&2; exit 1; }
grep -qF "<h2>$study</h2>" "$out/index.html" ||
  { echo "FAIL: index.html has no section \"$study\"" >&2; exit 1; }
echo "PASS: the report has a section \"$study\""
