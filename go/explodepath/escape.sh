#!/usr/bin/env bash
# Pins the escape-analysis decisions the allocation studies rely on, from the
# compiler's own report (go build -gcflags=-m):
#
#   - go/wordcount/wc3: count (count.go) allocates nothing: no value in it
#     escapes to the heap or is moved there; the one read buffer,
#     make([]byte, 65536), is made, and escapes, in exactly one place.
#   - go/explodepath: Presized (presized.go) makes exactly one heap
#     allocation, its result, make([]string, n).
#
# The AllocsPerRun tests (wc3's TestNoAllocs, explodepath's TestAllocs) are
# the guard that runs everywhere, Bazel included; this script says *why* a
# regression allocates. It needs a go command: $GO, or go on the PATH.
# explodepath's TestEscapeAnalysis runs it under plain `go test`.
#
# Usage: go/explodepath/escape.sh   (from anywhere in the checkout)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
go="${GO:-go}"
if ! command -v "$go" >/dev/null 2>&1; then
  echo "escape.sh: no go command (set GO or put go on the PATH)" >&2
  exit 2
fi

if ! report="$("$go" build -gcflags=-m -o /dev/null ./go/wordcount/wc3 2>&1 &&
  "$go" build -gcflags=-m ./go/explodepath 2>&1)"; then
  echo "$report" >&2
  echo "escape.sh: go build failed (with an older go, try GOTOOLCHAIN=auto)" >&2
  exit 2
fi
failed=0

fail() {
  echo "escape.sh: $*" >&2
  failed=1
}

# lines FILE PATTERN: the report's lines about FILE that match PATTERN.
lines() {
  grep -E "^(\./)?$1:[0-9]+:[0-9]+: .*$2" <<<"$report" || true
}

heap='(escapes to heap|moved to heap)'

if [[ -z "$(lines go/wordcount/wc3/count.go 'inlining call to wordrule.Of')" ]]; then
  fail "no report for go/wordcount/wc3/count.go: did the compiler run with -m?"
fi
if found="$(lines go/wordcount/wc3/count.go "$heap")" && [[ -n "$found" ]]; then
  fail "wc3's count allocates:"$'\n'"$found"
fi
buffers="$(lines go/wordcount/wc3/main.go 'make\(\[\]byte, 65536\) escapes to heap')"
if [[ "$(grep -c . <<<"$buffers")" != 1 ]]; then
  fail "wc3 should make its 64 KiB buffer in exactly one place, found:"$'\n'"${buffers:-nothing}"
fi

found="$(lines go/explodepath/presized.go "$heap")"
if [[ "$found" != *'make([]string, n) escapes to heap' || "$(grep -c . <<<"$found")" != 1 ]]; then
  fail "Presized should allocate only make([]string, n), found:"$'\n'"${found:-nothing}"
fi

if ((failed)); then
  exit 1
fi
echo "escape.sh: wc3's count allocates nothing, its buffer is made once; Presized allocates only its result"
