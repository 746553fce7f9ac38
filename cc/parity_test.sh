#!/usr/bin/env bash
# Checks that a C++ stage behaves like the Go stage it translates: for the
# same command line, the same stdout byte for byte and the same exit status;
# and the same stderr once the program names are set aside, up to the usage
# message, which lists the Go stages' profile flags only.
#
# Usage: parity_test.sh GO_STAGE CC_STAGE CFG_FILES... (runfiles paths; the
# hand-made CFGs, .dump files among them are skipped)

# shellcheck disable=SC1090 # the runfiles library's location is computed
# --- begin runfiles.bash initialization v2 ---
# Copy-pasted from the Bazel Bash runfiles library v2.
set -uo pipefail; f=bazel_tools/tools/bash/runfiles/runfiles.bash
source "${RUNFILES_DIR:-/dev/null}/$f" 2>/dev/null || \
  source "$(grep -sm1 "^$f " "${RUNFILES_MANIFEST_FILE:-/dev/null}" | cut -f2- -d' ')" 2>/dev/null || \
  source "$0.runfiles/$f" 2>/dev/null || \
  source "$(grep -sm1 "^$f " "$0.runfiles_MANIFEST" | cut -f2- -d' ')" 2>/dev/null || \
  source "$(grep -sm1 "^$f " "$0.exe.runfiles_MANIFEST" | cut -f2- -d' ')" 2>/dev/null || \
  { echo>&2 "ERROR: cannot find $f"; exit 1; }; f=; set -e
# --- end runfiles.bash initialization v2 ---
set -euo pipefail

go_stage="$(rlocation "$TEST_WORKSPACE/$1")"
cc_stage="$(rlocation "$TEST_WORKSPACE/$2")"
shift 2
cfgs=()
for path in "$@"; do
  [[ "$path" == *.cfg ]] && cfgs+=("$(rlocation "$TEST_WORKSPACE/$path")")
done
((${#cfgs[@]} > 0)) || { echo "no hand-made CFGs given" >&2; exit 1; }

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
go_name="$(basename "$go_stage")"
cc_name="$(basename "$cc_stage")"
failures=0
checks=0

# check ARGS...: runs both stages with ARGS and compares what they print.
check() {
  local go_status=0 cc_status=0
  "$go_stage" "$@" >go.out 2>go.err || go_status=$?
  "$cc_stage" "$@" >cc.out 2>cc.err || cc_status=$?
  # Keep stderr up to the usage message, with the Go stage's name.
  sed -n '/^Usage of /q;p' go.err >go.msg
  sed -n '/^Usage of /q;p' cc.err | sed "s/^$cc_name: /$go_name: /" >cc.msg
  checks=$((checks + 1))
  local what="$cc_name $*"
  if ! cmp -s go.out cc.out; then
    echo "FAIL: $what: stdout differs from $go_name's:" >&2
    diff go.out cc.out | head -n 10 >&2 || true
    failures=$((failures + 1))
  elif [[ "$go_status" != "$cc_status" ]]; then
    echo "FAIL: $what: exit status $cc_status, $go_name's $go_status" >&2
    failures=$((failures + 1))
  elif ! cmp -s go.msg cc.msg; then
    echo "FAIL: $what: stderr differs from $go_name's:" >&2
    diff go.msg cc.msg | head -n 10 >&2 || true
    failures=$((failures + 1))
  fi
}

for cfg in "${cfgs[@]}"; do
  check -cfg "$cfg" -dump -iterations 2
done
check -trees 2 -loops 3 -baseloops 4 -dummy 5 -iterations 3 -dump
check -trees=0 -dummy=0 -iterations=1 -dump
if "$go_stage" -h 2>&1 | grep -q -- '-reuseloopgraph'; then
  check -trees 2 -loops 3 -baseloops 4 -dummy 5 -iterations 2 -dump -reuseloopgraph=false
  check -reuseloopgraph=maybe
fi

# Bad command lines.
check -h
check -x
check -trees=abc
check -loops 99999999999999999999
check -trees
check -dump=yes
check ---dump
check extra
check -- -dump
check -cfg x.cfg -trees 1 -dummy 2
check -trees=-1
check -iterations=1000001
check -loops=100000 -baseloops=1000
check -cfg "$tmp/missing.cfg"

# Bad CFG files.
bad=(
  $'0 1\n1\n'
  $'0 1 2\xc2\xa0# comment\n'
  $'0 -1\n'
  $'\n\n0 2147483648\n'
  $'0 \xff\xc2\xa0\n'
  $'0 1\n2 3 4'
)
for i in "${!bad[@]}"; do
  printf '%s' "${bad[$i]}" >"bad$i.cfg"
  check -cfg "bad$i.cfg"
done

echo "$((checks - failures)) passed, $failures failed"
((failures == 0))
