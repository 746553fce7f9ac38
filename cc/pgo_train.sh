#!/usr/bin/env bash
# The training run of cc_pgo_binary (cc/pgo.bzl): runs the instrumented
# program, then copies each object's profile data (.gcda) to the path where
# the optimising compile of that object looks for it.
#
#   pgo_train.sh PROGRAM OUT_DIR OBJECT_DIR [ARG...]
#
# The instrumented program writes each object's counts to the absolute path
# of that object, with .gcda for .o, in the sandbox it was compiled in, long
# gone; GCOV_PREFIX puts that path under a directory of ours instead. Each
# object OBJECT_DIR/x.o then has its counts in OUT_DIR/x.gcda.
set -euo pipefail

if (($# < 3)); then
  echo "usage: pgo_train.sh PROGRAM OUT_DIR OBJECT_DIR [ARG...]" >&2
  exit 2
fi
program="$1"
out_dir="$2"
object_dir="$3"
shift 3

counts="$(mktemp -d)"
trap 'rm -rf "$counts"' EXIT

GCOV_PREFIX="$counts" "$program" "$@" >/dev/null

found=0
while IFS= read -r -d '' gcda; do
  suffix="${gcda#*/"$object_dir"/}"
  if [[ "$suffix" == "$gcda" ]]; then
    echo "pgo_train.sh: $gcda is not the data of an object under $object_dir" >&2
    exit 1
  fi
  mkdir -p "$out_dir/$(dirname "$suffix")"
  cp "$gcda" "$out_dir/$suffix"
  found=$((found + 1))
done < <(find "$counts" -name '*.gcda' -print0)

if ((found == 0)); then
  echo "pgo_train.sh: $program wrote no profile data (.gcda)" >&2
  exit 1
fi
