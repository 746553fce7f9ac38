#!/usr/bin/env bash
# Fuzzes each target named in the arguments for a few seconds, with the Go
# SDK's go command: go_test runs only the targets' seed corpora
# (testdata/fuzz/), fuzzing needs the go command's own instrumentation.
# It runs in a copy of the checkout's module, with module and build caches
# of its own in the lab's cache directory (internal/labcache), kept between
# runs; a crasher is printed, with the command that replays it.
#
# Usage: fuzz_test.sh GO LABCACHE_SH WORKSPACE_FILE SECONDS PACKAGE:TARGET...
set -euo pipefail

go="$(readlink -f "$1")"
# shellcheck source=/dev/null
source "$2"
# Runfiles hold symlinks into the source tree; the WORKSPACE file's target
# tells where the checkout is.
workspace="$(dirname "$(readlink -f "$3")")"
seconds="$4"
shift 4

cache="$(labcache_dir fuzz)"
mkdir -p "$cache"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The module's Go files, go.mod and go.sum, and the fuzz corpora.
mkdir "$tmp/module"
(cd "$workspace" && find . -path ./bazel-\* -prune -o \( -name '*.go' -o -name go.mod -o -name go.sum -o -path '*/testdata/*' \) -type f -print0 |
  tar -c --null -T - -f -) | tar -x -C "$tmp/module" -f -

status=0
for target in "$@"; do
  package="${target%%:*}"
  name="${target#*:}"
  echo "== $package $name (${seconds}s)"
  if ! (cd "$tmp/module" && env GOTOOLCHAIN=local GOFLAGS=-mod=mod GOCACHE="$cache/gocache" \
    GOMODCACHE="${GOMODCACHE:-$cache/gomodcache}" "$go" test -run '^$' -fuzz "^$name\$" -fuzztime "${seconds}s" "./$package") >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    for crasher in "$tmp/module/$package/testdata/fuzz/$name"/*; do
      if ! [[ -e "$workspace/$package/testdata/fuzz/$name/$(basename "$crasher")" ]]; then
        echo "new failing input $package/testdata/fuzz/$name/$(basename "$crasher"):" >&2
        cat "$crasher" >&2
      fi
    done
    status=1
  else
    grep -E '^fuzz: elapsed: .*execs' "$tmp/log" | tail -n 1 || true
  fi
done
exit "$status"
