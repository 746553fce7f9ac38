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
# 3. the report (//benchmarks:report): artifacts/report/index.html and
#    report.md, compared with the previous night's results; its Markdown
#    table is posted as a Buildkite annotation (printed when not run by an
#    agent). Without a report, a table of median real, user and max RSS per
#    stage (tools/ci/results_table.sh) takes its place.
# 4. the gates: the report fails a benchmark whose real time or max RSS got
#    significantly worse (docs/regressions.md), and benchgate a Go
#    benchmark (go_benchmark) that got slower or allocates more.
# 5. a night without failures or regressions becomes the next night's
#    baseline.
#
# The baseline is the artifacts of the last good night, kept on the perf
# agent (one dedicated machine) in $HAVLAK_LAB_BASELINE, by default
# ${XDG_CACHE_HOME:-~/.cache}/havlak-lab/nightly-baseline. Seed or replace
# it with a build's artifacts:
#   buildkite-agent artifact download 'artifacts/*' DIR --build BUILD_ID
#   mv DIR/artifacts "$HAVLAK_LAB_BASELINE"
# Without one, the report compares with nothing and the gates pass.
# Steps 3 to 5 are tools/ci/nightly_report.sh.
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

# A night whose tests failed is never the next one's baseline.
((status == 0)) || export NIGHTLY_TESTS_FAILED=1
report_status=0
tools/ci/nightly_report.sh artifacts || report_status=$?
((status != 0)) || status="$report_status"
exit "$status"
