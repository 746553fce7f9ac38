#!/usr/bin/env bash
# Steps 3 to 5 of the nightly job (tools/ci/nightly.sh), on the outputs it
# collected into ARTIFACTS (one directory per test, each with outputs.zip):
# the report and its regression gate against the last good night, the gate
# of the Go benchmarks, the annotation, and, after a good night, the new
# baseline.
#
#   tools/ci/nightly_report.sh ARTIFACTS
#
# $HAVLAK_LAB_BASELINE is the baseline directory (see nightly.sh);
# $REPORT and $BENCHGATE, the commands that run //benchmarks:report and
# //tools/benchgate (by default through tools/bazel run; tests give the
# binaries). Exit status: 0, or 1 when a benchmark regressed or the report
# could not be made.
set -euo pipefail

artifacts="$1"
baseline="${HAVLAK_LAB_BASELINE:-${XDG_CACHE_HOME:-$HOME/.cache}/havlak-lab/nightly-baseline}"
read -r -a report <<<"${REPORT:-tools/bazel run //benchmarks:report --}"
read -r -a benchgate <<<"${BENCHGATE:-tools/bazel run //tools/benchgate --}"

echo "--- :bar_chart: Report"
report_args=(--from "$artifacts" --out "$artifacts/report")
if [[ -d "$baseline" ]]; then
  echo "Baseline: $baseline"
  report_args+=(--baseline "$baseline")
else
  echo "No baseline yet ($baseline): nothing to compare with."
fi
regressed=0
failed=0
status=0
"${report[@]}" "${report_args[@]}" || status=$?
case "$status" in
  0) ;;
  1) regressed=1 ;;
  *)
    echo "The report failed (exit status $status)." >&2
    failed=1
    ;;
esac

echo "--- :scales: Go benchmarks against the baseline"
for bench in "$artifacts"/*/outputs.zip; do
  [[ -e "$bench" ]] || continue
  test_name="$(basename "$(dirname "$bench")")"
  # go_benchmark's outputs hold bench.txt and no xtime.json.
  if unzip -l "$bench" xtime.json >/dev/null 2>&1 ||
    ! unzip -p "$bench" bench.txt >"$artifacts/$test_name.bench.txt" 2>/dev/null; then
    rm -f "$artifacts/$test_name.bench.txt"
    continue
  fi
  old="$baseline/$test_name/outputs.zip"
  if [[ ! -f "$old" ]]; then
    echo "$test_name: no baseline"
    continue
  fi
  unzip -p "$old" bench.txt >"$artifacts/$test_name.baseline.txt"
  echo "$test_name:"
  "${benchgate[@]}" "$artifacts/$test_name.baseline.txt" "$artifacts/$test_name.bench.txt" || regressed=1
done

if [[ -f "$artifacts/report/table.md" ]]; then
  table="$(cat "$artifacts/report/table.md")"
else
  table="$(tools/ci/results_table.sh "$artifacts")" || table="(no timings: see the log)"
fi
verdict=""
((regressed == 0)) || verdict=$'\n\n**Regressions**: see the log and report/report.md among the artifacts.'
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
summary="$(printf '**Nightly benchmarks** (%s, %s)\n\n%s%s\n' "\`$commit\`" "$(uname -n)" "$table" "$verdict")"
if [[ -n "${BUILDKITE:-}" ]] && command -v buildkite-agent >/dev/null 2>&1; then
  style=success
  ((regressed == 0 && failed == 0)) || style=error
  printf '%s\n' "$summary" | buildkite-agent annotate --style "$style" --context nightly-perf
fi
printf '%s\n' "$summary"

if ((regressed == 0 && failed == 0)) && [[ -z "${NIGHTLY_TESTS_FAILED:-}" ]]; then
  echo "--- :floppy_disk: This night becomes the baseline"
  mkdir -p "$(dirname "$baseline")"
  rm -rf "$baseline.new" "$baseline.old"
  mkdir "$baseline.new"
  for bench in "$artifacts"/*/outputs.zip; do
    [[ -e "$bench" ]] || continue
    mkdir -p "$baseline.new/$(basename "$(dirname "$bench")")"
    cp "$bench" "$baseline.new/$(basename "$(dirname "$bench")")/"
  done
  [[ ! -d "$baseline" ]] || mv "$baseline" "$baseline.old"
  mv "$baseline.new" "$baseline"
  rm -rf "$baseline.old"
fi
((regressed == 0 && failed == 0))
