#!/usr/bin/env bash
# Checks .buildkite/*.yml with Buildkite's own tools: the pipeline schema
# (check-jsonschema's vendor.buildkite, strict: unknown keys and wrong types
# fail) and the agent's parser (buildkite-agent pipeline upload --dry-run).
# Also checks that the nightly job keeps its promises (only on schedule,
# queue perf, serialised) in the agent's resolved JSON.
#
# Usage: pipeline_test.sh WORKSPACE_FILE GO (runfiles paths; see lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

check_jsonschema="$("${clean_env[@]}" "$tools" check-jsonschema)"
agent="$("${clean_env[@]}" "$tools" buildkite-agent)"

cd "$workspace"
for pipeline in .buildkite/pipeline.yml .buildkite/local.yml; do
  echo "== check-jsonschema --builtin-schema vendor.buildkite $pipeline"
  "$check_jsonschema" --builtin-schema vendor.buildkite "$pipeline" ||
    die "$pipeline does not match Buildkite's pipeline schema"

  echo "== buildkite-agent pipeline upload --dry-run $pipeline"
  # The dry run needs no agent token; it prints the pipeline as the agent
  # would upload it.
  "${clean_env[@]}" BUILDKITE_BUILD_ID=dry-run BUILDKITE_JOB_ID=dry-run \
    timeout 60 "$agent" pipeline upload --dry-run --format json "$pipeline" \
    >"$tmp/resolved.json" 2>"$tmp/agent.log" || {
    cat "$tmp/agent.log" >&2
    die "buildkite-agent cannot parse $pipeline"
  }
  if grep -qi 'warn' "$tmp/agent.log"; then
    cat "$tmp/agent.log" >&2
    die "buildkite-agent warns about $pipeline"
  fi
  head -n 12 "$tmp/resolved.json"
  echo "..."
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
expect '.agents' '{"queue":"perf","arch":"amd64"}'
expect '.concurrency' '1'
expect '.concurrency_group | type' '"string"'
expect '[.retry.automatic[].exit_status] | sort' '[-1,137,143]'
expect '.timeout_in_minutes | type' '"number"'
presubmit="$(jq -c '.steps[] | select(.key == "presubmit")' "$tmp/resolved.json")"
[[ "$(jq -r '.if' <<<"$presubmit")" == 'build.source != "schedule"' ]] ||
  die "presubmit must run on every build but the schedule's"
echo "PASS: pipelines match Buildkite's schema and parse with buildkite-agent"
