#!/usr/bin/env bash
# The nightly perf job (.buildkite/pipeline.yml, queue "perf"): the
# full-size benchmark suite, one benchmark at a time, then its outputs as
# artifacts, the report and the gates (tools/nightly: docs/nightly.md).
#
#   tools/ci/nightly.sh [BAZEL ARGS...]
#
# 1. tools/bazel test //benchmarks:all --config=ci --config=perf
#    (and --config=buildbuddy with $BUILDBUDDY_API_KEY; tools/ci/bazel_ci.sh)
# 2. nightly collect: each test's outputs.zip, found through the build event
#    file, copied to artifacts/<test name>/, which the step uploads
# 3. nightly gate: the report (artifacts/report/) against the last good
#    night ($HAVLAK_LAB_BASELINE), benchgate on the Go benchmarks, the
#    summary as an annotation (printed when not run by an agent), and a
#    good night promoted to baseline; the night enters the results history
#    ($HAVLAK_LAB_HISTORY_DIR, docs/history.md), searched for change points
#    with Apache Otava (installed by tools/ci/tools.sh); the night's results
#    exported for benchstat, Bencher, github-action-benchmark and
#    Prometheus (artifacts/exports/, docs/history.md#exports)
#
# Locally, from the checkout (about half an hour on 2 cores):
#   tools/ci/nightly.sh
# and artifacts/ holds what the job would upload.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

readonly events="artifacts/bazel-events.json"
nightly=(tools/bazel run //tools/nightly --)
# Outputs of an earlier run must not pass for this run's.
rm -rf artifacts
mkdir -p artifacts

echo "--- :bazel: tools/bazel test //benchmarks:all --config=perf"
status=0
tools/ci/bazel_ci.sh test //benchmarks:all --config=perf "$@" || status=$?
# Failed benchmarks have outputs too (the profiles of what went wrong):
# collect whatever there is, then fail the job with Bazel's status.

echo "--- :package: Collecting test outputs"
if ! "${nightly[@]}" collect "$events" artifacts; then
  # After a failed build, say so; after a good one, this is the failure.
  ((status != 0)) || exit 1
fi

gate=(gate --otava "$(tools/ci/tools.sh otava)")
# A night whose tests failed is never the next one's baseline.
((status == 0)) || gate+=(--tests-failed)
gate_status=0
"${nightly[@]}" "${gate[@]}" artifacts || gate_status=$?
((status != 0)) || status="$gate_status"
exit "$status"
