#!/usr/bin/env bash
# The nightly job's first step (.buildkite/pipeline.yml, key nightly-perf):
# uploads its steps, generated from the shard map benchmarks/shards.json by
# `nightly steps` (docs/nightly.md#shards): one step per shard, each
# running tools/ci/nightly.sh --shard K on the perf agent tagged
# perf_shard=K, and the step that merges their results into one night and
# gates it (tools/ci/nightly.sh --merge).
#
#   tools/ci/nightly_steps.sh
#
# Outside Buildkite it prints the steps instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

mkdir -p artifacts
tools/bazel run //tools/nightly -- steps benchmarks/shards.json >artifacts/nightly-steps.json
if [[ -n "${BUILDKITE:-}" ]]; then
  buildkite-agent pipeline upload artifacts/nightly-steps.json
else
  cat artifacts/nightly-steps.json
fi
