#!/usr/bin/env bash
# The nightly perf job (.buildkite/pipeline.yml, queue "perf"): the
# full-size benchmark suite, one benchmark at a time, then its outputs as
# artifacts and a results table.
#
#   tools/ci/nightly.sh [BAZEL ARGS...]
#
# 1. tools/bazel test //benchmarks:all --config=ci --config=perf
#    (and --config=buildbuddy with $BUILDBUDDY_API_KEY; tools/ci/bazel_ci.sh)
# 2. each test's outputs.zip, found through the build event file, copied to
#    artifacts/<test name>/ (tools/ci/collect_test_outputs.sh), which the
#    step's artifact_paths upload
# 3. a table of median real, user and max RSS per stage
#    (tools/ci/results_table.sh), posted as a Buildkite annotation, or
#    printed when not run by a Buildkite agent
#
# Locally, from the checkout (about half an hour on 2 cores):
#   tools/ci/nightly.sh
# and artifacts/ holds what the job would upload.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

readonly events="artifacts/bazel-events.json"
# Outputs of an earlier run must not pass for this run's.
rm -rf artifacts
mkdir -p artifacts

echo "--- :bazel: tools/bazel test //benchmarks:all --config=perf"
status=0
tools/ci/bazel_ci.sh test //benchmarks:all --config=perf "$@" || status=$?
# Failed benchmarks have outputs too (the profiles of what went wrong):
# collect whatever there is, then fail the job with Bazel's status.

echo "--- :package: Collecting test outputs"
if ! tools/ci/collect_test_outputs.sh "$events" artifacts; then
  # After a failed build, say so; after a good one, this is the failure.
  ((status != 0)) || exit 1
fi

echo "--- :bar_chart: Results"
table="$(tools/ci/results_table.sh artifacts)" || table="(no timings: see the log)"
summary="$(printf '%s\n\n%s\n' "**Nightly benchmarks** (\`$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\`, $(uname -n))" "$table")"
if [[ -n "${BUILDKITE:-}" ]] && command -v buildkite-agent >/dev/null 2>&1; then
  style=success
  ((status == 0)) || style=error
  printf '%s\n' "$summary" | buildkite-agent annotate --style "$style" --context nightly-perf
fi
printf '%s\n' "$summary"

# ---------------------------------------------------------------------------
# Report: //benchmarks:report (being written separately) will turn
# artifacts/*/outputs.zip into the lab's report. Its call goes here, once it
# exists; until then this job publishes the raw outputs and the table above.
# ---------------------------------------------------------------------------

exit "$status"
