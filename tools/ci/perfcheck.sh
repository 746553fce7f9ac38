#!/usr/bin/env bash
# The perf check of a pull request (.buildkite/pipeline.yml): the
# benchmarks the change can affect, measured against its merge base with
# the pull request's base branch (tools/perfcheck, docs/perfcheck.md); its
# comment posted as an annotation; the step fails on a regression of a
# gated figure that no Perf-Accepted: trailer accepts.
#
# It builds with tools/bazel alone: no remote cache, so neither a fork's
# build nor the base's ever writes one. A trusted job may name a config of
# .bazelrc for the count actions (COUNTS_CONFIG, e.g. buildbarn): they then
# run on that cluster's workers, whose cache keeps them for every check of
# the same base; a fork's job never names one, so its counts run here and
# write no shared cache.
#
# Usage: tools/ci/perfcheck.sh [OUT [COUNTS_CONFIG]] (OUT: default
# perf-check, the summary and the comment; a fork's job keeps them under
# untrusted-artifacts/)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out="${1:-perf-check}"

base_branch="${BUILDKITE_PULL_REQUEST_BASE_BRANCH:-main}"
# Buildkite's checkout may not know the base branch yet.
git fetch --quiet origin "$base_branch" 2>/dev/null || true
base="$(git merge-base HEAD "origin/$base_branch" 2>/dev/null || git merge-base HEAD "$base_branch")"

echo "--- :mag: perf check against $base_branch ($base)"
status=0
tools/bazel run //tools/perfcheck -- --base "$base" --out "$PWD/$out" ${2:+--counts-config "$2"} || status=$?
if [[ -f "$out/pr-comment.md" ]] && [[ -n "${BUILDKITE:-}" ]] && command -v buildkite-agent >/dev/null 2>&1; then
  style=success
  ((status == 0)) || style=error
  buildkite-agent annotate --style "$style" --context perf-check <"$out/pr-comment.md"
fi
exit "$status"
