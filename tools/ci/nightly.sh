#!/usr/bin/env bash
# The nightly perf job (.buildkite/pipeline.yml, docs/nightly.md): the
# full-size benchmark suite, one benchmark at a time, then its outputs as
# artifacts, the report and the gates (tools/nightly).
#
#   tools/ci/nightly.sh [--shard K] [BAZEL ARGS...] | --merge | --steps
#
# --steps uploads the job's steps, a job per shard of the map and the merge
# (nightly steps --upload), and does nothing else.
#
# 1. tools/bazel test //benchmarks:all --config=ci --config=perf
#    (tools/ci/bazel_ci.sh); --shard K: shard K's tests of the shard map
#    ($HAVLAK_LAB_SHARD_MAP, else benchmarks/shards.json)
# 2. nightly collect: each test's outputs.zip, found through the build event
#    file, copied to artifacts/<test name>/ (--shard K: shard-artifacts/shard-K/,
#    with the event file), and the counts of their programs' layout variants
#    (nightly counts, built with the tests) to layout-variants/, which the
#    step uploads
# 3. nightly gate: the report, the Go benchmarks, the history's change points,
#    the exports, the annotation, the baseline (docs/nightly.md); --merge
#    merges every shard's night (docs/nightly.md#shards) into artifacts/ first;
#    after a failed collect, --collect-failed: the night fails, recorded
#
# Run locally (half an hour on 2 cores), artifacts/ holds what it uploads.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

readonly events="artifacts/bazel-events.json" map="${HAVLAK_LAB_SHARD_MAP:-benchmarks/shards.json}"
# shard, steps and merge place the benchmarks the map does not know by the
# suite's manifest (a testonly target: built here, not carried by the tool).
tools/bazel build //benchmarks:manifest
nightly=(tools/bazel run //tools/nightly -- --manifest "$(tools/bazel info bazel-bin)/benchmarks/manifest.json")
night=artifacts tests=(//benchmarks:all)
# Outputs of an earlier run must not pass for this run's.
rm -rf artifacts
mkdir -p artifacts
[[ "${1:-}" != --steps ]] || exec "${nightly[@]}" steps --upload "$map"
[[ "${1:-}" != --merge ]] || exec "${nightly[@]}" merge --otava "$(tools/ci/tools.sh otava)" "$map" shard-artifacts artifacts
# nightly shard checks K, a shard of the map, before its night is removed.
# The count actions of the benchmarks' programs and their layout variants,
# built with the tests: a promoted night keeps them, and they calibrate the
# next night's cache misses (docs/nightly.md#layout-noise).
if [[ "${1:-}" == --shard ]]; then
  "${nightly[@]}" shard "$map" "${2:?--shard wants a shard number}" >artifacts/shard-tests.txt
  "${nightly[@]}" counts "$map" "$2" >>artifacts/shard-tests.txt
  night="shard-artifacts/shard-$2" tests=(--target_pattern_file=artifacts/shard-tests.txt); shift 2; rm -rf "$night"
else
  mapfile -t counts < <("${nightly[@]}" counts)
  tests+=("${counts[@]}")
fi

echo "--- :bazel: tools/bazel test ${tests[*]} --config=perf"
status=0
tools/ci/bazel_ci.sh test "${tests[@]}" --config=perf "$@" || status=$?
# Failed benchmarks have outputs too (the profiles of what went wrong):
# collect whatever there is, then fail the job with Bazel's status.

echo "--- :package: Collecting test outputs"
# The test logs of the build that just ran: bazel run (default
# configuration) moves bazel-testlogs away from --config=perf's.
testlogs="$(readlink -f bazel-testlogs || true)" bazelbin="$(readlink -f bazel-bin || true)"
collect_failed=()
if ! "${nightly[@]}" collect --testlogs "$testlogs" --bazel-bin "$bazelbin" "$events" "$night"; then
  # After a good build, this is the failure: a shard's job fails here (the
  # merge names its benchmarks); an unsharded night is gated for what
  # arrived, fails as incomplete, and its run is recorded.
  [[ "$night" == artifacts ]] || { ((status != 0)) || status=1; }
  collect_failed=(--collect-failed)
fi
# A shard's night is gated with the others' (--merge).
[[ "$night" == artifacts ]] || exit "$status"

gate=(gate --otava "$(tools/ci/tools.sh otava)" "${collect_failed[@]}")
# A night whose tests failed is never the next one's baseline.
((status == 0)) || gate+=(--tests-failed)
gate_status=0
"${nightly[@]}" "${gate[@]}" artifacts || gate_status=$?
((status != 0)) || status="$gate_status"
exit "$status"
