#!/usr/bin/env bash
# The presubmit job (.buildkite/pipeline.yml): every test of the default set
# (tools/bazel test //...), with --config=ci, and --config=buildbuddy when
# $BUILDBUDDY_API_KEY is set. Arguments are added to the bazel command line.
#
# Locally, from the checkout: tools/ci/presubmit.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

echo "--- :bazel: tools/bazel test //..."
tools/ci/bazel_ci.sh test //... "$@"
