#!/usr/bin/env bash
# Runs tools/bazel the way every CI job does:
#
#   tools/ci/bazel_ci.sh COMMAND [ARGS...]
#   = tools/bazel COMMAND --config=ci [--config=buildbuddy] [ARGS...]
#
# --config=ci writes the build event stream to artifacts/bazel-events.json.
# Trusted builds with $BUILDBUDDY_API_KEY add --config=buildbuddy and pass
# the key in an rc file that only this command reads (--bazelrc=FILE), in
# the step's private directory outside the checkout, which tools/ci/stepdir
# keeps (it also scrubs the build event file Bazel writes there). A pull
# request from a fork is untrusted: no write key, at most
# $BUILDBUDDY_READONLY_API_KEY on the command line, no uploads, the build
# event file in untrusted-artifacts/. docs/security.md says how the key
# stays out of the log, Bazel's environment and the artifacts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
(($# > 0)) || {
  echo "usage: tools/ci/bazel_ci.sh COMMAND [ARGS...]" >&2
  exit 2
}
command="$1"
shift
events="artifacts/bazel-events.json"
configs=(--config=ci)
# An older bazel_ci.sh linked the key file into the checkout; tools/bazel
# refuses to run while one is there.
if [[ -e buildbuddy-key.bazelrc || -L buildbuddy-key.bazelrc ]]; then
  echo "bazel_ci.sh: removing buildbuddy-key.bazelrc, an older bazel_ci.sh's key file, from the checkout" >&2
  rm -f buildbuddy-key.bazelrc
fi
key="${BUILDBUDDY_API_KEY:-}" readonly_key="${BUILDBUDDY_READONLY_API_KEY:-}"
# Bazel records its whole environment in the build event file (--client_env).
unset BUILDBUDDY_API_KEY BUILDBUDDY_READONLY_API_KEY

# This step's private directory, step-PID-START; stepdir copies itself there.
private_dir="$(tools/bazel run //tools/ci/stepdir -- open -pid $$)"
readonly private_dir stepdir="$private_dir/stepdir"
trap 'STEPDIR_KEY="$key" "$stepdir" close -events "$events" "$private_dir"' EXIT
untrusted="$("$stepdir" fork)"
if [[ -n "$untrusted" ]]; then
  echo "bazel_ci.sh: untrusted build ($untrusted): no write key, no uploads to the cache" >&2
  key="$readonly_key"
  events="untrusted-artifacts/bazel-events.json"
  configs+=("--build_event_json_file=$events")
fi
mkdir -p "$(dirname "$events")"
# On Buildkite the key must also be hidden in the job's log (the agent's
# default redacted-vars patterns do not match BUILDBUDDY_API_KEY).
if [[ -n "$key" && -n "${BUILDKITE:-}" ]] &&
  ! { command -v buildkite-agent >/dev/null 2>&1 && printf '%s' "$key" | buildkite-agent redactor add >/dev/null 2>&1; }; then
  echo "bazel_ci.sh: buildkite-agent redactor add failed: the key could not be hidden from the log, so it is not used (no BuildBuddy for this build)" >&2
  key=""
fi
startup=()
if [[ -n "$key" ]]; then
  # Bazel writes the unscrubbed build event file there; close scrubs it.
  configs+=("--build_event_json_file=$private_dir/bazel-events.json" --config=buildbuddy --noannounce_rc)
  if [[ -n "$untrusted" ]]; then
    configs+=("--remote_header=x-buildbuddy-api-key=$key")
  else
    # Read after every other rc file, and only by this command.
    rc="$(STEPDIR_KEY="$key" "$stepdir" key "$private_dir")"
    startup+=("--bazelrc=$rc")
  fi
fi
# After --config=buildbuddy, which turns uploads on.
[[ -z "$untrusted" ]] || configs+=(--noremote_upload_local_results)
status=0
tools/bazel "${startup[@]}" "$command" "${configs[@]}" "$@" || status=$?
exit "$status"
