#!/usr/bin/env bash
# Runs a go_test binary (the first argument, a runfiles path) under this
# sh_test, which inherits the user's environment (env_inherit): rules_go's
# go_test cannot on Bazel 4, and tools/ci/tools.sh needs HOME and the pip
# settings to install what the test runs. The Go test finds its runfiles
# (TEST_SRCDIR) as if Bazel had run it directly.
set -euo pipefail
test_binary="$1"
shift
exec "$test_binary" "$@"
