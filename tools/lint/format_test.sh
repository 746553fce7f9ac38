#!/usr/bin/env bash
# Fails when a file is not formatted the lab's way: Go by gofmt; BUILD, .bzl
# and WORKSPACE files by buildifier; shell scripts free of linter findings
# (shellcheck's). It checks the checkout itself, as gazelle_diff_test.sh
# does.
#
# Usage: format_test.sh GOFMT BUILDIFIER WORKSPACE_FILE (runfiles paths)
set -euo pipefail

gofmt="$PWD/$1"
buildifier="$PWD/$2"
workspace="$(dirname "$(readlink -f "$3")")"
cd "$workspace"

# The files of the checkout, not Bazel's output trees.
files() {
  find . \( -name 'bazel-*' -o -name .git \) -prune -o -type f \( "$@" \) -print | sort
}

failures=0
mapfile -t go_files < <(files -name '*.go')
unformatted="$("$gofmt" -l "${go_files[@]}")"
if [[ -n "$unformatted" ]]; then
  echo "not gofmt'd (run gofmt -w):" >&2
  echo "$unformatted" >&2
  failures=$((failures + 1))
fi

mapfile -t starlark < <(files -name BUILD.bazel -o -name BUILD -o -name '*.bzl' -o -name WORKSPACE)
if ! "$buildifier" -mode=check -lint=off "${starlark[@]}"; then
  echo "not formatted by buildifier (run it with -mode=fix on the files above)" >&2
  failures=$((failures + 1))
fi

command -v shellcheck >/dev/null ||
  { echo "shellcheck is missing: tools/bazel test installs it" >&2; exit 1; }
mapfile -t scripts < <(files -name '*.sh')
if ! shellcheck "${scripts[@]}" tools/bazel .ci/run; then
  failures=$((failures + 1))
fi

((failures == 0)) && echo "PASS: ${#go_files[@]} Go files, ${#starlark[@]} Starlark files, ${#scripts[@]}+2 scripts"
((failures == 0))
