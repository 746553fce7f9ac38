#!/usr/bin/env bash
# Proves --config=local-remote, BuildBuddy's remote cache protocol (REAPI)
# against a real server: BuildGrid on 127.0.0.1 with a throw-away CAS.
#
# 1. In a disposable copy of the checkout, build //... with the cache: every
#    action runs here and its result is uploaded.
# 2. `bazel clean`: removes the output tree (bazel-out: every action's
#    outputs) and Bazel's local action cache, so nothing built is left on
#    this side. Not --expunge, which would also drop the fetched external
#    repositories (the Go SDK, with its standard library compiled when it is
#    fetched: minutes) that are no action's output and no cache's business.
# 3. Build //... again: every action must be a remote cache hit; Bazel's
#    "N processes: ..." line may name nothing else but "internal" (actions
#    Bazel does in its own process: symlinks, file writes).
# 4. Under --config=rbe, every benchmark test action carries no-remote-exec
#    (aquery), so perf timings never come from a remote executor.
#
# Usage: remote_cache_test.sh WORKSPACE_FILE GO (runfiles paths; see lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

port="$(free_port)"
start_buildgrid "$port" "$tmp/buildgrid"
echo "== BuildGrid on 127.0.0.1:$port"

copy="$tmp/checkout"
copy_checkout "$copy"
remote=(--config=local-remote "--remote_cache=grpc://127.0.0.1:$port")

# processes_line LOG: Bazel's "INFO: N processes: ..." summary in LOG.
processes_line() {
  grep -E '^INFO: [0-9]+ process(es)?[:.]' "$1" | tail -n 1
}

build() {
  local log="$tmp/$1.log"
  shift
  if ! nested_bazel "$copy" build "${remote[@]}" "$@" //... >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "bazel build //... failed (above)"
  fi
  processes_line "$log"
}

echo "== first build: tools/bazel build --config=local-remote //..."
first="$(build first)"
echo "$first"
if grep -A1 '^WARNING: Writing to Remote Cache' "$tmp/first.log" >&2; then
  tail -n 20 "$tmp/buildgrid/buildgrid.log" >&2
  die "uploads to the cache failed (above)"
fi
[[ "$first" =~ ([0-9]+)\ (linux-sandbox|local|processwrapper-sandbox) ]] ||
  die "the first build ran no action: was the copy's output base new?"

echo "== bazel clean (outputs and local action cache; external repositories kept)"
nested_bazel "$copy" clean >/dev/null 2>&1 || die "bazel clean failed"

echo "== second build"
second="$(build second --execution_log_json_file="$tmp/second.exec.json")"
echo "$second"
[[ "$second" =~ ([0-9]+)\ remote\ cache\ hit ]] || die "no remote cache hit in: $second"
hits="${BASH_REMATCH[1]}"
# Every kind of process but cache hits and Bazel-internal ones means an
# action ran again.
others="$(sed -E 's/^INFO: [0-9]+ processes?: //; s/\.$//' <<<"$second" | tr ',' '\n' |
  sed 's/^ *//' | grep -vE '^[0-9]+ (remote cache hit|internal)$' || true)"
if [[ -n "$others" ]]; then
  echo "Actions that ran (execution log), and the first build's warnings:" >&2
  jq -r 'select(.remoteCacheHit == false) | "  \(.mnemonic) \(.actualOutputs[0].path // "")"' \
    "$tmp/second.exec.json" >&2 || true
  grep -A3 '^WARNING' "$tmp/first.log" | head -n 40 >&2 || true
  die "actions ran instead of hitting the cache: $others"
fi
echo "all $hits cacheable actions were remote cache hits"

echo "== aquery --config=rbe: benchmark test actions never run remotely"
nested_bazel "$copy" aquery --config=rbe --remote_executor= --remote_cache= --bes_backend= \
  'mnemonic("TestRunner", //benchmarks:all)' --output=jsonproto >"$tmp/aquery.json" 2>"$tmp/aquery.log" || {
  tail -n 20 "$tmp/aquery.log" >&2
  die "bazel aquery failed"
}
total="$(jq '[.actions[]?] | length' "$tmp/aquery.json")"
local_only="$(jq '[.actions[]? | select(any(.executionInfo[]?; .key == "no-remote-exec"))] | length' "$tmp/aquery.json")"
((total > 0)) || die "aquery found no benchmark test action"
((local_only == total)) || die "$((total - local_only)) of $total benchmark test actions may run remotely"
echo "$total of $total benchmark test actions are no-remote-exec"
echo "PASS: a clean rebuild was served from the remote cache"
