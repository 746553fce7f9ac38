#!/usr/bin/env bash
# Runs the presubmit end to end the way a Buildkite agent does: `bk local
# run` (Buildkite CLI v1.2.0: a local stand-in for Buildkite's API) drives
# the real buildkite-agent through .buildkite/local.yml in a disposable copy
# of the checkout, whose Bazel has an output root of its own.
#
# local.yml is pipeline.yml's presubmit for forks on four quick benchmarks
# (a nested `bazel test //...` would run this test again, and the outer one
# runs the others), in a fork's pull request, plus the nightly's output
# collection on those (.buildkite/local.yml). The
# agent is given a write key as if an untrusted agent had one by mistake (a
# made-up value): it must reach neither Bazel's environment nor the log nor
# the artifacts, and the build event file must show Bazel ran with
# --noremote_upload_local_results.
#
# Usage: bk_local_run_test.sh WORKSPACE_FILE GO (runfiles paths; see lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

agent="$("${clean_env[@]}" "$tools" buildkite-agent)"
bk="$("${clean_env[@]}" "$tools" bk)"

copy="$tmp/checkout"
copy_checkout "$copy"
# bk local run reads the commit and branch of the checkout.
git -C "$copy" init -q
git -C "$copy" add -A
git -C "$copy" -c user.name=havlak-lab -c user.email=lab@localhost commit -qm "bk local run"

port="$(free_port)"
log="$tmp/bk.log"
echo "== bk local run .buildkite/local.yml (in $copy, API on 127.0.0.1:$port)"
# bk keeps every artifact the steps upload in a directory of its own under
# ~/.buildkite/local/artifacts (the steps' HOME is the agent's, and the
# steps need the user's Go module and tool caches): the ones this run adds
# are removed when it ends.
artifacts="${HOME:?}/.buildkite/local/artifacts"
mkdir -p "$artifacts"
artifacts_before="$(ls -A "$artifacts")"
# shellcheck disable=SC2317 # called by the cleanup
remove_new_artifacts() {
  local entry
  for entry in "$artifacts"/*; do
    grep -qxF "$(basename "$entry")" <<<"$artifacts_before" || rm -rf "$entry"
  done
}
cleanups+=(remove_new_artifacts)
touch "$tmp/started"
write_key="havlak-lab-test-write-key-$$-$RANDOM"
status=0
(cd "$copy" && "${clean_env[@]}" "PATH=$(dirname "$agent"):$(dirname "$go_cmd"):/bin:/usr/bin:/usr/local/bin" \
  timeout 2400 "$bk" local run --env "BUILDBUDDY_API_KEY=$write_key" --env HAVLAK_LAB_AGENT_ENV=reached \
  --listen-port "$port" .buildkite/local.yml) >"$log" 2>&1 || status=$?
# The agent prefixes each line with a timestamp escape (ESC _bk;t=N BEL) and
# keeps Bazel's colours and carriage returns; strip them for reading and grep.
plain="$tmp/bk.txt"
sed -e $'s/\e_bk;t=[0-9]*\a//g' -e $'s/\e\\[[0-9;]*m//g' -e $'s/\r//g' "$log" >"$plain"
# Bazel's own summary lines, bk's progress and the results table.
grep -E '^>>>|Executed [0-9]+ out of|^\| ' "$plain" || true
if ((status != 0)); then
  tail -n 60 "$plain" >&2
  die "bk local run exited with $status"
fi
grep -q '>>> Build finished' "$plain" || die "bk local run did not finish the build"
[[ "$(grep -c '>>> Executing command step' "$plain")" == 2 ]] || die "bk local run did not run both steps"
grep -Eq 'Executed ([0-9]+) out of \1 tests: \1 tests pass\.' "$plain" ||
  die "the presubmit's bazel test did not pass every test"
[[ -f "$copy/artifacts/quick/havlak6_quick_test/outputs.zip" ]] ||
  die "no artifacts/quick/havlak6_quick_test/outputs.zip: the outputs were not collected"
grep -Eq '^\| havlak6 \| Go \| [0-9]+\.[0-9]+ \(' "$plain" || die "no results table row for havlak6"
[[ -n "$(find "$artifacts" -newer "$tmp/started" -name bazel-events.json)" ]] ||
  die "the presubmit's artifact_paths uploaded no bazel-events.json to $artifacts"

echo "== the fork's pull request"
grep -m 1 'bazel_ci.sh: untrusted build (pull request #17 from git://github.com/a-fork/' "$plain" ||
  die "tools/ci/bazel_ci.sh did not take the presubmit for untrusted"
events="$copy/untrusted-artifacts/bazel-events.json"
[[ -f "$events" && ! -e "$copy/artifacts/bazel-events.json" ]] ||
  die "the fork's build event file is not in untrusted-artifacts/ alone"
[[ ! -e "$copy/buildbuddy-key.bazelrc" ]] || die "a key file was written"
leaks="$({
  grep -rlF "$write_key" "$plain" "$copy/artifacts" "$copy/untrusted-artifacts"
  find "$artifacts" -mindepth 1 -maxdepth 1 -newer "$tmp/started" -exec grep -rlF "$write_key" {} +
} || true)"
[[ -z "$leaks" ]] || die "the agent's write key is in: $leaks"
# Bazel records its environment (--client_env): the agent's reaches it,
# the key does not.
client_env="$(jq -r 'select(.structuredCommandLine.commandLineLabel == "canonical") |
  [.. | objects | select(.optionName? == "client_env") | .optionValue] |
  if index("HAVLAK_LAB_AGENT_ENV=reached") == null then "the agent'"'"'s environment did not reach Bazel"
  else map(select(startswith("BUILDBUDDY_")) | sub("=.*"; "")) | join(" ") end' "$events")"
[[ -z "$client_env" ]] || die "Bazel's environment: $client_env"
options="$(jq -r 'select(.optionsParsed) | .optionsParsed.cmdLine | join(" ")' "$events")"
echo "Bazel's effective options (build event file, optionsParsed.cmdLine):"
fold -s -w 100 <<<"$options" | sed 's/^/  /'
[[ " $options " == *" --noremote_upload_local_results "* ]] || die "no --noremote_upload_local_results"
[[ " $options " != *" --remote_upload_local_results "* ]] || die "--remote_upload_local_results on the command line"
upload="$(jq -r 'select(.structuredCommandLine.commandLineLabel == "canonical") |
  [.. | objects | select(.optionName? == "remote_upload_local_results") | .optionValue] | last' "$events")"
[[ "$upload" == 0 || "$upload" == false ]] || die "canonical remote_upload_local_results is $upload"
echo "no key in Bazel's environment, the log or the artifacts; remote_upload_local_results=$upload"
# The nightly gate on the quick benchmarks: into the personal history,
# searched, and kept from the baseline (not the schedule's night).
grep -Eq '^havlak6: added \(.*/artifacts/history/nights/' "$plain" || die "the gate did not ingest havlak6 into the history"
grep -q '^Change points: ' "$plain" || die "the gate did not search the history for change points"
grep -q '^The baseline stays: this night is not promoted' "$plain" || die "the gate did not refuse to promote an untrusted night"
[[ -f "$copy/artifacts/quick/trends.json" ]] || die "the gate wrote no trends file"
echo "PASS: bk local run ran the presubmit steps, a fork's pull request as untrusted"
