#!/usr/bin/env bash
# Main's post-merge step (.buildkite/pipeline.yml): what the perf check of
# every pull request based on this commit needs from it, made once. The
# perf check, the runner that measures both sides, and every program's
# count action (perf_counts: the base's counts), built with --config=CONFIG
# (buildbarn: counted on the cluster's workers and kept in its cache), so
# that a pull request's check (tools/ci/perfcheck.sh COUNTS_CONFIG) finds
# them there and builds only its change's binaries (docs/perfcheck.md).
#
# Usage: tools/ci/postmerge.sh CONFIG
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
config="${1:?usage: tools/ci/postmerge.sh CONFIG (a config of .bazelrc: buildbarn)}"

echo "--- :package: the perf check's base: its tools and every count, with --config=$config"
mapfile -t counts < <(tools/bazel query --noshow_progress 'kind(perf_counts, //benchmarks:all)')
((${#counts[@]} > 0)) || {
  echo "postmerge.sh: no count action in //benchmarks (kind perf_counts)" >&2
  exit 1
}
tools/ci/bazel_ci.sh build "--config=$config" //tools/perfcheck //tools/perf/runner //benchmarks:manifest "${counts[@]}"
