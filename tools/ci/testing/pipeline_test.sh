#!/usr/bin/env bash
# Checks .buildkite/*.yml with Buildkite's own tools: the pipeline schema
# (check-jsonschema's vendor.buildkite, strict: unknown keys and wrong types
# fail) and the agent's parser (buildkite-agent pipeline upload --dry-run).
# Also checks that the nightly job keeps its promises (only on schedule; the
# steps it generates from benchmarks/shards.json: a step per shard on its
# own perf agent, serialised, and the merge after all of them) in the
# agent's resolved JSON, and which steps
# each kind of build runs: a pull request from a fork only the fork's
# presubmit and perf check on queue untrusted; this repository's pull
# requests the presubmit and the perf check; pushes and builds by hand the
# presubmit, and on main the post-merge step; the schedule only the
# nightly. The agent leaves `if` to Buildkite's servers, so //tools/ci/whichsteps ($WHICHSTEPS)
# evaluates the conditions of the agent's resolved pipeline.
#
# Usage: pipeline_test.sh WORKSPACE_FILE GO (runfiles paths; see lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

check_jsonschema="$("${clean_env[@]}" "$tools" check-jsonschema)"
agent="$("${clean_env[@]}" "$tools" buildkite-agent)"

# Runfiles paths: resolved before leaving the runfiles directory.
whichsteps="$(readlink -f "${WHICHSTEPS:?set by //tools/ci:pipeline_test}")"
[[ -x "$whichsteps" ]] || die "no whichsteps at $WHICHSTEPS"
nightly_cmd="$(readlink -f "${NIGHTLY:?set by //tools/ci:pipeline_test}")"
[[ -x "$nightly_cmd" ]] || die "no nightly at $NIGHTLY"

# check PIPELINE RESOLVED: Buildkite's schema and the agent's parser accept
# the pipeline, without a warning; the agent's JSON of it goes to RESOLVED.
check() {
  echo "== check-jsonschema --builtin-schema vendor.buildkite $1"
  "$check_jsonschema" --builtin-schema vendor.buildkite "$1" ||
    die "$1 does not match Buildkite's pipeline schema"

  echo "== buildkite-agent pipeline upload --dry-run $1"
  # The dry run needs no agent token; it prints the pipeline as the agent
  # would upload it.
  "${clean_env[@]}" BUILDKITE_BUILD_ID=dry-run BUILDKITE_JOB_ID=dry-run \
    timeout 60 "$agent" pipeline upload --dry-run --format json "$1" \
    >"$2" 2>"$tmp/agent.log" || {
    cat "$tmp/agent.log" >&2
    die "buildkite-agent cannot parse $1"
  }
  if grep -qi 'warn' "$tmp/agent.log"; then
    cat "$tmp/agent.log" >&2
    die "buildkite-agent warns about $1"
  fi
  head -n 12 "$2"
  echo "..."
}

cd "$workspace"
for pipeline in .buildkite/pipeline.yml .buildkite/local.yml; do
  check "$pipeline" "$tmp/resolved.json"
done

# The promises of pipeline.yml, in the form the agent uploads it.
"${clean_env[@]}" BUILDKITE_BUILD_ID=dry-run BUILDKITE_JOB_ID=dry-run \
  timeout 60 "$agent" pipeline upload --dry-run --format json .buildkite/pipeline.yml \
  >"$tmp/resolved.json" 2>/dev/null
nightly="$(jq -c '.steps[] | select(.key == "nightly-perf")' "$tmp/resolved.json")"
[[ -n "$nightly" ]] || die "pipeline.yml has no step with key nightly-perf"
expect() {
  local got
  got="$(jq -c "$1" <<<"$nightly")"
  [[ "$got" == "$2" ]] || die "nightly-perf: $1 is $got, want $2"
}
expect '.if' '"build.source == \"schedule\""'
# The map is checked against the suite before its steps are uploaded: a
# benchmark in no shard fails the night's first step.
expect '.command' '"tools/ci/bazel_ci.sh test //tools/nightly/shard:shard_test\ntools/ci/nightly.sh --steps"'
expect '[.retry.automatic[].exit_status] | sort' '[-1,137,143]'
expect '.timeout_in_minutes | type' '"number"'

# The steps nightly-perf uploads, from the shard map (docs/nightly.md#shards):
# valid for Buildkite, a step per shard pinned to its own perf agent and
# serialised there, and the merge after all of them, whatever their outcome.
"$nightly_cmd" steps benchmarks/shards.json >"$tmp/steps.json" || die "nightly steps failed"
check "$tmp/steps.json" "$tmp/steps-resolved.json"
shards="$(jq '.shards | length' benchmarks/shards.json)"
((shards > 0)) || die "benchmarks/shards.json has no shards"
keys="$(jq -c '[.steps[] | select(.key | startswith("nightly-perf-shard-")) | .key]' "$tmp/steps-resolved.json")"
[[ "$(jq length <<<"$keys")" == "$shards" ]] || die "$shards shards in benchmarks/shards.json, steps $keys"
for ((k = 0; k < shards; k++)); do
  nightly="$(jq -c --arg key "nightly-perf-shard-$k" '.steps[] | select(.key == $key)' "$tmp/steps-resolved.json")"
  [[ -n "$nightly" ]] || die "no step nightly-perf-shard-$k"
  expect '.agents' "{\"arch\":\"amd64\",\"perf_shard\":\"$k\",\"queue\":\"perf\"}"
  expect '.concurrency' '1'
  expect '.concurrency_group' "\"havlak-lab/nightly-perf-shard-$k\""
  expect '.command' "\"tools/ci/nightly.sh --shard $k\""
  # The shard's night, how its build ended, and the counts of its
  # benchmarks' layout variants, which the merge reads.
  expect '.artifact_paths' "[\"shard-artifacts/shard-$k/*/outputs.zip\",\"shard-artifacts/shard-$k/bazel-events.json\",\"shard-artifacts/shard-$k/layout-variants/*/*.zip\"]"
  expect '[.retry.automatic[].exit_status] | sort' '[-1,137,143]'
done
nightly="$(jq -c '.steps[] | select(.key == "nightly-perf-merge")' "$tmp/steps-resolved.json")"
[[ -n "$nightly" ]] || die "the nightly job's steps have no merge step"
expect '.command' '"tools/ci/nightly.sh --merge"'
expect '.depends_on' "$keys"
expect '.allow_dependency_failure' 'true'
expect '.agents.queue' '"perf"'

# routes NAME WANT VAR=VALUE...: the steps a build with these conditional
# variables runs are WANT (keys, space-separated).
routes() {
  local name="$1" want="$2" got
  shift 2
  local args=()
  for var in "$@"; do args+=(-var "$var"); done
  got="$("$whichsteps" -pipeline "$tmp/resolved.json" "${args[@]}" | tr '\n' ' ' | sed 's/ $//')" ||
    die "whichsteps failed for $name"
  printf '%-28s -> %s\n' "$name" "$got"
  [[ "$got" == "$want" ]] || die "$name runs the steps '$got', want '$want'"
}
# Buildkite's variables: fork is null outside pull requests.
routes "pull request from a fork" "presubmit-fork perf-check-fork" build.source=webhook build.branch=someone:patch-1 \
  'build.pull_request.id="17"' build.pull_request.repository.fork=true
routes "pull request of this repo" "presubmit perf-check" build.source=webhook build.branch=feature \
  'build.pull_request.id="18"' build.pull_request.repository.fork=false
routes "push to main" "presubmit post-merge" build.source=webhook build.branch=main \
  build.pull_request.id=null build.pull_request.repository.fork=null
routes "push to another branch" presubmit build.source=webhook build.branch=feature \
  build.pull_request.id=null build.pull_request.repository.fork=null
routes "build started by hand" "presubmit post-merge" build.source=ui build.branch=main \
  build.pull_request.id=null build.pull_request.repository.fork=null
routes "nightly schedule" nightly-perf build.source=schedule build.branch=main \
  build.pull_request.id=null build.pull_request.repository.fork=null

# The fork's steps: agents of their own, no secrets through the pipeline,
# and artifacts apart from the trusted jobs'.
for key in presubmit-fork perf-check-fork; do
  fork="$(jq -c --arg key "$key" '.steps[] | select(.key == $key)' "$tmp/resolved.json")"
  [[ "$(jq -c '.agents' <<<"$fork")" == '{"queue":"untrusted","arch":"amd64"}' ]] ||
    die "$key must run on queue untrusted: $(jq -c '.agents' <<<"$fork")"
  [[ "$(jq -c '[.env, .plugins] | map(select(. != null))' <<<"$fork")" == "[]" ]] ||
    die "$key must pass no env or plugins (secrets) to its job"
  [[ "$(jq -c '[.artifact_paths[] | select(startswith("untrusted-artifacts/") | not)]' <<<"$fork")" == "[]" ]] ||
    die "$key uploads artifacts outside untrusted-artifacts/"
done
[[ "$(jq -r '[.steps[] | select(.key | endswith("-fork") | not) | .agents.queue] | index("untrusted")' "$tmp/resolved.json")" == null ]] ||
  die "only the fork's steps may run on queue untrusted"
# The example consumer's pipeline (docs/adopting.md, the one to copy): the
# same checks, and the same routing by trust.
consumer_pipeline=examples/consumer/.buildkite/pipeline.yml
check "$consumer_pipeline" "$tmp/resolved.json"
routes "consumer: fork's pull request" perf-check-fork build.source=webhook build.branch=someone:patch-1 \
  'build.pull_request.id="17"' build.pull_request.repository.fork=true
routes "consumer: its pull request" perf-check build.source=webhook build.branch=feature \
  'build.pull_request.id="18"' build.pull_request.repository.fork=false
routes "consumer: push to main" "" build.source=webhook build.branch=main \
  build.pull_request.id=null build.pull_request.repository.fork=null
routes "consumer: nightly schedule" nightly build.source=schedule build.branch=main \
  build.pull_request.id=null build.pull_request.repository.fork=null
[[ "$(jq -r '[.steps[] | select(.key != "perf-check-fork") | .agents.queue] | index("untrusted")' "$tmp/resolved.json")" == null &&
  "$(jq -r '.steps[] | select(.key == "perf-check-fork") | .agents.queue' "$tmp/resolved.json")" == untrusted ]] ||
  die "$consumer_pipeline: the fork's perf check, and it alone, must run on queue untrusted"
# Nothing of the lab's tree runs: every command is a target of the lab's
# repository, as the WORKSPACE pins it.
if jq -r '.steps[].command' "$tmp/resolved.json" | grep -v '^bazel run @havlak_lab//tools/'; then
  die "$consumer_pipeline runs the commands above, not the lab's targets"
fi
echo "PASS: pipelines match Buildkite's schema and parse with buildkite-agent; builds are routed by trust"
