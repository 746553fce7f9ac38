#!/usr/bin/env bash
# The perf check of a pull request (.buildkite/pipeline.yml): the
# benchmarks the change can affect, measured against its merge base with
# the pull request's base branch (tools/perfcheck, docs/perfcheck.md),
# which posts its comment as an annotation; the step fails on a regression
# of a gated figure that no Perf-Accepted: trailer accepts.
#
# Nothing of the change measures or judges it. The pipeline runs the
# base's copy of this script (git show BASE:tools/ci/perfcheck.sh), which
# checks the base out in a worktree of its own under the lab's cache
# directory (kept, with its Bazel output base, for the next check) and runs
# the base's perf check from there on the change's checkout: the base's
# runner measures both sides, the base's policy judges (docs/security.md).
#
# It builds with tools/bazel alone: no remote cache, so neither a fork's
# build nor the base's ever writes one. A trusted job may name configs of
# .bazelrc: COUNTS_CONFIG (e.g. buildbarn) for the base's side, whose count
# actions then run on that cluster's workers, whose cache keeps them for
# every check of the same base (main's post-merge step makes them); and
# CHANGE_CACHE_CONFIG (e.g. buildbarn-read) for the change's side, which
# then reads that cache, never writing it, its actions running here. A
# fork's job names neither.
#
# Usage: tools/ci/perfcheck.sh [OUT [COUNTS_CONFIG [CHANGE_CACHE_CONFIG]]]
# in the change's checkout (OUT: default perf-check, the summary and the
# comment; relative to the checkout unless absolute; a fork's job keeps
# them under untrusted-artifacts/)
set -euo pipefail
change="$(git rev-parse --show-toplevel)"
cd "$change"
out="${1:-perf-check}"
[[ "$out" == /* ]] || out="$change/$out"

base_branch="${BUILDKITE_PULL_REQUEST_BASE_BRANCH:-main}"
# Buildkite's checkout may not know the base branch yet.
git fetch --quiet origin "$base_branch" 2>/dev/null || true
base="$(git merge-base HEAD "origin/$base_branch" 2>/dev/null || git merge-base HEAD "$base_branch")"

# The base's rule for the lab's cache directory, not the change's.
# shellcheck source=/dev/null
source <(git show "$base:internal/labcache/labcache.sh")
worktree="$(labcache_dir perfcheck)/base-checkout"
mkdir -p "$(dirname "$worktree")"
# One check at a time uses the base's worktree. The lock is this script's
# alone: every command that may outlive it runs with descriptor 9 closed
# (9>&-). A Bazel server inherits its client's open descriptors and lives
# for hours, so a lock it inherited would hold every later check here.
exec 9>"$worktree.lock"
if ! flock --nonblock 9; then
  echo "--- :hourglass: another perf check on this machine uses $worktree: waiting for it to end"
  flock 9
fi
if [[ "$(git -C "$worktree" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" == \
  "$(git rev-parse --path-format=absolute --git-common-dir)" ]]; then
  git -C "$worktree" checkout --quiet --force --detach "$base"
  git -C "$worktree" clean -ffdq
else
  rm -rf "$worktree"
  git worktree prune
  git worktree add --quiet --detach "$worktree" "$base"
fi

echo "--- :mag: perf check against $base_branch ($base), by the base's tools"
(cd "$worktree" && tools/bazel run ${2:+"--config=$2"} //tools/perfcheck -- --repo "$change" --base "$base" --out "$out" ${2:+--counts-config "$2"} ${3:+--change-cache-config "$3"}) 9>&-
