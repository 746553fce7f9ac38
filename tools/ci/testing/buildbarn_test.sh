#!/usr/bin/env bash
# Proves --config=buildbarn-cache (remote cache, BuildBuddy's cache protocol)
# and --config=buildbarn (remote execution) against a real Buildbarn cluster
# (tools/buildbarn) on 127.0.0.1, in one disposable copy of the checkout
# whose output base all steps share (each new copy fetches the Go SDK and
# compiles its standard library again: minutes).
#
# The programs (the target patterns given after the test's three
# arguments: //go/... and //cc/..., or a few of them) are what every step
# builds: the tools under //tools/... add minutes of compiling (their Go
# modules, a second copy of Gazelle) and nothing the cache or the worker
# treats differently.
#
# 1. Remote cache: build the programs with --config=buildbarn-cache: every
#    action runs here and its result is uploaded.
# 2. `bazel clean` (the output tree and Bazel's local action cache go; the
#    fetched external repositories stay: --expunge would re-fetch the Go SDK,
#    minutes that prove nothing about the cache), build them again: every
#    action is a remote cache hit; Bazel's "N processes: ..." line names
#    nothing but "remote cache hit" and "internal" (actions Bazel does in its
#    own process: symlinks, file writes).
# 3. Remote execution: `bazel clean` (Bazel's local action cache ignores
#    execution properties), then build the programs and run their
#    tests with --config=buildbarn (the platform properties make every
#    action's remote key new): the actions run on the cluster's worker
#    ("N remote"), and every test's log says it ran in the worker's build
#    directory (--run_under=//tools/ci:where_test_ran prints it).
# 4. `bazel clean`, the same again: all remote cache hits, tests included.
# 5. Under --config=buildbarn and --config=rbe, every benchmark test action
#    is no-remote-exec (aquery): perf timings never come from a remote
#    executor.
# 6. A count action, havlak6cc's (perf_counts, docs/perfcheck.md): built
#    here, then (after a clean) on the worker, whose exact counts must equal
#    this machine's; after another clean, a remote cache hit; declared for
#    another worker (another Valgrind), a new key the worker refuses.
#
# Usage: buildbarn_test.sh WORKSPACE_FILE GO BUILDBARN PATTERN... (runfiles
# paths, lib.sh; then the programs' target patterns)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

copy="$tmp/checkout"
copy_checkout "$copy"
start_buildbarn "$tmp/bb"
# The cluster alone answers: a disk cache in the user's home .bazelrc (CI's
# has one) would answer the first build and hide whether the cluster serves.
endpoint=("--remote_cache=$bb_endpoint" --disk_cache=)
programs=("${@:4}")
((${#programs[@]} > 0)) || die "no programs: give their target patterns after the three runfiles"
# A program's count action (perf_counts): its exact counts are a pure
# function of the binary, its declared run and the worker's kind.
counts=(//benchmarks:havlak6cc_counts)

# bazel_step NAME ARGS...: tools/bazel ARGS in the copy, its output in
# $tmp/NAME.log (the end shown if it fails); prints the processes line and
# how long it took.
bazel_step() {
  local name="$1" start=$SECONDS
  shift
  if ! nested_bazel "$copy" "$@" >"$tmp/$name.log" 2>&1; then
    tail -n 40 "$tmp/$name.log" >&2
    die "tools/bazel $* failed (above)"
  fi
  processes_line "$tmp/$name.log"
  echo "($name: $((SECONDS - start)) s)"
}

clean() {
  nested_bazel "$copy" clean >/dev/null 2>&1 || die "bazel clean failed"
}

echo "== 1. remote cache: tools/bazel build --config=buildbarn-cache ${programs[*]}"
first="$(bazel_step cache-first build --config=buildbarn-cache "${endpoint[@]}" "${programs[@]}")"
echo "$first"
if grep -A1 '^WARNING: Writing to Remote Cache' "$tmp/cache-first.log" >&2; then
  die "uploads to the cache failed (above)"
fi
[[ "$first" =~ ([0-9]+)\ (linux-sandbox|local|processwrapper-sandbox) ]] ||
  die "the first build ran no action: was the copy's output base new?"

echo "== 2. bazel clean; the same build"
clean
second="$(bazel_step cache-second build --config=buildbarn-cache "${endpoint[@]}" \
  --execution_log_json_file="$tmp/cache-second.exec.json" "${programs[@]}")"
echo "$second"
only_cache_hits "$(head -n 1 <<<"$second")" "$tmp/cache-second.exec.json"
echo "every action of ${programs[*]} was a remote cache hit"

remote=(--config=buildbarn "--remote_executor=$bb_endpoint" "${endpoint[@]}"
  --run_under=//tools/ci:where_test_ran)
echo "== 3. bazel clean; remote execution: tools/bazel test --config=buildbarn ${programs[*]}"
# Bazel's local action cache ignores execution properties: without a clean
# it would keep step 2's outputs instead of executing on the worker.
clean
third="$(bazel_step remote-first test "${remote[@]}" "${programs[@]}")"
echo "$third"
[[ "$(head -n 1 <<<"$third")" =~ ([0-9]+)\ remote[,.] ]] || die "no action ran remotely: $third"
grep -E '^(//|Executed)' "$tmp/remote-first.log" | tail -n 3
tests_ran_in "$bb_build_dir" "$copy/bazel-testlogs"

echo "== 4. bazel clean; the same tests"
clean
fourth="$(bazel_step remote-second test "${remote[@]}" \
  --execution_log_json_file="$tmp/remote-second.exec.json" "${programs[@]}")"
echo "$fourth"
only_cache_hits "$(head -n 1 <<<"$fourth")" "$tmp/remote-second.exec.json"
echo "every action, tests included, was a remote cache hit"

echo "== 5. aquery: benchmark test actions never run remotely"
for config in buildbarn rbe; do
  nested_bazel "$copy" aquery "--config=$config" --remote_executor= --remote_cache= --bes_backend= \
    'mnemonic("TestRunner", //benchmarks:all)' --output=jsonproto >"$tmp/aquery.json" 2>"$tmp/aquery.log" || {
    tail -n 20 "$tmp/aquery.log" >&2
    die "bazel aquery --config=$config failed"
  }
  total="$(jq '[.actions[]?] | length' "$tmp/aquery.json")"
  local_only="$(jq '[.actions[]? | select(any(.executionInfo[]?; .key == "no-remote-exec"))] | length' "$tmp/aquery.json")"
  ((total > 0)) || die "aquery found no benchmark test action"
  ((local_only == total)) || die "--config=$config: $((total - local_only)) of $total benchmark test actions may run remotely"
  echo "--config=$config: $total of $total benchmark test actions are no-remote-exec"
done
echo "== 6. exact counts as cached remote actions: ${counts[*]}"
# exact_counts ZIP: the exact figures of a count action's result.json.
exact_counts() {
  unzip -p "$1" result.json | jq -c '[.metrics[] | select(.exact == true) | [.name, .values]]'
}
count_zip="$copy/bazel-bin/benchmarks/havlak6cc_counts.zip"
clean
bazel_step counts-local build "${counts[@]}"
local_counts="$(exact_counts "$count_zip")"
[[ "$local_counts" == *instructions* ]] || die "the local count has no instructions: $local_counts"
clean
bazel_step counts-remote build "${remote[@]}" --execution_log_json_file="$tmp/counts-remote.exec.json" "${counts[@]}"
runner="$(jq -r 'select(.mnemonic == "PerfCount") | .runner' "$tmp/counts-remote.exec.json")"
[[ "$runner" == remote ]] || die "the count action ran on ${runner:-nothing}, not on the cluster's worker"
[[ "$(exact_counts "$count_zip")" == "$local_counts" ]] ||
  die "the worker counted otherwise than here: $(exact_counts "$count_zip") against $local_counts"
echo "the worker's exact counts equal this machine's: $local_counts"
clean
again="$(bazel_step counts-again build "${remote[@]}" --execution_log_json_file="$tmp/counts-again.exec.json" "${counts[@]}")"
only_cache_hits "$(head -n 1 <<<"$again")" "$tmp/counts-again.exec.json"
echo "a second build counted nothing: every action, the count's included, was a remote cache hit"
# A count declared for another worker (another Valgrind) has another key,
# so no cached count serves it, and the worker refuses to count it.
other="$tmp/other-worker"
mkdir -p "$other"
echo 'workspace(name = "count_worker")' >"$other/WORKSPACE"
echo 'exports_files(["worker.json"])' >"$other/BUILD.bazel"
output_base="$(nested_bazel "$copy" info output_base 2>/dev/null)"
jq '.valgrind = "valgrind-0.0"' "$output_base/external/count_worker/worker.json" >"$other/worker.json"
if nested_bazel "$copy" build "${remote[@]}" "--override_repository=count_worker=$other" "${counts[@]}" >"$tmp/counts-other.log" 2>&1; then
  die "a count declared for another worker was made (or served from a cache)"
fi
grep -q "not the one the count declares" "$tmp/counts-other.log" || {
  tail -n 20 "$tmp/counts-other.log" >&2
  die "a count declared for another worker failed otherwise (above)"
}
echo "a count declared for another worker (valgrind-0.0): not served from the cache, refused by the worker"
echo "PASS: Buildbarn cached a clean rebuild of ${programs[*]}, executed them and their tests, and cached them; it counted ${counts[*]} as this machine does, and served the count again from its cache"
