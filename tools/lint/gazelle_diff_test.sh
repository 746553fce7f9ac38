#!/usr/bin/env bash
# Fails when `bazel run //:gazelle` would change a BUILD file: runs the same
# gazelle runner in diff mode against the checkout itself.
#
# Usage: gazelle_diff_test.sh GAZELLE_RUNNER WORKSPACE_FILE (runfiles paths)
set -euo pipefail

runner="$PWD/$1"
# Runfiles hold symlinks into the source tree; the WORKSPACE file's target
# tells where the checkout is.
workspace="$(dirname "$(readlink -f "$2")")"

if ! BUILD_WORKSPACE_DIRECTORY="$workspace" "$runner" -mode=diff; then
  echo "gazelle would change the BUILD files above: run 'tools/bazel run //:gazelle'" >&2
  exit 1
fi
