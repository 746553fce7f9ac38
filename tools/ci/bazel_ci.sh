#!/usr/bin/env bash
# Runs tools/bazel the way every CI job does:
#
#   tools/ci/bazel_ci.sh COMMAND [ARGS...]
#   = tools/bazel COMMAND --config=ci [--config=buildbuddy] [ARGS...]
#
# --config=ci writes the build event stream to artifacts/bazel-events.json
# (the directory is made here). Trusted builds with $BUILDBUDDY_API_KEY add
# --config=buildbuddy and pass the key as --remote_header in
# buildbuddy-key.bazelrc, a gitignored link to a file in a directory of
# this user's own outside the checkout (private_dir), removed when Bazel is
# done. The key never reaches the log (the agent's redactor: on Buildkite,
# a key it cannot hide is not used) nor the artifacts (not in Bazel's
# environment; Bazel writes the build event file into the private
# directory, and it is scrubbed before it is moved to the artifacts). A
# killed build leaves the key and the unscrubbed file in the private
# directory only, which the next run clears first.
#
# A pull request from a fork (BUILDKITE_PULL_REQUEST_REPO is not
# BUILDKITE_REPO; docs/security.md) is untrusted: $BUILDBUDDY_API_KEY is
# ignored, $BUILDBUDDY_READONLY_API_KEY is used if given (on the
# command line, never in a file), --noremote_upload_local_results is added,
# and the build event file goes to untrusted-artifacts/.
#
# Runs the same locally, from the checkout: the key is optional.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
(($# > 0)) || {
  echo "usage: tools/ci/bazel_ci.sh COMMAND [ARGS...]" >&2
  exit 2
}
command="$1"
shift

readonly key_rc="buildbuddy-key.bazelrc"
events="artifacts/bazel-events.json"
configs=(--config=ci)
private_dir="${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/havlak-lab-ci-$(id -u)"
readonly private_dir

# repo_id URL: host/owner/name of a git URL in any of its forms.
repo_id() { sed -E 's#^[a-z+]+://##; s#^[^@/]*@##; s#:#/#; s#\.git$##; s#/$##' <<<"$1" | tr '[:upper:]' '[:lower:]'; }
pull_request="${BUILDKITE_PULL_REQUEST:-false}"
untrusted=""
if [[ -n "$pull_request" && "$pull_request" != false &&
  "$(repo_id "${BUILDKITE_PULL_REQUEST_REPO:-}")" != "$(repo_id "${BUILDKITE_REPO:-}")" ]]; then
  untrusted="pull request #$pull_request from ${BUILDKITE_PULL_REQUEST_REPO:-an unknown repository}"
fi
# A key file left by anyone before, or by a killed build, is never read by
# this build; mkdir fails if another user made the directory in between.
rm -f "$key_rc"
rm -rf "$private_dir"
mkdir -m 700 "$private_dir"
if [[ -n "$untrusted" ]]; then
  echo "bazel_ci.sh: untrusted build ($untrusted): no write key, no uploads to the cache" >&2
  key="${BUILDBUDDY_READONLY_API_KEY:-}"
  events="untrusted-artifacts/bazel-events.json"
  configs+=("--build_event_json_file=$events")
else
  key="${BUILDBUDDY_API_KEY:-}"
fi
mkdir -p "$(dirname "$events")"
# Bazel records its whole environment in the build event file (--client_env).
unset BUILDBUDDY_API_KEY BUILDBUDDY_READONLY_API_KEY

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  rm -f "$key_rc"
  if [[ -n "$key" && -f "$private_dir/bazel-events.json" ]]; then
    # Bazel records its whole command line, rc files included, in the
    # build event stream (with "=" as \u003d: the key itself is replaced).
    KEY="$key" perl -pi -e 's/\Q$ENV{KEY}\E/REDACTED/g' "$private_dir/bazel-events.json"
    mv "$private_dir/bazel-events.json" "$events"
  fi
  rm -rf "$private_dir"
}
trap cleanup EXIT

# --announce_rc prints rc files' options: on Buildkite the key must be
# hidden in the job's log, and the agent's default redacted-vars patterns
# (*_TOKEN, *_SECRET, ...) do not match BUILDBUDDY_API_KEY. A key the agent
# cannot hide is not used: the build goes on without BuildBuddy.
if [[ -n "$key" && -n "${BUILDKITE:-}" ]] &&
  ! { command -v buildkite-agent >/dev/null 2>&1 && printf '%s' "$key" | buildkite-agent redactor add >/dev/null 2>&1; }; then
  echo "bazel_ci.sh: buildkite-agent redactor add failed: the key could not be hidden from the log, so it is not used (no BuildBuddy for this build)" >&2
  key=""
fi
if [[ -n "$key" ]]; then
  # Bazel writes the unscrubbed build event file here; cleanup scrubs it.
  configs+=("--build_event_json_file=$private_dir/bazel-events.json")
  configs+=(--config=buildbuddy)
  if [[ -n "$untrusted" ]]; then
    configs+=("--remote_header=x-buildbuddy-api-key=$key")
  else
    (
      umask 077
      printf '%s\n' "# Written by tools/ci/bazel_ci.sh from \$BUILDBUDDY_API_KEY; removed after the build." \
        "build --remote_header=x-buildbuddy-api-key=$key" >"$private_dir/$key_rc"
    )
    ln -s "$private_dir/$key_rc" "$key_rc"
  fi
fi
# After --config=buildbuddy, which turns uploads on.
[[ -z "$untrusted" ]] || configs+=(--noremote_upload_local_results)

status=0
tools/bazel "$command" "${configs[@]}" "$@" || status=$?
exit "$status"
