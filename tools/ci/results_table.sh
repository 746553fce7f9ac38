#!/usr/bin/env bash
# Prints a Markdown table of the timings in DIR/*/outputs.zip (written by
# tools/ci/collect_test_outputs.sh from perf_benchmark tests): one row per
# stage with xtime's median real and user seconds and maximum RSS.
#
#   tools/ci/results_table.sh DIR
#
# The median is xtime's summary of a series (-n N > 1); a single run is
# shown as it is. Directories without xtime.json in their outputs.zip (tests
# that are not benchmarks) are skipped.
set -euo pipefail

die() {
  echo "results_table: $*" >&2
  exit 1
}

(($# == 1)) || die "usage: results_table.sh DIR"
dir="$1"
command -v jq >/dev/null 2>&1 || die "jq not found (tools/bazel test installs it)"

printf '%s\n' "| stage | runs | median real (s) | median user (s) | median max RSS (MiB) |" \
  "|---|---:|---:|---:|---:|"
rows=0
for zip in "$dir"/*/outputs.zip; do
  [[ -f "$zip" ]] || continue
  json="$(unzip -p "$zip" xtime.json 2>/dev/null)" || continue
  name="$(basename "$(dirname "$zip")")"
  stage="$(unzip -p "$zip" benchmark.json 2>/dev/null | jq -r '.name // empty' || true)"
  # xtime's JSON report (tools/xtime/report.go): "runs", and "summary" with
  # min/median/max of user_seconds, sys_seconds, real_seconds, max_rss_kib.
  jq -r --arg stage "${stage:-$name}" '
    (.summary.median // .runs[0]) as $m |
    "| \($stage) | \(.runs | length) | \($m.real_seconds * 100 | round / 100) | \($m.user_seconds * 100 | round / 100) | \($m.max_rss_kib / 1024 | round) |"
  ' <<<"$json" || die "$zip: xtime.json is not xtime's JSON report"
  rows=$((rows + 1))
done
((rows > 0)) || die "no outputs.zip with xtime.json under $dir"
