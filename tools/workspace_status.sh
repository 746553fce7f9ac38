#!/bin/sh
# Bazel's workspace status command (.bazelrc): what every benchmark result
# records about the source and the Bazel that built it (tools/result reads
# these keys). It never fails the build: outside a git checkout, or
# without git, the values are empty.
commit="$(git rev-parse HEAD 2>/dev/null)" || commit=""
dirty=false
if [ -n "$commit" ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  dirty=true
fi
echo "STABLE_GIT_COMMIT $commit"
echo "STABLE_GIT_DIRTY $dirty"
# tools/bazel exports it; empty when Bazel was started some other way.
echo "STABLE_BAZEL_VERSION ${HAVLAK_LAB_BAZEL_VERSION:-}"
