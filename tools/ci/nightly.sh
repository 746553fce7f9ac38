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
#
# Sharded across perf agents (docs/nightly.md#shards: the map is
# benchmarks/shards.json; `nightly steps` makes a step per shard and the
# merge step):
#   tools/ci/nightly.sh --shard K [BAZEL ARGS...]
#     only shard K's tests; their outputs.zip in shard-artifacts/shard-K/
#     and how bazel test ended in shard-artifacts/shard-K.json, which the
#     step uploads; no gate
#   tools/ci/nightly.sh --merge
#     downloads every shard's shard-artifacts/ (buildkite-agent; by hand,
#     put them there), merges them into one night in artifacts/
#     (nightly merge) and gates it once; a shard that failed or never
#     reported fails the night, its benchmarks named
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

readonly events="artifacts/bazel-events.json"
readonly shard_map="benchmarks/shards.json"
readonly shard_artifacts="shard-artifacts"
nightly=(tools/bazel run //tools/nightly --)

# gate ARTIFACTS STATUS: the gate over a night whose tests ended with
# STATUS; exits with the night's status.
gate() {
  local gate=(gate --otava "$(tools/ci/tools.sh otava)") gate_status=0 status="$2"
  # A night whose tests failed is never the next one's baseline.
  ((status == 0)) || gate+=(--tests-failed)
  "${nightly[@]}" "${gate[@]}" "$1" || gate_status=$?
  ((status != 0)) || status="$gate_status"
  exit "$status"
}

case "${1:-}" in
--shard)
  shard="${2:?--shard wants a shard number}"
  shift 2
  dir="$shard_artifacts/shard-$shard"
  rm -rf artifacts "$shard_artifacts"
  mkdir -p artifacts "$dir"
  # The map must hold every full-size test of the suite, and nothing else:
  # a test in no shard would silently never run.
  comm -3 <("${nightly[@]}" shard "$shard_map" all | sort) \
    <(tools/bazel query 'attr(tags, "\bperf\b", tests(//benchmarks:all))' | sort) >artifacts/unmapped.txt
  if [[ -s artifacts/unmapped.txt ]]; then
    echo "$shard_map and the suite's full-size tests differ (left: only in the map; right: only in the suite):" >&2
    cat artifacts/unmapped.txt >&2
    echo "Regenerate the map: docs/nightly.md#shards" >&2
    exit 1
  fi
  mapfile -t tests < <("${nightly[@]}" shard "$shard_map" "$shard")
  echo "--- :bazel: shard $shard: tools/bazel test ${#tests[@]} tests --config=perf"
  status=0
  if ((${#tests[@]} > 0)); then
    tools/ci/bazel_ci.sh test "${tests[@]}" --config=perf "$@" || status=$?
    echo "--- :package: Collecting shard $shard's test outputs"
    if ! "${nightly[@]}" collect "$events" "$dir"; then
      ((status != 0)) || status=1
    fi
    cp "$events" "$dir/"
  fi
  printf '{"shard": %d, "exit_status": %d}\n' "$shard" "$status" >"$dir.json"
  exit "$status"
  ;;
--merge)
  rm -rf artifacts
  mkdir -p artifacts
  if [[ -n "${BUILDKITE:-}" ]]; then
    rm -rf "$shard_artifacts"
    echo "--- :buildkite: Downloading the shards' results"
    # A shard that uploaded nothing leaves nothing to download: the merge
    # names its benchmarks.
    buildkite-agent artifact download "$shard_artifacts/*" . || true
  fi
  echo "--- :twisted_rightwards_arrows: Merging the shards into one night"
  status=0
  "${nightly[@]}" merge "$shard_map" "$shard_artifacts" artifacts || status=$?
  # What the merge wrote is gated even when it failed: the report names
  # what is MISSING, and the night never becomes the baseline.
  gate artifacts "$status"
  ;;
esac

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

gate artifacts "$status"
